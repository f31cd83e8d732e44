/**
 * The `worker` process: wires Redis, the warehouse, the API client with its Redis-shared request
 * budget, the BullMQ worker and the health/metrics server, then runs until SIGTERM or SIGINT.
 *
 * Shutdown is bounded: the worker stops taking jobs and lets running ones finish for
 * `worker.shutdownTimeoutMs`; jobs still running then are interrupted and handed back to the
 * queue; Redis, the pool and the server are closed. A second signal interrupts at once. Every step
 * has its own deadline, because a dependency behind a partition never answers a close either, and
 * the process exits `HARD_STOP_MARGIN_MS` after the shutdown timeout whatever it still waits on.
 */
import { sql } from 'kysely';
import { Registry, collectDefaultMetrics } from 'prom-client';
import { createApiMetrics } from '../api/metrics.js';
import { redisRequestBudget } from '../api/request-budget.js';
import { requireApiAccess, type Config } from '../config.js';
import { settlesWithin } from '../deadline.js';
import { ConfigError, errorMessage } from '../errors.js';
import type { Logger } from '../logger.js';
import { armHardStop, exitEvenIfSocketsLinger, listenForShutdown } from '../shutdown-signals.js';
import { openSyncRuntime, type SyncRuntime } from '../sync/runtime.js';
import { assertMigrated } from '../warehouse/migrator.js';
import { describeUrl } from '../warehouse/database.js';
import { openWhenPostgresAnswers } from '../warehouse/wait-for-postgres.js';
import { createRedisConnection, describeRedisUrl, waitForRedis } from './connection.js';
import { startHealthServer, type HealthServer } from './health-server.js';
import { keepHouse } from '../sync/housekeeping.js';
import { catalogSources, scheduleCatalogRefresh } from '../sync/event-type-catalog.js';
import { createJobProcessor } from './job-processor.js';
import { startHeartbeat, type Heartbeat } from './heartbeat.js';
import { registerFleetMetrics } from './fleet-metrics.js';
import { createSyncMetrics } from './metrics.js';
import { createSyncQueue, type SyncQueue } from './scheduler.js';
import { createSyncWorker } from './worker.js';

export interface WorkerProcessOptions {
  readonly metricsHost: string;
  /** Resolves when the process should stop; defaults to the first SIGTERM or SIGINT. */
  readonly stopSignal?: Promise<string>;
}

const STARTUP_REDIS_TIMEOUT_MS = 60_000;
/** As long as for Redis: a database restarted by the same deploy is back well within it. */
const STARTUP_POSTGRES_TIMEOUT_MS = 60_000;
/** How long interrupted jobs get to hand themselves back before the worker is closed by force. */
const INTERRUPT_GRACE_MS = 2_000;
/** Each close (BullMQ, the health server, the pool, Redis) is given up on after this. */
const CLOSE_STEP_MS = 1_000;
const HARD_STOP_MARGIN_MS = 9_000;
/** The readiness probe of the API answers within the health checks' 2 s deadline. */
export const API_PROBE_TIMEOUT_MS = 1_500;

export async function runWorkerProcess(config: Config, logger: Logger, options: WorkerProcessOptions): Promise<number> {
  requireApiAccess(config);
  requirePostgres(config, 'worker');
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const syncMetrics = createSyncMetrics(registry);
  const interrupt = new AbortController();
  const signals = options.stopSignal
    ? undefined
    : listenForShutdown((signal) => {
        logger.warn(`${signal} again: interrupting running jobs now`);
        interrupt.abort(new Error('worker shutting down'));
      });
  const stopRequested = options.stopSignal ?? signals!.first;
  // Armed at the signal whatever the process is doing then, startup included.
  let hardStop: NodeJS.Timeout | undefined;
  void stopRequested.then(() => {
    hardStop = armHardStop(config.worker.shutdownTimeoutMs + HARD_STOP_MARGIN_MS, () =>
      logger.error('shutdown did not finish in time: exiting anyway (running jobs are retaken once their lock lapses)'),
    );
  });

  const connection = createRedisConnection({
    url: config.redis.url,
    name: 'worker',
    logger,
    connectTimeoutMs: config.redis.connectTimeoutMs,
    socketTimeoutMs: config.redis.socketTimeoutMs,
  });
  let runtime: SyncRuntime | undefined;
  let health: HealthServer | undefined;
  let metricsQueue: SyncQueue | undefined;
  let heartbeat: Heartbeat | undefined;
  try {
    // Served from the start: liveness answers while the worker waits for Redis and the warehouse.
    const started = () => {
      if (!runtime) throw new Error('starting: waiting for Redis and the warehouse');
      return runtime;
    };
    health = await startHealthServer({
      port: config.worker.metricsPort,
      host: options.metricsHost,
      registry,
      checks: {
        redis: async () => void (await connection.ping()),
        postgres: async () => void (await sql`select 1`.execute(started().warehouse.db)),
        migrations: () => assertMigrated(started().warehouse),
        // A dead API makes the worker unready, never dead: /livez does not look at it.
        api: () => started().clients.probe(API_PROBE_TIMEOUT_MS),
      },
    }).catch((error: unknown) => {
      throw new ConfigError(
        `cannot serve /healthz and /metrics on ${options.metricsHost}:${config.worker.metricsPort}: ${errorMessage(error)}; set METRICS_PORT to a free port`,
      );
    });
    if ((await waitForRedis(connection, config.redis.url, STARTUP_REDIS_TIMEOUT_MS, stopRequested)) === 'stopped') {
      logger.info('stopped before Redis answered: no job was taken');
      return 0;
    }
    const apiMetrics = createApiMetrics(registry);
    const opened = await openWhenPostgresAnswers(
      () =>
        openSyncRuntime(config, logger, {
          signal: interrupt.signal,
          budget: redisRequestBudget(connection, config.api.requestsPerMinute, config.redis.prefix),
          metrics: apiMetrics,
          onPage: syncMetrics.onPage,
        }),
      { ...waitForWarehouse(config, logger), stop: stopRequested },
    );
    if (opened === 'stopped') {
      logger.info('stopped before PostgreSQL answered: no job was taken');
      return 0;
    }
    runtime = opened;
    const warehouse = runtime.warehouse;
    heartbeat = startHeartbeat({ kind: 'worker', db: () => Promise.resolve(warehouse.db), logger });
    metricsQueue = createSyncQueue(connection, config.redis.prefix);
    registerFleetMetrics(registry, { queue: metricsQueue, db: warehouse.db });
    const worker = createSyncWorker({
      connection,
      prefix: config.redis.prefix,
      concurrency: config.worker.concurrency,
      processor: createJobProcessor({
        ctx: runtime.ctx,
        logger,
        metrics: syncMetrics,
        reconcileReReadPages: config.reconcile.reReadPages,
        jobTimeoutMs: config.worker.jobTimeoutMs,
      }),
      logger,
    });
    void worker.run().catch((error: unknown) => logger.error({ err: error }, `worker stopped: ${errorMessage(error)}`));
    // Every worker tidies sync_runs now and then; the work is idempotent, so several at once is fine.
    const syncContext = runtime.ctx;
    const tidy = () =>
      void keepHouse(syncContext, config.housekeeping, logger).catch((error: unknown) =>
        logger.warn({ err: { message: errorMessage(error) } }, `sync_runs housekeeping failed (tried again later): ${errorMessage(error)}`),
      );
    tidy();
    const housekeeping = setInterval(tidy, HOUSEKEEPING_EVERY_MS);
    housekeeping.unref();
    // Atlas v2 sources' event type catalogue: now, then daily.
    const stopCatalog = scheduleCatalogRefresh(
      { clients: runtime.clients, warehouse, logger, now: syncContext.now, signal: interrupt.signal },
      catalogSources(config),
    );
    logger.info(
      {
        concurrency: config.worker.concurrency,
        redis: describeRedisUrl(config.redis.url),
        prefix: config.redis.prefix,
        metrics: health.url,
      },
      `worker running ${config.worker.concurrency} jobs at a time; probes at ${health.url}/livez and /readyz, health at /healthz, metrics at ${health.url}/metrics`,
    );

    const signal = await stopRequested;
    clearInterval(housekeeping);
    stopCatalog();
    const shutdownMs = config.worker.shutdownTimeoutMs;
    logger.info(`${signal}: no new jobs; waiting up to ${shutdownMs} ms for running ones`);
    const closing = worker.close();
    if (!(await settlesWithin(closing, shutdownMs))) {
      logger.warn(`jobs still running after ${shutdownMs} ms: interrupting them and handing them back to the queue`);
      interrupt.abort(new Error('worker shutting down'));
      if (!(await settlesWithin(closing, INTERRUPT_GRACE_MS))) await settlesWithin(worker.close(true), CLOSE_STEP_MS);
    }
    return 0;
  } finally {
    signals?.dispose();
    if (health) await settlesWithin(health.close(), CLOSE_STEP_MS);
    if (metricsQueue) await settlesWithin(metricsQueue.close(), CLOSE_STEP_MS);
    if (heartbeat) await settlesWithin(heartbeat.stop(), CLOSE_STEP_MS);
    if (runtime) {
      const closed = runtime
        .close()
        .catch((error: unknown) => logger.warn({ err: error }, `closing the warehouse: ${errorMessage(error)}`));
      if (!(await settlesWithin(closed, 2 * CLOSE_STEP_MS))) logger.warn('the warehouse did not close in time: leaving its connections');
    }
    if (!(await settlesWithin(connection.quit(), CLOSE_STEP_MS))) connection.disconnect();
    clearTimeout(hardStop);
    if (!options.stopSignal) exitEvenIfSocketsLinger();
  }
}

const HOUSEKEEPING_EVERY_MS = 10 * 60_000;

/** How a worker or scheduler waits at start for a PostgreSQL warehouse that does not answer yet. */
export function waitForWarehouse(config: Config, logger: Logger) {
  return {
    where: describeUrl(config.database.url ?? ''),
    logger,
    timeoutMs: STARTUP_POSTGRES_TIMEOUT_MS,
    dispose: (runtime: SyncRuntime) => runtime.close(),
  };
}

/** The worker and scheduler run on several hosts: the embedded warehouse cannot be shared. */
export function requirePostgres(config: Config, processName: string): void {
  if (!config.database.url) {
    throw new ConfigError(
      `the ${processName} needs DATABASE_URL: it shares one PostgreSQL warehouse with every other worker, and the embedded warehouse serves a single process only`,
    );
  }
}
