/**
 * The demo: an emulator with a realistic organization and projects, an embedded warehouse made
 * fresh under `<dataDir>/demo`, one sync of every scope, then a report. Needs no services.
 */
import { rmSync } from 'node:fs';
import path from 'node:path';
import { ApiClients } from '../api/clients.js';
import { createEventsClient } from '../api/client.js';
import { loadConfig } from '../config.js';
import { startEmulator } from '../emulator/server.js';
import type { Logger } from '../logger.js';
import { mapWithConcurrency } from '../sync/concurrency.js';
import { discoverScopes } from '../sync/discovery.js';
import { scopeLockFor } from '../sync/lock.js';
import type { SyncContext } from '../sync/run-window.js';
import { syncSettings } from '../sync/open-warehouse.js';
import { syncScope, type ScopeRunResult } from '../sync/sync-scope.js';
import { createWarehouse, type Warehouse } from '../warehouse/database.js';
import { migrateToLatest } from '../warehouse/migrator.js';

export interface DemoOptions {
  readonly eventsPerScope: number;
  readonly days: number;
  readonly dataDir: string;
  readonly schema: string;
  readonly logger: Logger;
  /** Events landed so far out of the emulator's total; drives the progress bar. */
  readonly onProgress?: (landed: number, total: number) => void;
}

export interface DemoResult {
  readonly results: readonly ScopeRunResult[];
  readonly warehouse: Warehouse;
  readonly warehouseDir: string;
  readonly seconds: number;
}

export async function runDemo(options: DemoOptions): Promise<DemoResult> {
  const started = performance.now();
  const emulator = await startEmulator({
    port: 0,
    seed: 1,
    eventsPerScope: options.eventsPerScope,
    days: options.days,
    faults: { malformedRate: 0.002 },
  });
  const warehouseDir = path.resolve(options.dataDir, 'demo');
  rmSync(warehouseDir, { recursive: true, force: true });
  const warehouse = await createWarehouse({ schema: options.schema, dataDir: warehouseDir, logger: options.logger });
  try {
    await migrateToLatest(warehouse, options.logger);
    const key = emulator.keys[0]!;
    // Only the demo's own settings: nothing from the user's environment points it elsewhere.
    const config = loadConfig({
      env: {},
      overrides: {
        api: {
          baseUrl: emulator.baseUrl,
          publicKey: key.publicKey,
          privateKey: key.privateKey,
          requestsPerMinute: { group: 100_000, org: 100_000 },
        },
        scopes: emulator.dataset.scopes(),
        // The organization lists its projects, as `EVENTS_DISCOVER_PROJECTS` does: their names land in `scopes`.
        sync: { startDate: new Date(Date.now() - (options.days + 1) * 86_400_000).toISOString(), settleSeconds: 0, discoverProjects: true },
      },
    });
    const total = emulator.dataset.scopes().reduce((sum, scope) => sum + emulator.dataset.count(scope), 0);
    let landed = 0;
    const client = createEventsClient(config, { logger: options.logger });
    const ctx: SyncContext = {
      clients: ApiClients.single(client),
      warehouse,
      lock: scopeLockFor(warehouse),
      logger: options.logger,
      settings: syncSettings(config),
      now: () => new Date(),
      onPage: (_scope, page) => {
        landed += page.events.length + page.rejected.length;
        options.onProgress?.(landed, total);
      },
    };
    try {
      const { scopes } = await discoverScopes(
        { clients: ctx.clients, db: warehouse.db, logger: options.logger, now: ctx.now },
        config.scopes,
      );
      const results = await mapWithConcurrency(scopes, 4, (settings) => syncScope(ctx, settings, { mode: 'sync' }));
      return { results, warehouse, warehouseDir, seconds: (performance.now() - started) / 1000 };
    } finally {
      await client.close();
    }
  } catch (error) {
    await warehouse.close();
    throw error;
  } finally {
    await emulator.close();
  }
}
