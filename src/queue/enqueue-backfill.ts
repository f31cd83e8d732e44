/**
 * `backfill --enqueue`: one BullMQ job per backfill window, for the workers to run. Job ids are
 * derived from the scope and the window, and BullMQ ignores an add whose id already exists, so
 * enqueueing the same range twice adds nothing the second time for windows queued, running or
 * done. A window whose job failed is enqueued again (its failed job replaced), and with `force`
 * so is a done one, whose new job re-reads it even though a backfill finished it.
 */
import { scopeSettings, type Config, type ScopeSettings } from '../config.js';
import type { Logger } from '../logger.js';
import { formatTimestamp } from '../time.js';
import type { Scope } from '../scope.js';
import { planBackfill } from '../sync/planner.js';
import { createRedisConnection, waitForRedis } from './connection.js';
import { BACKFILL_JOB, BACKFILL_JOB_OPTIONS, backfillJobData, backfillJobId } from './queues.js';
import { createSyncQueue, type SyncQueue } from './scheduler.js';

export interface EnqueueResult {
  readonly windows: number;
  /** Windows enqueued now: no job yet, a failed one replaced, or (with force) a done one replaced. */
  readonly added: number;
  /** Of those, windows whose previous job had failed. */
  readonly retried: number;
}

export async function enqueueBackfill(
  queue: SyncQueue,
  settings: ScopeSettings,
  from: Date,
  to: Date,
  windowSeconds: number,
  options: { readonly force?: boolean } = {},
): Promise<EnqueueResult> {
  const force = options.force === true;
  const windows = planBackfill(from, to, windowSeconds);
  const jobs = windows.map((window, index) => ({
    name: BACKFILL_JOB,
    data: backfillJobData(settings, window, force),
    opts: { ...BACKFILL_JOB_OPTIONS, priority: backfillPriority(index), jobId: backfillJobId(settings.scope, window) },
  }));
  let added = 0;
  let retried = 0;
  const batch = 500;
  for (let i = 0; i < jobs.length; i += batch) {
    const slice = jobs.slice(i, i + batch);
    const states = await Promise.all(slice.map((job) => queue.getJobState(job.opts.jobId)));
    const replaced = slice.filter((_, n) => states[n] === 'failed' || (force && states[n] === 'completed'));
    await Promise.all(replaced.map((job) => queue.remove(job.opts.jobId)));
    added += states.filter((state) => state === 'unknown').length + replaced.length;
    retried += states.filter((state) => state === 'failed').length;
    await queue.addBulk(slice);
  }
  return { windows: windows.length, added, retried };
}

/** BullMQ's largest priority. */
const LOWEST_PRIORITY = 2_097_152;

/**
 * The n-th window of a range (oldest first) waits behind every range's earlier windows: backfills
 * of many scopes, enqueued one after another, interleave (each scope's first window, then each
 * one's second…), so the workers' slots run different scopes instead of queueing on one scope's
 * lock. Same priority: first enqueued, first run.
 */
export function backfillPriority(index: number): number {
  return Math.min(BACKFILL_JOB_OPTIONS.priority + index, LOWEST_PRIORITY);
}

/** The `backfill --enqueue` command body: needs Redis only (no API key, no database). */
export async function runEnqueueBackfill(
  config: Config,
  logger: Logger,
  scope: Scope,
  from: Date,
  to: Date,
  options: { readonly force?: boolean } = {},
): Promise<number> {
  const connection = createRedisConnection({
    url: config.redis.url,
    name: 'backfill-enqueue',
    logger,
    connectTimeoutMs: config.redis.connectTimeoutMs,
    socketTimeoutMs: config.redis.socketTimeoutMs,
  });
  const queue = createSyncQueue(connection, config.redis.prefix);
  try {
    await waitForRedis(connection, config.redis.url, 10_000);
    const result = await enqueueBackfill(queue, scopeSettings(config, scope), from, to, config.sync.windowSeconds, options);
    process.stdout.write(
      `enqueued backfill of ${scope.key} ${formatTimestamp(from)}..${formatTimestamp(to)}: ` +
        `${result.added} of ${result.windows} windows added (${result.retried} of them failed before; ` +
        `${result.windows - result.added} already queued or done${options.force ? '' : ': --force re-reads done ones'})\n`,
    );
    return 0;
  } finally {
    await queue.close().catch(() => undefined);
    await connection.quit().catch(() => connection.disconnect());
  }
}
