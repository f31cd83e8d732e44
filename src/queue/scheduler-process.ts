/**
 * The `scheduler` process: reconciles one job scheduler per configured scope, then keeps them so
 * (see scheduler.ts) until SIGTERM or SIGINT. With `once`, reconciles and exits. It needs Redis and
 * the scope list only, unless an organization discovers its projects: then it also lists them
 * (API key) and records them in the warehouse's `scopes` table (DATABASE_URL), every
 * `scheduler.discoveryIntervalSeconds`, and adds and removes job schedulers to match.
 *
 * Running (not `once`), it serves /livez, /readyz, /healthz and /metrics on
 * `scheduler.metricsPort` from its start: ready while Redis answers and, when it discovers
 * projects, the warehouse and the API too.
 *
 * Stopping is bounded even while Redis is silent: each close is given up on after
 * `CLOSE_STEP_MS`, and the process exits `HARD_STOP_MS` after the signal whatever it still waits on.
 */
import { sql } from 'kysely';
import { Registry, collectDefaultMetrics } from 'prom-client';
import { requireApiAccess, requireScopes, type Config, type ScopeSettings } from '../config.js';
import { ConfigError, errorMessage } from '../errors.js';
import type { Logger } from '../logger.js';
import { settlesWithin } from '../deadline.js';
import { armHardStop, exitEvenIfSocketsLinger, listenForShutdown } from '../shutdown-signals.js';
import { createRedisConnection, describeRedisUrl, waitForRedis } from './connection.js';
import { createSyncQueue, reconcileSchedulers, startSchedulerService } from './scheduler.js';
import { wantedSchedulers } from './scheduler-plan.js';
import { API_PROBE_TIMEOUT_MS, requirePostgres, waitForWarehouse } from './worker-process.js';
import { openWhenPostgresAnswers } from '../warehouse/wait-for-postgres.js';
import { createWarehouse, type Warehouse } from '../warehouse/database.js';
import { startHeartbeat, type Heartbeat } from './heartbeat.js';
import { startHealthServer, type HealthCheck, type HealthServer } from './health-server.js';
import { assertMigrated } from '../warehouse/migrator.js';
import { discoverScopes } from '../sync/discovery.js';
import { openSyncRuntime, type SyncRuntime } from '../sync/runtime.js';

export interface SchedulerProcessOptions {
  readonly once: boolean;
  /** Full reconcile period, in seconds. */
  readonly reconcileSeconds: number;
  /** Where /livez, /readyz, /healthz and /metrics listen (port: scheduler.metricsPort); default 0.0.0.0. */
  readonly metricsHost?: string;
}

const STARTUP_REDIS_TIMEOUT_MS = 60_000;
/** `--once` is run by hand: a wrong REDIS_URL should be said soon. */
const ONCE_REDIS_TIMEOUT_MS = 10_000;
const CLOSE_STEP_MS = 1_000;
const HARD_STOP_MS = 8_000;

export async function runSchedulerProcess(config: Config, logger: Logger, options: SchedulerProcessOptions): Promise<number> {
  const configured = requireScopes(config);
  const discovering = configured.some((s) => s.discoverProjects);
  if (discovering) {
    requireApiAccess(config);
    requirePostgres(config, 'scheduler (with project discovery)');
  }
  const plan = (scopes: readonly ScopeSettings[]) =>
    wantedSchedulers(scopes, config.scheduler.pollIntervalSeconds, config.reconcile, config.scheduler.pushedPollIntervalSeconds);
  const connection = createRedisConnection({
    url: config.redis.url,
    name: 'scheduler',
    logger,
    connectTimeoutMs: config.redis.connectTimeoutMs,
    socketTimeoutMs: config.redis.socketTimeoutMs,
  });
  const queue = createSyncQueue(connection, config.redis.prefix);
  const stop = listenForShutdown();
  let hardStop: NodeJS.Timeout | undefined;
  void stop.first.then(() => {
    hardStop = armHardStop(HARD_STOP_MS, () => logger.error(`the scheduler did not stop within ${HARD_STOP_MS} ms: exiting anyway`));
  });
  let runtime: SyncRuntime | undefined;
  let health: HealthServer | undefined;
  let heartbeat: Heartbeat | undefined;
  let ownWarehouse: Warehouse | undefined;
  try {
    if (!options.once) health = await serveProbes(config, options.metricsHost ?? '0.0.0.0', connection, discovering, () => runtime);
    const timeoutMs = options.once ? ONCE_REDIS_TIMEOUT_MS : STARTUP_REDIS_TIMEOUT_MS;
    if ((await waitForRedis(connection, config.redis.url, timeoutMs, stop.first)) === 'stopped') return 0;
    let scopes = configured;
    let discover: (() => Promise<readonly ScopeSettings[]>) | undefined;
    if (discovering) {
      const opened = await openWhenPostgresAnswers(() => openSyncRuntime(config, logger, { signal: stop.signal }), {
        ...waitForWarehouse(config, logger),
        stop: stop.first,
      });
      if (opened === 'stopped') return 0;
      runtime = opened;
      discover = async () =>
        (
          await discoverScopes(
            { clients: opened.clients, db: opened.warehouse.db, logger, now: () => new Date(), signal: stop.signal },
            configured,
          )
        ).scopes;
      scopes = await discover();
    }
    if (options.once) {
      const result = await reconcileSchedulers(queue, plan(scopes));
      process.stdout.write(
        `job schedulers for ${scopes.length} scopes every ${config.scheduler.pollIntervalSeconds} s${reconcileNote(config)}: ` +
          `${result.added} added, ${result.updated} updated, ${result.removed} removed, ${result.unchanged} unchanged\n`,
      );
      return 0;
    }
    heartbeat = startSchedulerHeartbeat(
      config,
      logger,
      () => runtime,
      (opened) => (ownWarehouse = opened),
    );
    const service = startSchedulerService({
      queue,
      connection,
      wanted: plan(scopes),
      logger,
      checkEveryMs: Math.min(config.scheduler.pollIntervalSeconds, 30) * 1000,
      reconcileEveryMs: options.reconcileSeconds * 1000,
    });
    const rediscovery = discover ? keepDiscovering(discover, (found) => service.setWanted(plan(found)), config, logger) : undefined;
    logger.info(
      {
        scopes: scopes.length,
        reconcileEverySeconds: config.reconcile.intervalSeconds,
        everySeconds: config.scheduler.pollIntervalSeconds,
        redis: describeRedisUrl(config.redis.url),
        prefix: config.redis.prefix,
        ...(discover ? { discoveryEverySeconds: config.scheduler.discoveryIntervalSeconds } : {}),
        ...(health ? { probes: health.url } : {}),
      },
      `scheduler keeping ${scopes.length} scopes polled every ${config.scheduler.pollIntervalSeconds} s${reconcileNote(config)}` +
        (discover ? `; projects discovered every ${config.scheduler.discoveryIntervalSeconds} s` : '') +
        (health ? `; probes at ${health.url}/livez and /readyz` : ''),
    );
    const signal = await stop.first;
    logger.info(`${signal}: scheduler stopping (the job schedulers stay in Redis; workers keep polling)`);
    if (rediscovery) clearInterval(rediscovery);
    await settlesWithin(service.close(), 2 * CLOSE_STEP_MS);
    return 0;
  } finally {
    stop.dispose();
    if (health) await settlesWithin(health.close(), CLOSE_STEP_MS);
    await settlesWithin(queue.close(), CLOSE_STEP_MS);
    if (heartbeat) await settlesWithin(heartbeat.stop(), CLOSE_STEP_MS);
    if (runtime) await settlesWithin(runtime.close(), 2 * CLOSE_STEP_MS);
    if (ownWarehouse) await settlesWithin(ownWarehouse.close(), CLOSE_STEP_MS);
    if (!(await settlesWithin(connection.quit(), CLOSE_STEP_MS))) connection.disconnect();
    clearTimeout(hardStop);
    if (!options.once) exitEvenIfSocketsLinger();
  }
}

/**
 * The running scheduler's heartbeat, when it has a warehouse: the one it discovers projects with,
 * or else a one-connection pool of its own on DATABASE_URL, opened at the first beat that reaches
 * PostgreSQL (the scheduler never waits for it). Without DATABASE_URL, none.
 */
function startSchedulerHeartbeat(
  config: Config,
  logger: Logger,
  runtime: () => SyncRuntime | undefined,
  opened: (warehouse: Warehouse) => void,
): Heartbeat | undefined {
  const url = config.database.url;
  if (!url) return undefined;
  let own: Warehouse | undefined;
  const db = async () => {
    const shared = runtime()?.warehouse.db;
    if (shared) return shared;
    if (!own) {
      own = await createWarehouse({
        url,
        schema: config.database.schema,
        dataDir: config.database.dataDir,
        poolSize: 1,
        deadlines: { connectTimeoutMs: config.database.connectTimeoutMs, queryTimeoutMs: config.database.queryTimeoutMs },
      });
      opened(own);
    }
    return own.db;
  };
  return startHeartbeat({ kind: 'scheduler', db, logger });
}

/** The scheduler's probes: Redis always; the warehouse and the API when it discovers projects. */
async function serveProbes(
  config: Config,
  host: string,
  connection: { ping(): Promise<string> },
  discovering: boolean,
  runtime: () => SyncRuntime | undefined,
): Promise<HealthServer> {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const started = () => {
    const opened = runtime();
    if (!opened) throw new Error('starting: waiting for Redis and the warehouse');
    return opened;
  };
  const checks: Record<string, HealthCheck> = { redis: async () => void (await connection.ping()) };
  if (discovering) {
    checks.postgres = async () => void (await sql`select 1`.execute(started().warehouse.db));
    checks.migrations = () => assertMigrated(started().warehouse);
    checks.api = () => started().clients.probe(API_PROBE_TIMEOUT_MS);
  }
  const port = config.scheduler.metricsPort;
  return startHealthServer({ port, host, registry, checks }).catch((error: unknown) => {
    throw new ConfigError(
      `cannot serve the scheduler's /readyz and /metrics on ${host}:${port}: ${errorMessage(error)}; set SCHEDULER_METRICS_PORT to a free port`,
    );
  });
}

/** Lists the organizations' projects again every discovery interval and hands the scopes on; a failed round is logged and tried next time. */
function keepDiscovering(
  discover: () => Promise<readonly ScopeSettings[]>,
  apply: (scopes: readonly ScopeSettings[]) => Promise<void>,
  config: Config,
  logger: Logger,
): NodeJS.Timeout {
  let running = false;
  return setInterval(() => {
    if (running) return;
    running = true;
    discover()
      .then(apply)
      .catch((error: unknown) =>
        logger.warn(
          { err: { message: errorMessage(error) } },
          `project discovery failed (tried again next interval): ${errorMessage(error)}`,
        ),
      )
      .finally(() => (running = false));
  }, config.scheduler.discoveryIntervalSeconds * 1000);
}

function reconcileNote(config: Config): string {
  return config.reconcile.intervalSeconds > 0 ? `, reconciled every ${config.reconcile.intervalSeconds} s` : ' (scheduled reconcile off)';
}
