/**
 * Builds what an in-process sync needs from the configuration: the warehouse (open-warehouse.ts),
 * the API client, the scope lock and the sync settings.
 */
import { createEventsClient, type EventsClient } from '../api/client.js';
import { ApiClients } from '../api/clients.js';
import { buildTlsOptions } from '../api/http-agent.js';
import type { ApiMetrics } from '../api/metrics.js';
import type { RequestBudget } from '../api/request-budget.js';
import type { Config } from '../config.js';
import type { Logger } from '../logger.js';
import type { Warehouse } from '../warehouse/database.js';
import { scopeLockFor } from './lock.js';
import { openWarehouse, syncSettings } from './open-warehouse.js';
import type { SyncContext } from './run-window.js';

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
