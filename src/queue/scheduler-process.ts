/**
 * The `scheduler` process: reconciles one job scheduler per configured scope, then keeps them so
 * (see scheduler.ts) until SIGTERM or SIGINT. With `once`, reconciles and exits. It needs Redis and
 * the scope list only: no API key, no database.
 *
 * Stopping is bounded even while Redis is silent: each close is given up on after
 * `CLOSE_STEP_MS`, and the process exits `HARD_STOP_MS` after the signal whatever it still waits on.
 */
import { requireScopes, type Config } from '../config.js';
import type { Logger } from '../logger.js';
import { settlesWithin } from '../deadline.js';
import { armHardStop, exitEvenIfSocketsLinger, listenForShutdown } from '../shutdown-signals.js';
import { createRedisConnection, describeRedisUrl, waitForRedis } from './connection.js';
import { createSyncQueue, reconcileSchedulers, startSchedulerService } from './scheduler.js';
import { wantedSchedulers } from './scheduler-plan.js';

export interface SchedulerProcessOptions {
  readonly once: boolean;
  /** Full reconcile period, in seconds. */
  readonly reconcileSeconds: number;
}

const STARTUP_REDIS_TIMEOUT_MS = 60_000;
/** `--once` is run by hand: a wrong REDIS_URL should be said soon. */
const ONCE_REDIS_TIMEOUT_MS = 10_000;
const CLOSE_STEP_MS = 1_000;
const HARD_STOP_MS = 8_000;

export async function runSchedulerProcess(config: Config, logger: Logger, options: SchedulerProcessOptions): Promise<number> {
  const scopes = requireScopes(config);
  const wanted = wantedSchedulers(scopes, config.scheduler.pollIntervalSeconds, config.reconcile);
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
  try {
    const timeoutMs = options.once ? ONCE_REDIS_TIMEOUT_MS : STARTUP_REDIS_TIMEOUT_MS;
    if ((await waitForRedis(connection, config.redis.url, timeoutMs, stop.first)) === 'stopped') return 0;
    if (options.once) {
      const result = await reconcileSchedulers(queue, wanted);
      process.stdout.write(
        `job schedulers for ${scopes.length} scopes every ${config.scheduler.pollIntervalSeconds} s${reconcileNote(config)}: ` +
          `${result.added} added, ${result.updated} updated, ${result.removed} removed, ${result.unchanged} unchanged\n`,
      );
      return 0;
    }
    const service = startSchedulerService({
      queue,
      connection,
      wanted,
      logger,
      checkEveryMs: Math.min(config.scheduler.pollIntervalSeconds, 30) * 1000,
      reconcileEveryMs: options.reconcileSeconds * 1000,
    });
    logger.info(
      {
        scopes: scopes.length,
        reconcileEverySeconds: config.reconcile.intervalSeconds,
        everySeconds: config.scheduler.pollIntervalSeconds,
        redis: describeRedisUrl(config.redis.url),
        prefix: config.redis.prefix,
      },
      `scheduler keeping ${scopes.length} scopes polled every ${config.scheduler.pollIntervalSeconds} s${reconcileNote(config)}`,
    );
    const signal = await stop.first;
    logger.info(`${signal}: scheduler stopping (the job schedulers stay in Redis; workers keep polling)`);
    await settlesWithin(service.close(), 2 * CLOSE_STEP_MS);
    return 0;
  } finally {
    stop.dispose();
    await settlesWithin(queue.close(), CLOSE_STEP_MS);
    if (!(await settlesWithin(connection.quit(), CLOSE_STEP_MS))) connection.disconnect();
    clearTimeout(hardStop);
    if (!options.once) exitEvenIfSocketsLinger();
  }
}

function reconcileNote(config: Config): string {
  return config.reconcile.intervalSeconds > 0 ? `, reconciled every ${config.reconcile.intervalSeconds} s` : ' (scheduled reconcile off)';
}
