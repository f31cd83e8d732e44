/** `events-mirror forget`'s work, loaded when the command runs: forget.ts defines its flags. */
import type { Config } from '../config.js';
import type { Logger } from '../logger.js';
import { UsageError } from '../errors.js';
import { parseScope, type Scope } from '../scope.js';
import { scopeLockFor, type ScopeLock } from '../sync/lock.js';
import { openWarehouse } from '../sync/open-warehouse.js';
import { countScopeEvents, forgetScopeRows, type ForgottenRows } from '../warehouse/forget.repository.js';
import { listKnownScopes } from '../warehouse/scopes.repository.js';
import { EXIT_OK, createContext } from './context.js';
import { requireKnownScopes } from './known-scopes.js';

export interface ForgetOptions {
  scope: Scope;
  deleteEvents?: boolean;
}

const REDIS_TIMEOUT_MS = 10_000;

export async function runForget(options: ForgetOptions): Promise<number> {
  const { config, logger } = createContext({ logFd: 2, interactive: true });
  const key = options.scope.key;
  if (config.scopes.some((s) => s.scope.key === key)) {
    throw new UsageError(
      `--scope ${key} is configured (EVENTS_SCOPES or "scopes" in a config file): remove it from the configuration first, or the next sync or scheduler brings it back`,
    );
  }
  const warehouse = await openWarehouse(config, logger);
  let redis: Awaited<ReturnType<typeof openQueue>> | undefined;
  try {
    // A scope forgotten without its events is still known by them: --delete-events can follow.
    if ((await countScopeEvents(warehouse.db, key)) === 0) await requireKnownScopes(warehouse.db, config, [options.scope]);
    const knownScopes = await listKnownScopes(warehouse.db);
    const known = knownScopes.find((k) => k.scope === key);
    // An organization's discovered projects go with it (none is polled once it is not configured);
    // first, so that an interrupted forget leaves the organization known and can be run again.
    const configured = new Set(config.scopes.map((s) => s.scope.key));
    const projects = knownScopes
      .filter((k) => k.origin === 'discovered' && k.discoveredBy === key && !configured.has(k.scope))
      .map((k) => parseScope(k.scope));
    const lock = scopeLockFor(warehouse);
    // Refused before anything is touched when a runner holds any of them.
    for (const scope of [...projects, options.scope]) await withScopeLock(lock, scope.key, () => Promise.resolve());
    // Workers need PostgreSQL: with the embedded warehouse no job of this scope can be queued.
    if (warehouse.kind === 'postgres') redis = await openQueue(config, logger);
    const deleteEvents = options.deleteEvents === true;
    for (const scope of [...projects, options.scope]) {
      await withScopeLock(lock, scope.key, async () => {
        const jobs = redis ? await redis.forget(scope) : undefined;
        const kept = deleteEvents ? 0 : await countScopeEvents(warehouse.db, scope.key);
        const rows = await forgetScopeRows(warehouse.db, scope.key, { deleteEvents });
        const by = scope === options.scope ? '' : ` (discovered by ${key})`;
        process.stdout.write(`${summary(scope.key + by, rows, jobs, kept, deleteEvents)}\n`);
      });
    }
    if (known?.origin === 'discovered' && known.removedAt === null && known.discoveredBy) {
      process.stdout.write(
        `note: ${known.discoveredBy} discovers ${key}: its next listing adds it back unless its excludeProjects leaves it out\n`,
      );
    }
    return EXIT_OK;
  } finally {
    await redis?.close();
    await warehouse.close();
  }
}

/** Runs `work` holding the scope's lock; refuses (exit 2) when a runner holds it. */
async function withScopeLock(lock: ScopeLock, key: string, work: () => Promise<void>): Promise<void> {
  const release = await lock.tryAcquire(key);
  if (!release) {
    throw new UsageError(`${key} is being synced right now: stop its sync or worker (or wait for the poll to end) and run forget again`);
  }
  try {
    await work();
  } finally {
    await release();
  }
}

/** Redis, loaded only here (BullMQ and ioredis take half a second), answering before anything is touched. */
async function openQueue(config: Config, logger: Logger) {
  const [{ createRedisConnection, waitForRedis }, { createSyncQueue }, { forgetScopeJobs }] = await Promise.all([
    import('../queue/connection.js'),
    import('../queue/scheduler.js'),
    import('../queue/forget-jobs.js'),
  ]);
  const connection = createRedisConnection({
    url: config.redis.url,
    name: 'forget',
    logger,
    connectTimeoutMs: config.redis.connectTimeoutMs,
    socketTimeoutMs: config.redis.socketTimeoutMs,
  });
  const queue = createSyncQueue(connection, config.redis.prefix);
  const close = async () => {
    await queue.close().catch(() => undefined);
    await connection.quit().catch(() => connection.disconnect());
  };
  try {
    await waitForRedis(connection, config.redis.url, REDIS_TIMEOUT_MS);
  } catch (error) {
    await close();
    throw error;
  }
  return { forget: (scope: Scope) => forgetScopeJobs(queue, connection, config.redis.prefix, scope), close };
}

function summary(
  key: string,
  rows: ForgottenRows,
  jobs: { schedulers: number; jobs: number } | undefined,
  kept: number,
  deleted: boolean,
): string {
  const n = (count: number, one: string, many = `${one}s`) => `${count.toLocaleString('en-US')} ${count === 1 ? one : many}`;
  const parts = [
    `${rows.syncState > 0 ? 'its checkpoint and state' : 'no checkpoint'}, ${n(rows.syncRuns + rows.reconcileRuns, 'run')}, ${rows.scopes > 0 ? 'its scopes row' : 'no scopes row'}`,
    jobs ? `${n(jobs.schedulers, 'job scheduler')} and ${n(jobs.jobs, 'job')} in Redis` : 'nothing in Redis (embedded warehouse)',
    deleted
      ? `${n(rows.events, 'event')} deleted` +
        (rows.eventsKept > 0 ? ` (${n(rows.eventsKept, 'event')} kept: another scope lists them)` : '') +
        `, ${n(rows.memberships, 'membership')}, ${n(rows.rejectedEvents, 'rejected event')}`
      : `${n(kept, 'event')} kept (delete them with --delete-events)`,
  ];
  return `forgot ${key}: ${parts.join('; ')}`;
}
