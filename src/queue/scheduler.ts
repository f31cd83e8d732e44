/**
 * Keeps one BullMQ job scheduler per configured scope, and none for scopes no longer configured.
 *
 * BullMQ itself fires the polls (workers add each next iteration as they take a job), so this
 * process only reconciles: at start, whenever its Redis connection comes back (a Redis restarted
 * without persistence has lost every scheduler), when the number of schedulers in Redis changes
 * behind its back, and on a slow timer. Reconciling is idempotent, so two schedulers with the same
 * configuration can run at once.
 */
import { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { errorMessage } from '../errors.js';
import type { Logger } from '../logger.js';
import { SYNC_QUEUE, type SyncJobData } from './queues.js';
import { planSchedulers, type FoundScheduler, type WantedScheduler } from './scheduler-plan.js';

export type SyncQueue = Queue<SyncJobData, unknown, string>;

export function createSyncQueue(connection: Redis, prefix: string): SyncQueue {
  const queue = new Queue<SyncJobData, unknown, string>(SYNC_QUEUE, { connection, prefix });
  // The connection logs its own outage once (connection.ts); without a listener BullMQ prints
  // every reconnect failure with its stack.
  queue.on('error', () => undefined);
  return queue;
}

export interface ReconcileResult {
  readonly added: number;
  readonly updated: number;
  readonly removed: number;
  readonly unchanged: number;
}

/** Brings Redis in line with `wanted`: upserts what is missing or different, removes what is extra. */
export async function reconcileSchedulers(queue: SyncQueue, wanted: readonly WantedScheduler[]): Promise<ReconcileResult> {
  const found = await listSchedulers(queue);
  const plan = planSchedulers(wanted, found);
  const foundIds = new Set(found.map((s) => s.key));
  // Thousands of schedulers (a fleet discovered at once) go in batches of concurrent commands:
  // one round trip per batch instead of one per scheduler, and never an unbounded burst.
  await inBatches(plan.upsert, SCHEDULER_BATCH, (scheduler) =>
    queue.upsertJobScheduler(
      scheduler.id,
      { every: scheduler.every, offset: scheduler.offset },
      { name: scheduler.name, data: scheduler.data, opts: { ...scheduler.opts } },
    ),
  );
  await inBatches(plan.remove, SCHEDULER_BATCH, (id) => queue.removeJobScheduler(id));
  const added = plan.upsert.filter((s) => !foundIds.has(s.id)).length;
  return { added, updated: plan.upsert.length - added, removed: plan.remove.length, unchanged: plan.unchanged };
}

/** Job schedulers added, updated or removed at once. */
export const SCHEDULER_BATCH = 200;

async function inBatches<T>(items: readonly T[], size: number, each: (item: T) => Promise<unknown>): Promise<void> {
  for (let start = 0; start < items.length; start += size) await Promise.all(items.slice(start, start + size).map(each));
}

async function listSchedulers(queue: SyncQueue): Promise<FoundScheduler[]> {
  const pageSize = 1000;
  const all: FoundScheduler[] = [];
  for (let start = 0; ; start += pageSize) {
    const page = await queue.getJobSchedulers(start, start + pageSize - 1, true);
    all.push(...page);
    if (page.length < pageSize) return all;
  }
}

export interface SchedulerServiceOptions {
  readonly queue: SyncQueue;
  readonly connection: Redis;
  readonly wanted: readonly WantedScheduler[];
  readonly logger: Logger;
  /** How often to compare the number of schedulers in Redis with the last reconcile. */
  readonly checkEveryMs: number;
  /** How often to reconcile in full regardless. */
  readonly reconcileEveryMs: number;
}

export interface SchedulerService {
  /** Settles after the first successful reconcile. */
  readonly firstReconcile: Promise<ReconcileResult>;
  /** Replaces the wanted schedulers (discovery found projects, or lost some) and reconciles. */
  setWanted(wanted: readonly WantedScheduler[]): Promise<void>;
  close(): Promise<void>;
}

export function startSchedulerService(options: SchedulerServiceOptions): SchedulerService {
  const { queue, connection, logger } = options;
  let wanted = options.wanted;
  let closed = false;
  let running: Promise<void> | undefined;
  let again = false;
  let knownCount: number | undefined;
  let resolveFirst!: (result: ReconcileResult) => void;
  const firstReconcile = new Promise<ReconcileResult>((resolve) => (resolveFirst = resolve));

  const reconcile = (reason: string): Promise<void> => {
    if (running) {
      again = true;
      return running;
    }
    running = (async () => {
      do {
        again = false;
        try {
          const result = await reconcileSchedulers(queue, wanted);
          knownCount = await queue.getJobSchedulersCount();
          const changed = result.added + result.updated + result.removed > 0;
          logger[changed ? 'info' : 'debug'](
            { ...result, reason, schedulers: wanted.length },
            `job schedulers reconciled (${reason}): ${result.added} added, ${result.updated} updated, ${result.removed} removed, ${result.unchanged} unchanged`,
          );
          resolveFirst(result);
        } catch (error) {
          if (closed) return;
          logger.warn(
            { err: { message: errorMessage(error) }, reason },
            `could not reconcile job schedulers: ${errorMessage(error)}; trying again shortly`,
          );
          knownCount = undefined;
        }
      } while (again && !closed);
    })().finally(() => (running = undefined));
    return running;
  };

  const check = async () => {
    if (closed || running) return;
    try {
      const count = await queue.getJobSchedulersCount();
      if (knownCount === undefined || count !== knownCount) await reconcile('scheduler count changed');
    } catch (error) {
      logger.debug({ err: { message: errorMessage(error) } }, 'scheduler count check failed');
    }
  };

  let sawReady = connection.status === 'ready';
  const onReady = () => {
    if (sawReady) void reconcile('Redis connection restored');
    sawReady = true;
  };
  connection.on('ready', onReady);
  queue.on('error', (error: Error) => logger.debug({ err: { message: error.message } }, 'queue error'));

  void reconcile('start');
  const checkTimer = setInterval(() => void check(), options.checkEveryMs);
  const fullTimer = setInterval(() => void reconcile('periodic'), options.reconcileEveryMs);

  return {
    firstReconcile,
    setWanted(next) {
      wanted = next;
      return reconcile('scopes changed');
    },
    async close() {
      closed = true;
      clearInterval(checkTimer);
      clearInterval(fullTimer);
      connection.off('ready', onReady);
      await running;
      await queue.close();
    },
  };
}
