/**
 * Opens the configured warehouse for a command, and the sync settings from the configuration; apart
 * from runtime.ts so that commands that only read the warehouse load no API client. The embedded
 * warehouse is migrated on open (it is ours and has no release step); a PostgreSQL warehouse must
 * have been migrated by `migrate`.
 */
import type { Config } from '../config.js';
import type { Logger } from '../logger.js';
import { createWarehouse, type Warehouse } from '../warehouse/database.js';
import { readyForWrites } from '../warehouse/migrator.js';
import type { SyncSettings } from './run-window.js';

export function syncSettings(config: Config): SyncSettings {
  return {
    itemsPerPage: config.api.itemsPerPage,
    maxPagesPerWindow: config.sync.maxPagesPerWindow,
    lookbackSeconds: config.sync.lookbackSeconds,
    settleSeconds: config.sync.settleSeconds,
    windowSeconds: config.sync.windowSeconds,
    initialDays: config.sync.initialDays,
  };
}

/** Opens the warehouse (migrated) for commands that read or write it. */
export async function openWarehouse(config: Config, logger: Logger): Promise<Warehouse> {
  const warehouse = await createWarehouse({
    ...(config.database.url ? { url: config.database.url } : {}),
    schema: config.database.schema,
    dataDir: config.database.dataDir,
    // Every running scope pins one connection for its advisory lock, needs two for its pages'
    // transactions (two pages of a window write at once), and one for the lookups of the pages
    // read ahead; a smaller pool could deadlock with every connection holding a lock, or make the
    // writes wait.
    poolSize: 4 * Math.max(config.sync.concurrency, config.worker.concurrency) + 2,
    deadlines: { connectTimeoutMs: config.database.connectTimeoutMs, queryTimeoutMs: config.database.queryTimeoutMs },
    logger,
  });
  return readyForWrites(warehouse, logger);
}
