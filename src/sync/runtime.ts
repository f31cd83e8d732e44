/**
 * Builds what an in-process sync needs from the configuration: the warehouse, the API client,
 * the scope lock and the sync settings. The embedded warehouse is migrated on open (it is ours
 * and has no release step); a PostgreSQL warehouse must have been migrated by `migrate`.
 */
import { createEventsClient, type EventsClient } from '../api/client.js';
import { ApiClients } from '../api/clients.js';
import { buildTlsOptions } from '../api/http-agent.js';
import type { ApiMetrics } from '../api/metrics.js';
import type { RequestBudget } from '../api/request-budget.js';
import type { Config } from '../config.js';
import type { Logger } from '../logger.js';
import { createWarehouse, type Warehouse } from '../warehouse/database.js';
import { assertMigrated, migrateToLatest } from '../warehouse/migrator.js';
import { scopeLockFor } from './lock.js';
import type { SyncContext, SyncSettings } from './run-window.js';

export interface SyncRuntime {
  readonly ctx: SyncContext;
  readonly warehouse: Warehouse;
  /** The client of each credential, made on first use. */
  readonly clients: ApiClients;
  /** The default key pair's client (EVENTS_API_PUBLIC_KEY / EVENTS_API_PRIVATE_KEY). */
  readonly client: EventsClient;
  close(): Promise<void>;
}

export interface SyncRuntimeOptions {
  readonly now?: () => Date;
  readonly signal?: AbortSignal;
  readonly onPage?: SyncContext['onPage'];
  /** Shared through Redis by workers; in-process commands use the client's in-memory default. */
  readonly budget?: RequestBudget;
  readonly metrics?: ApiMetrics;
}

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
  try {
    if (warehouse.kind === 'pglite') await migrateToLatest(warehouse, logger);
    else await assertMigrated(warehouse);
    return warehouse;
  } catch (error) {
    await warehouse.close();
    throw error;
  }
}

export async function openSyncRuntime(config: Config, logger: Logger, options: SyncRuntimeOptions = {}): Promise<SyncRuntime> {
  // Clients are made on first use; a CA file no client could use is the whole process's
  // configuration error, so it fails here, at start.
  if (config.api.caFile !== undefined) buildTlsOptions({ caFile: config.api.caFile });
  const clients = new ApiClients((credential) =>
    createEventsClient(
      config,
      {
        logger,
        ...(options.budget ? { budget: options.budget } : {}),
        ...(options.metrics ? { metrics: options.metrics } : {}),
      },
      credential,
    ),
  );
  let warehouse: Warehouse;
  try {
    warehouse = await openWarehouse(config, logger);
  } catch (error) {
    await clients.close();
    throw error;
  }
  const ctx: SyncContext = {
    clients,
    warehouse,
    lock: scopeLockFor(warehouse),
    logger,
    settings: syncSettings(config),
    now: options.now ?? (() => new Date()),
    ...(options.signal ? { signal: options.signal } : {}),
    ...(options.onPage ? { onPage: options.onPage } : {}),
  };
  return {
    ctx,
    warehouse,
    clients,
    get client() {
      return clients.for();
    },
    async close() {
      await clients.close();
      await warehouse.close();
    },
  };
}
