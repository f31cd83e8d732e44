/**
 * Each deadline on its own, through a proxy that partitions (drops every byte, closes nothing) and
 * heals (connections opened before stay dead on the client's side): real PostgreSQL, real Redis,
 * the emulator over real HTTP. Every test here hangs, and fails at its own deadline, when the
 * safeguard it names is taken out.
 */
import { randomUUID } from 'node:crypto';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createEventsClient } from '../../src/api/client.js';
import { loadConfig, scopeSettings } from '../../src/config.js';
import { createLogger } from '../../src/logger.js';
import { createRedisConnection } from '../../src/queue/connection.js';
import { createJobProcessor } from '../../src/queue/job-processor.js';
import { POLL_JOB, POLL_JOB_OPTIONS, SYNC_QUEUE, pollJobData } from '../../src/queue/queues.js';
import { createSyncQueue } from '../../src/queue/scheduler.js';
import { createSyncWorker } from '../../src/queue/worker.js';
import { parseScope } from '../../src/scope.js';
import { scopeLockFor } from '../../src/sync/lock.js';
import { createWarehouse, type Warehouse } from '../../src/warehouse/database.js';
import { upsertEvents } from '../../src/warehouse/events.repository.js';
import { migrateToLatest } from '../../src/warehouse/migrator.js';
import { dataExplorer, toValid } from '../fixtures/events.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { startTestEmulator, type RunningEmulator } from '../helpers/emulator.js';
import { expectMirrorEqualsEmulator } from '../helpers/mirror.js';
import { startPartitionProxy, type PartitionProxy } from '../helpers/partition-proxy.js';
import { sleep, waitFor } from '../helpers/queue-processes.js';
import { REDIS_URL } from '../helpers/services.js';
import { daysAgo, startSyncFixture } from '../helpers/sync-fixture.js';

const logger = createLogger({ level: 'silent' });
const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => undefined);
});

/** How long `promise` took to settle, and how. */
async function timed<T>(promise: Promise<T>): Promise<{ ms: number; value?: T; error?: Error }> {
  const started = performance.now();
  try {
    const value = await promise;
    return { ms: performance.now() - started, value };
  } catch (error) {
    return { ms: performance.now() - started, error: error as Error };
  }
}

describe('PostgreSQL through a partition', () => {
  let database: TestDatabase;
  const QUERY_MS = 1_500;

  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(async () => {
    await database?.drop();
  });

  async function warehouseThrough(proxy: PartitionProxy, poolSize = 2): Promise<Warehouse> {
    const warehouse = await createWarehouse({
      url: proxy.via(database.url),
      schema: 'public',
      dataDir: 'unused',
      poolSize,
      deadlines: { connectTimeoutMs: 1_000, queryTimeoutMs: QUERY_MS },
    });
    // Bounded: closing a pool whose sockets are dead must not hold the test up.
    cleanups.push(() => Promise.race([warehouse.close(), sleep(2_000)]));
    return warehouse;
  }

  async function proxyToDatabase(): Promise<PartitionProxy> {
    const url = new URL(database.url);
    const proxy = await startPartitionProxy({ host: url.hostname, port: Number(url.port || 5432) });
    cleanups.push(() => proxy.close());
    return proxy;
  }

  it('a query that hears nothing fails at the query deadline, and the dead connection is never reused', async () => {
    const proxy = await proxyToDatabase();
    const warehouse = await warehouseThrough(proxy);
    await sql`select 1`.execute(warehouse.db);

    proxy.partition();
    const during = await timed(sql`select 1`.execute(warehouse.db));
    expect(during.error?.message).toMatch(/PostgreSQL did not answer a query within 1500 ms \(database\.queryTimeoutMs\)/);
    expect(during.ms).toBeLessThan(QUERY_MS + 1_000);

    proxy.heal();
    // Each query settles within its deadline; once the pooled connections opened before the heal
    // are gone, every query succeeds.
    const outcomes: string[] = [];
    for (let i = 0; i < 12; i += 1) {
      const result = await timed(sql`select 1`.execute(warehouse.db));
      expect(result.ms).toBeLessThan(QUERY_MS + 1_000);
      outcomes.push(result.error ? 'failed' : 'ok');
    }
    expect(outcomes.slice(-8), outcomes.join(' ')).toEqual(Array(8).fill('ok'));
  });

  it('a COPY that hears nothing fails at the query deadline, and the dead connection is never reused', async () => {
    const proxy = await proxyToDatabase();
    const warehouse = await createWarehouse({
      url: proxy.via(database.url),
      schema: 'copy_deadline',
      dataDir: 'unused',
      poolSize: 2,
      deadlines: { connectTimeoutMs: 1_000, queryTimeoutMs: QUERY_MS },
    });
    cleanups.push(() => Promise.race([warehouse.close(), sleep(2_000)]));
    await migrateToLatest(warehouse);
    const scope = 'group:6a00000000000000000000c1';
    const events = Array.from({ length: 50 }, (_, n) => toValid({ ...dataExplorer, id: `copy-deadline-${n}` }));
    // Another session holds one of the page's ids uncommitted, so the page's COPY waits on it: the
    // partition then falls while the COPY is in flight.
    const blocker = new pg.Client({ connectionString: database.url });
    await blocker.connect();
    cleanups.push(() => blocker.end());
    await blocker.query('begin');
    await blocker.query(
      `insert into copy_deadline.events (id, scope, created, event_type_name, payload) values ($1, $2, now(), 'X', '{}')`,
      [events[0]!.id, scope],
    );
    const writing = timed(upsertEvents(warehouse.db, scope, events));
    await waitFor('the COPY to wait on the uncommitted row', async () => {
      const { rows } = await blocker.query<{ n: number }>(
        `select pg_stat_clear_snapshot(), count(*)::int as n from pg_stat_activity where wait_event_type = 'Lock' and query like 'COPY %'`,
      );
      return rows[0]!.n > 0;
    });
    proxy.partition();
    const during = await writing;
    expect(during.error?.message).toMatch(/PostgreSQL did not answer a query within 1500 ms \(database\.queryTimeoutMs\)/);
    expect(during.ms).toBeLessThan(QUERY_MS + 1_000);

    await blocker.query('rollback');
    proxy.heal();
    const outcomes: string[] = [];
    for (let i = 0; i < 6; i += 1) {
      const result = await timed(upsertEvents(warehouse.db, scope, events));
      expect(result.ms).toBeLessThan(QUERY_MS + 1_000);
      outcomes.push(result.error ? 'failed' : 'ok');
    }
    expect(outcomes.slice(-3), outcomes.join(' ')).toEqual(Array(3).fill('ok'));
    const { rows } = await blocker.query<{ n: number }>('select count(*)::int as n from copy_deadline.events');
    expect(rows[0]!.n).toBe(events.length);
  });

  it('connecting to a server that accepts and never answers fails at the connect deadline', async () => {
    const proxy = await proxyToDatabase();
    proxy.partition();
    const opening = await timed(
      createWarehouse({
        url: proxy.via(database.url),
        schema: 'public',
        dataDir: 'unused',
        deadlines: { connectTimeoutMs: 1_000, queryTimeoutMs: QUERY_MS },
      }),
    );
    expect(opening.error?.message).toMatch(/cannot open the warehouse/);
    expect(opening.ms).toBeLessThan(3_000);
  });

  it('the server cancels a statement the client gave up on', async () => {
    const proxy = await proxyToDatabase();
    const warehouse = await warehouseThrough(proxy);
    const marker = `silent-${randomUUID()}`;
    const slow = await timed(sql`select pg_sleep(20), ${marker}::text`.execute(warehouse.db));
    expect(slow.error?.message).toMatch(/did not answer a query within|statement timeout/);
    const direct = new pg.Client({ connectionString: database.url });
    await direct.connect();
    cleanups.push(() => direct.end());
    await waitFor(
      'the abandoned statement to stop on the server',
      async () => {
        const { rows } = await direct.query<{ n: number }>(
          `select count(*)::int as n from pg_stat_activity where query like '%pg_sleep(20)%' and pid <> pg_backend_pid() and state = 'active'`,
        );
        return rows[0]!.n === 0;
      },
      4_000,
      100,
    );
  });

  it('a transaction left open by a client that went silent is ended by the server, freeing its locks', async () => {
    const proxy = await proxyToDatabase();
    const warehouse = await warehouseThrough(proxy);
    const key = Math.floor(Math.random() * 1e9);
    let letGo!: () => void;
    const held = new Promise<void>((resolve) => (letGo = resolve));
    let locked!: () => void;
    const lockTaken = new Promise<void>((resolve) => (locked = resolve));
    const transaction = warehouse.db.transaction().execute(async (trx) => {
      await sql`select pg_advisory_xact_lock(${key})`.execute(trx);
      locked();
      await held;
    });
    transaction.catch(() => undefined);
    cleanups.push(async () => letGo());
    await lockTaken;
    proxy.partition();

    const direct = new pg.Client({ connectionString: database.url });
    await direct.connect();
    cleanups.push(() => direct.end());
    const freed = await timed(
      waitFor(
        'the silent session’s transaction lock to be freed',
        async () => (await direct.query<{ ok: boolean }>('select pg_try_advisory_lock($1) as ok', [key])).rows[0]!.ok,
        2 * QUERY_MS + 4_000,
        100,
      ),
    );
    expect(freed.error).toBeUndefined();
  });

  it('sets the session deadlines and keepalives on every connection', async () => {
    const proxy = await proxyToDatabase();
    const warehouse = await warehouseThrough(proxy);
    const show = async (name: string) => (await sql.raw<Record<string, string>>(`show ${name}`).execute(warehouse.db)).rows[0]![name];
    expect(await show('statement_timeout')).toBe('1500ms');
    expect(await show('idle_in_transaction_session_timeout')).toBe('3s');
    expect(await show('tcp_keepalives_idle')).toBe('30');
    expect(await show('tcp_keepalives_interval')).toBe('10');
    expect(await show('tcp_keepalives_count')).toBe('3');
  });
});

describe('Redis through a partition', () => {
  const url = new URL(REDIS_URL);
  const target = { host: url.hostname, port: Number(url.port || 6379) };

  it('a command waiting on a silent connection is sent again on a new one after the heal', async () => {
    const proxy = await startPartitionProxy(target);
    cleanups.push(() => proxy.close());
    const redis = createRedisConnection({ url: proxy.via(REDIS_URL), name: 'test', logger, socketTimeoutMs: 2_000 });
    cleanups.push(async () => redis.disconnect());
    const key = `em-test:silent:${randomUUID()}`;
    await redis.set(key, 'before');

    proxy.partition();
    const write = timed(redis.set(key, 'after'));
    await sleep(3_000);
    proxy.heal();
    const healedAt = performance.now();
    const result = await write;
    expect(result.error).toBeUndefined();
    expect(performance.now() - healedAt).toBeLessThan(2_000 + 3_000);
    const direct = new Redis(REDIS_URL);
    cleanups.push(async () => direct.disconnect());
    expect(await direct.get(key)).toBe('after');
    await direct.del(key);
  });

  it('a BullMQ worker partitioned from Redis takes jobs again after the heal', async () => {
    const proxy = await startPartitionProxy(target);
    cleanups.push(() => proxy.close());
    const prefix = `em-test-${randomUUID()}`;
    const connection = createRedisConnection({ url: proxy.via(REDIS_URL), name: 'worker', logger, socketTimeoutMs: 11_000 });
    const processed: string[] = [];
    const worker = createSyncWorker({
      connection,
      prefix,
      concurrency: 1,
      logger,
      lockDurationMs: 5_000,
      processor: async (job) => {
        processed.push(String(job.id));
        return { status: 'succeeded', windows: 0, pages: 0, inserted: 0, changed: 0, rejected: 0 };
      },
    });
    void worker.run();
    const direct = new Redis(REDIS_URL, { maxRetriesPerRequest: null });
    const queue = new Queue(SYNC_QUEUE, { connection: direct, prefix });
    cleanups.push(async () => {
      await Promise.race([worker.close(true), sleep(2_000)]);
      connection.disconnect();
      await queue.obliterate({ force: true });
      await queue.close();
      direct.disconnect();
    });
    await queue.add('poll', {}, { jobId: 'before' });
    await waitFor('the job added before the partition', async () => processed.includes('before'), 20_000);

    proxy.partition();
    await sleep(4_000);
    proxy.heal();
    await queue.add('poll', {}, { jobId: 'after' });
    await waitFor('the job added after the heal', async () => processed.includes('after'), 40_000);
    const jobState = await queue.getJobState('after');
    await waitFor('the job recorded as completed', async () => (await queue.getJobState('after')) === 'completed' || undefined, 20_000);
    expect(['active', 'completed']).toContain(jobState);
  }, 90_000);
});

describe('the Events API through a partition', () => {
  let emulator: RunningEmulator;
  beforeAll(async () => {
    emulator = await startTestEmulator({ eventsPerScope: 120, days: 2 });
  });
  afterAll(async () => {
    await emulator?.close();
  });

  it('a request that hears nothing is abandoned and retried, on a connection opened before or during the partition', async () => {
    const proxy = await startPartitionProxy({
      host: '127.0.0.1',
      port: new URL(emulator.baseUrl).port ? Number(new URL(emulator.baseUrl).port) : 80,
    });
    cleanups.push(() => proxy.close());
    const key = emulator.keys[0]!;
    const config = loadConfig({
      env: {
        EVENTS_API_BASE_URL: proxy.via(emulator.baseUrl),
        EVENTS_API_PUBLIC_KEY: key.publicKey,
        EVENTS_API_PRIVATE_KEY: key.privateKey,
      },
      overrides: { api: { requestTimeoutMs: 1_000, baseRetryDelayMs: 50, maxRetryDelayMs: 200, maxAttempts: 20 } },
    });
    const client = createEventsClient(config, { logger });
    cleanups.push(() => client.close());
    const scope = parseScope(emulator.dataset.scopes()[0]!);
    const query = { itemsPerPage: 500, pageNum: 1 };
    const before = await client.listEvents(scope, query);
    expect(before.events.length).toBeGreaterThan(0);

    proxy.partition();
    const during = timed(client.listEvents(scope, query));
    await sleep(3_500);
    expect(proxy.counts().dead).toBeGreaterThanOrEqual(2);
    proxy.heal();
    const result = await during;
    expect(result.error).toBeUndefined();
    expect(result.value?.events.map((e) => e.id)).toEqual(before.events.map((e) => e.id));
  });
});

describe('a job past its deadline', () => {
  const GROUP = '6a0000000000000000000091';

  it('is interrupted, frees its scope lock and its worker slot, and is retried', async () => {
    const fixture = await startSyncFixture(
      { seed: 91, orgs: ['5f0000000000000000000091'], groups: [GROUP], eventsPerScope: 3_000, days: 2 },
      {
        EVENTS_START_DATE: daysAgo(3).toISOString(),
      },
    );
    cleanups.push(() => fixture.close());
    const proxy = await startPartitionProxy({ host: '127.0.0.1', port: Number(new URL(fixture.emulator.baseUrl).port) });
    cleanups.push(() => proxy.close());
    const overrides = { api: { baseUrl: proxy.via(fixture.emulator.baseUrl), requestTimeoutMs: 2_000, itemsPerPage: 500 } };
    const runtime = await fixture.runtime(overrides);
    const connection = new Redis(REDIS_URL, { maxRetriesPerRequest: null });
    const prefix = `em-test-${randomUUID()}`;
    const queue = createSyncQueue(connection, prefix);
    const JOB_TIMEOUT_MS = 3_000;
    const worker = createSyncWorker({
      connection,
      prefix,
      concurrency: 1,
      logger,
      processor: createJobProcessor({ ctx: runtime.ctx, logger, jobTimeoutMs: JOB_TIMEOUT_MS }),
    });
    void worker.run();
    cleanups.push(async () => {
      await Promise.race([worker.close(true), sleep(2_000)]);
      await queue.obliterate({ force: true });
      await queue.close();
      connection.disconnect();
    });

    // A trickle: every read arrives well within the request timeout, and a 500-event page takes minutes.
    proxy.throttle(2_000);
    const settings = scopeSettings(fixture.config(overrides), parseScope(`group:${GROUP}`));
    const started = performance.now();
    await queue.add(POLL_JOB, pollJobData(settings), { ...POLL_JOB_OPTIONS, backoff: { type: 'fixed', delay: 4_000 }, jobId: 'slow' });
    await waitFor('the first attempt to fail', async () => ((await queue.getJob('slow'))?.attemptsMade ?? 0) >= 1 || undefined, 30_000);
    const failedAfterMs = performance.now() - started;
    const job = await queue.getJob('slow');
    expect(job?.failedReason).toMatch(/ran past its deadline of 3000 ms \(worker\.jobTimeoutMs\)/);
    expect(failedAfterMs).toBeLessThan(JOB_TIMEOUT_MS + 6_000);
    expect(await queue.getJobState('slow')).toBe('delayed');

    // While the retry waits its backoff, the scope is free for anyone, and the run is on record as failed.
    const release = await scopeLockFor(runtime.warehouse).tryAcquire(settings.scope.key);
    expect(release).toBeDefined();
    await release?.();
    const runs = await runtime.warehouse.db.selectFrom('sync_runs').select(['status', 'error']).where('job_id', '=', 'slow').execute();
    expect(runs.map((r) => r.status)).toContain('failed');

    proxy.throttle(undefined);
    await waitFor('the retry to complete', async () => (await queue.getJobState('slow')) === 'completed' || undefined, 60_000);
    await expectMirrorEqualsEmulator(runtime.warehouse.db, fixture.emulator.dataset, [settings.scope.key]);
  }, 120_000);

  it('an interrupted run lets go of its scope lock at once, before it has unwound', async () => {
    const database = await createTestDatabase();
    cleanups.push(() => database.drop());
    const open = () => createWarehouse({ url: database.url, schema: 'public', dataDir: 'unused', poolSize: 2 });
    const [holder, other] = [await open(), await open()];
    cleanups.push(
      () => holder.close(),
      () => other.close(),
    );
    const interrupt = new AbortController();
    const release = await scopeLockFor(holder).tryAcquire('group:stuck', interrupt.signal);
    expect(release).toBeDefined();
    expect(await scopeLockFor(other).tryAcquire('group:stuck')).toBeUndefined();
    interrupt.abort(new Error('job deadline'));
    const freed = await waitFor('the lock to be freed', () => scopeLockFor(other).tryAcquire('group:stuck'), 5_000);
    await freed();
    await release?.();
  });
});
