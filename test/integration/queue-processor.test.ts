import { randomUUID } from 'node:crypto';
import type { Job } from 'bullmq';
import { sql } from 'kysely';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REDIS_URL } from '../helpers/services.js';
import { scopeSettings } from '../../src/config.js';
import { silentLogger } from '../../src/logger.js';
import { enqueueBackfill } from '../../src/queue/enqueue-backfill.js';
import { createJobProcessor, type JobSummary } from '../../src/queue/job-processor.js';
import { POLL_JOB, POLL_JOB_OPTIONS, pollJobData, type SyncJobData } from '../../src/queue/queues.js';
import { createSyncQueue, type SyncQueue } from '../../src/queue/scheduler.js';
import { createSyncWorker, type SyncWorker } from '../../src/queue/worker.js';
import { parseScope } from '../../src/scope.js';
import type { SyncRuntime } from '../../src/sync/runtime.js';
import { expectMirrorEqualsEmulator } from '../helpers/mirror.js';
import { daysAgo, startSyncFixture, type SyncFixture } from '../helpers/sync-fixture.js';

const ORG = '5f0000000000000000000061';
const GROUPS = ['6a0000000000000000000061', '6a0000000000000000000062'];
const OVERRIDES = { api: { itemsPerPage: 200, maxAttempts: 2 }, sync: { windowSeconds: 6 * 3600, settleSeconds: 1 } };

async function settled(job: Job, deadlineMs = 30_000): Promise<string> {
  const until = Date.now() + deadlineMs;
  for (;;) {
    const state = await job.getState();
    if (state === 'completed' || state === 'failed') return state;
    if (Date.now() > until) throw new Error(`job ${job.id} still ${state} after ${deadlineMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('worker job processor against Redis, PostgreSQL and the emulator', () => {
  let fixture: SyncFixture;
  let runtime: SyncRuntime;
  let connection: Redis;
  let queue: SyncQueue;
  let worker: SyncWorker;
  let prefix: string;

  beforeAll(async () => {
    fixture = await startSyncFixture(
      { seed: 61, orgs: [ORG], groups: GROUPS, eventsPerScope: 1500, days: 2, faults: { malformedRate: 0.01 } },
      { EVENTS_START_DATE: daysAgo(3).toISOString() },
    );
    runtime = await fixture.runtime(OVERRIDES);
    connection = new Redis(REDIS_URL, { maxRetriesPerRequest: null });
    prefix = `em-test-${randomUUID()}`;
    queue = createSyncQueue(connection, prefix);
    worker = createSyncWorker({
      connection,
      prefix,
      concurrency: 3,
      processor: createJobProcessor({ ctx: runtime.ctx, logger: silentLogger(), lockRetryMs: 100 }),
      logger: silentLogger(),
    });
    void worker.run();
  });
  afterAll(async () => {
    await worker?.close();
    await queue?.obliterate({ force: true });
    await queue?.close();
    await connection?.quit();
    await fixture?.close();
  });

  it('runs backfill windows into the warehouse; enqueueing them again adds nothing', async () => {
    const config = fixture.config(OVERRIDES);
    const from = daysAgo(3);
    const to = new Date();
    for (const key of fixture.emulator.dataset.scopes()) {
      const result = await enqueueBackfill(queue, scopeSettings(config, parseScope(key)), from, to, config.sync.windowSeconds);
      expect(result.added).toBe(result.windows);
    }
    const jobs = await queue.getJobs(['prioritized', 'wait', 'active', 'delayed', 'completed']);
    expect(jobs.length).toBeGreaterThanOrEqual(3 * 12);
    for (const job of jobs) expect(await settled(job, 60_000)).toBe('completed');
    await expectMirrorEqualsEmulator(runtime.warehouse.db, fixture.emulator.dataset, fixture.emulator.dataset.scopes());

    const again = await enqueueBackfill(
      queue,
      scopeSettings(config, parseScope(`group:${GROUPS[0]}`)),
      from,
      to,
      config.sync.windowSeconds,
    );
    expect(again.added).toBe(0);

    // With the finished jobs gone from Redis, a re-enqueued window sees its finished run and stops there.
    const oneWindow = jobs.find((j) => j.data && (j.data as { scope: string }).scope === `group:${GROUPS[1]}`)!;
    await oneWindow.remove();
    const readded = await queue.add(oneWindow.name, oneWindow.data, { jobId: oneWindow.id! });
    expect(await settled(readded)).toBe('completed');
    expect(((await queue.getJob(readded.id!))!.returnvalue as JobSummary).status).toBe('already-done');
  }, 120_000);

  it('completes a poll; a poll of a scope already being synced completes as skipped', async () => {
    const config = fixture.config(OVERRIDES);
    const settings = scopeSettings(config, parseScope(`org:${ORG}`));
    const polled = await queue.add(POLL_JOB, pollJobData(settings), { ...POLL_JOB_OPTIONS });
    expect(await settled(polled)).toBe('completed');
    expect(((await queue.getJob(polled.id!))!.returnvalue as JobSummary).status).toBe('succeeded');

    const release = await runtime.ctx.lock.tryAcquire(settings.scope.key);
    expect(release).toBeDefined();
    try {
      const overlapping = await queue.add(POLL_JOB, pollJobData(settings), { ...POLL_JOB_OPTIONS });
      expect(await settled(overlapping)).toBe('completed');
      expect(((await queue.getJob(overlapping.id!))!.returnvalue as JobSummary).status).toBe('skipped');
    } finally {
      await release!();
    }
  });

  it('fails a permanent error at once, and retries a transient one with backoff', async () => {
    const config = fixture.config(OVERRIDES);
    const unknown = scopeSettings(config, parseScope('group:6a00000000000000000000ff'));
    const notFound = await queue.add(POLL_JOB, pollJobData(unknown), { ...POLL_JOB_OPTIONS });
    expect(await settled(notFound)).toBe('failed');
    const failed = (await queue.getJob(notFound.id!))!;
    expect(failed.attemptsMade).toBe(1);
    expect(failed.failedReason).toContain('group:6a00000000000000000000ff');

    fixture.emulator.setFaults({ rate5xx: 1 });
    try {
      const settings = scopeSettings(config, parseScope(`group:${GROUPS[0]}`));
      const flaky = await queue.add(POLL_JOB, pollJobData(settings), {
        ...POLL_JOB_OPTIONS,
        attempts: 2,
        backoff: { type: 'fixed', delay: 50 },
      });
      expect(await settled(flaky)).toBe('failed');
      expect((await queue.getJob(flaky.id!))!.attemptsMade).toBe(2);
    } finally {
      fixture.emulator.setFaults({ rate5xx: 0 });
    }

    const malformed = await queue.add(POLL_JOB, { scope: 'cluster:x' } as unknown as SyncJobData, { ...POLL_JOB_OPTIONS });
    expect(await settled(malformed)).toBe('failed');
    const refused = (await queue.getJob(malformed.id!))!;
    expect(refused.attemptsMade).toBe(1);
    expect(refused.failedReason).toContain('malformed payload');
  });

  /** A worker with a single slot on a queue of its own, for `work`; closed and emptied after. */
  async function withOneSlot(work: (queue: SyncQueue) => Promise<void>): Promise<void> {
    const oneSlotPrefix = `em-test-${randomUUID()}`;
    const oneSlotQueue = createSyncQueue(connection, oneSlotPrefix);
    const oneSlot = createSyncWorker({
      connection,
      prefix: oneSlotPrefix,
      concurrency: 1,
      processor: createJobProcessor({ ctx: runtime.ctx, logger: silentLogger(), lockRetryMs: 100 }),
      logger: silentLogger(),
    });
    try {
      void oneSlot.run();
      await work(oneSlotQueue);
    } finally {
      await oneSlot.close();
      await oneSlotQueue.obliterate({ force: true });
      await oneSlotQueue.close();
    }
  }

  const scopeOfJob = (job: Job) => (job.data as { scope: string }).scope;

  it("puts a busy scope's backfill window back in the delayed set, so its only slot runs other scopes meanwhile", async () => {
    const config = fixture.config(OVERRIDES);
    const [busy, free] = GROUPS.map((g) => scopeSettings(config, parseScope(`group:${g}`)));
    const release = await runtime.ctx.lock.tryAcquire(busy!.scope.key);
    expect(release).toBeDefined();
    let released = false;
    try {
      await withOneSlot(async (oneSlotQueue) => {
        const from = daysAgo(1);
        const to = new Date();
        // The busy scope's windows first, as `backfill --enqueue` adds them, then the other scope's.
        await enqueueBackfill(oneSlotQueue, busy!, from, to, config.sync.windowSeconds, { force: true });
        await enqueueBackfill(oneSlotQueue, free!, from, to, config.sync.windowSeconds, { force: true });
        const jobs = await oneSlotQueue.getJobs(['wait', 'active', 'delayed', 'prioritized']);
        const ofScope = (settings: typeof busy) => jobs.filter((job) => scopeOfJob(job) === settings!.scope.key);
        for (const job of ofScope(free)) expect(await settled(job)).toBe('completed');
        // Every window of the free scope ran while the busy scope's lock was still held.
        for (const job of ofScope(busy)) expect(await job.getState()).not.toBe('completed');
        await release!();
        released = true;
        for (const job of ofScope(busy)) expect(await settled(job)).toBe('completed');
        // Put back, not failed: no attempt spent but the one that succeeded.
        for (const job of ofScope(busy)) expect((await oneSlotQueue.getJob(job.id!))!.attemptsMade).toBe(1);
      });
    } finally {
      if (!released) await release!();
    }
  }, 60_000);

  it("interleaves the windows of backfills enqueued one after another: each scope's first window, then each one's second", async () => {
    const config = fixture.config(OVERRIDES);
    const scopes = GROUPS.map((g) => scopeSettings(config, parseScope(`group:${g}`)));
    const earlier =
      (
        await runtime.warehouse.db
          .selectFrom('sync_runs')
          .select(sql<number>`max(id)`.as('id'))
          .executeTakeFirst()
      )?.id ?? 0;
    await withOneSlot(async (oneSlotQueue) => {
      for (const scope of scopes)
        await enqueueBackfill(oneSlotQueue, scope, daysAgo(1), new Date(), config.sync.windowSeconds, { force: true });
      const jobs = await oneSlotQueue.getJobs(['wait', 'active', 'delayed', 'prioritized']);
      for (const job of jobs) expect(await settled(job)).toBe('completed');
      const runs = await runtime.warehouse.db
        .selectFrom('sync_runs')
        .select(['scope', 'window_start'])
        .where('mode', '=', 'backfill')
        .where('id', '>', earlier)
        .orderBy('id')
        .execute();
      expect(runs).toHaveLength(jobs.length);
      // One slot, so the runs follow the queue's order: the scopes alternate, each oldest window first.
      const keys = scopes.map((scope) => scope.scope.key);
      expect(runs.map((run) => run.scope)).toEqual(runs.map((_, n) => keys[n % keys.length]));
      for (const key of keys) {
        const starts = runs.filter((run) => run.scope === key).map((run) => new Date(run.window_start).getTime());
        expect(starts).toEqual([...starts].sort((a, b) => a - b));
      }
    });
  }, 60_000);
});
