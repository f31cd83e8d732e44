import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { enqueueBackfill } from '../../src/queue/enqueue-backfill.js';
import { BACKFILL_JOB, POLL_JOB, schedulerIdFor } from '../../src/queue/queues.js';
import { wantedSchedulers } from '../../src/queue/scheduler-plan.js';
import { createSyncQueue, reconcileSchedulers, type SyncQueue } from '../../src/queue/scheduler.js';
import { parseScope } from '../../src/scope.js';

import { REDIS_URL } from '../helpers/services.js';

function scopes(keys: string[], pollIntervalSeconds = 60) {
  const config = loadConfig({ env: { EVENTS_SCOPES: keys.join(','), EVENTS_POLL_INTERVAL_SECONDS: String(pollIntervalSeconds) } });
  return wantedSchedulers(config.scopes, config.scheduler.pollIntervalSeconds);
}

describe('job schedulers in Redis', () => {
  let connection: Redis;
  let queue: SyncQueue;

  beforeAll(() => {
    connection = new Redis(REDIS_URL, { maxRetriesPerRequest: null });
  });
  afterAll(async () => {
    await connection.quit();
  });
  afterEach(async () => {
    await queue.obliterate({ force: true });
    await queue.close();
  });
  const freshQueue = () => (queue = createSyncQueue(connection, `em-test-${randomUUID()}`));

  it('keeps exactly one scheduler and one next poll per scope, even when two schedulers reconcile at once', async () => {
    freshQueue();
    const wanted = scopes(['group:a1', 'group:a2', 'org:o1', 'group:a3', 'group:a4']);
    const [first, second] = await Promise.all([reconcileSchedulers(queue, wanted), reconcileSchedulers(queue, wanted)]);
    expect(first.added + first.updated).toBe(5);
    expect(second.added + second.updated + second.unchanged).toBe(5);

    const again = await reconcileSchedulers(queue, wanted);
    expect(again).toEqual({ added: 0, updated: 0, removed: 0, unchanged: 5 });

    const schedulers = await queue.getJobSchedulers();
    expect(schedulers.map((s) => s.key).sort()).toEqual(wanted.map((w) => w.id).sort());
    for (const s of schedulers) {
      expect(s.every).toBe(60_000);
      expect(s.name).toBe(POLL_JOB);
    }
    const delayed = await queue.getJobs(['delayed', 'wait', 'prioritized']);
    expect(delayed).toHaveLength(5);
    expect(new Set(delayed.map((j) => (j.data as { scope: string }).scope))).toEqual(
      new Set(['group:a1', 'group:a2', 'org:o1', 'group:a3', 'group:a4']),
    );
    // Spread: the first polls do not all fall on the same second.
    expect(new Set(delayed.map((j) => Math.floor((j.timestamp + j.delay) / 1000))).size).toBeGreaterThan(1);
  });

  it('removes the scheduler and the next poll of a scope no longer configured, and updates a changed interval', async () => {
    freshQueue();
    await reconcileSchedulers(queue, scopes(['group:b1', 'group:b2', 'group:b3']));
    const foreign = await queue.upsertJobScheduler('nightly-report', { every: 3_600_000 }, { name: 'report', data: {} as never });
    expect(foreign).toBeDefined();

    const result = await reconcileSchedulers(queue, scopes(['group:b1', 'group:b3', 'group:b4'], 30));
    expect(result).toEqual({ added: 1, updated: 2, removed: 1, unchanged: 0 });
    const schedulers = await queue.getJobSchedulers();
    expect(schedulers.map((s) => s.key).sort()).toEqual(['nightly-report', 'poll.group.b1', 'poll.group.b3', 'poll.group.b4']);
    expect(schedulers.filter((s) => s.key.startsWith('poll.')).every((s) => s.every === 30_000)).toBe(true);
    const pending = await queue.getJobs(['delayed', 'wait', 'prioritized']);
    const pendingScopes = pending
      .filter((j) => j.name === POLL_JOB)
      .map((j) => (j.data as { scope: string }).scope)
      .sort();
    expect(pendingScopes).toEqual(['group:b1', 'group:b3', 'group:b4']);
    expect(await queue.getJobScheduler(schedulerIdFor(parseScope('group:b2')))).toBeUndefined();
  });

  it('enqueues one job per backfill window, and a repeated enqueue adds nothing', async () => {
    freshQueue();
    const settings = loadConfig({ env: { EVENTS_SCOPES: 'group:c1' } }).scopes[0]!;
    const from = new Date('2026-10-01T00:00:00Z');
    const to = new Date('2026-10-02T03:00:00Z');
    const first = await enqueueBackfill(queue, settings, from, to, 6 * 3600);
    expect(first).toEqual({ windows: 5, added: 5, retried: 0 });
    const second = await enqueueBackfill(queue, settings, from, to, 6 * 3600);
    expect(second).toEqual({ windows: 5, added: 0, retried: 0 });
    const jobs = await queue.getJobs(['prioritized', 'wait', 'delayed']);
    expect(jobs).toHaveLength(5);
    expect(jobs.every((j) => j.name === BACKFILL_JOB)).toBe(true);
    expect(jobs.map((j) => j.id).sort()).toContain('backfill.group.c1.20261001T000000Z.20261001T060000Z');
    expect(
      jobs
        .map((j) => (j.data as { maxDate: string }).maxDate)
        .sort()
        .at(-1),
    ).toBe('2026-10-02T03:00:00.000Z');
  });
});
