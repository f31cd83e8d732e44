import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REDIS_URL } from '../helpers/services.js';
import { silentLogger } from '../../src/logger.js';
import { createJobProcessor } from '../../src/queue/job-processor.js';
import { createSyncQueue, type SyncQueue } from '../../src/queue/scheduler.js';
import { createSyncWorker, type SyncWorker } from '../../src/queue/worker.js';
import { runCli } from '../helpers/cli.js';
import { pollMark, pollRunsSince, startCli, waitFor, type CliProcess } from '../helpers/queue-processes.js';
import { daysAgo, startSyncFixture, type SyncFixture } from '../helpers/sync-fixture.js';
import type { SyncRuntime } from '../../src/sync/runtime.js';

const [A, B, C] = ['group:6a0000000000000000000091', 'group:6a0000000000000000000092', 'group:6a0000000000000000000093'] as const;

describe('a configuration change reaches the job schedulers', () => {
  let fixture: SyncFixture;
  let connection: Redis;
  let queue: SyncQueue;
  let worker: SyncWorker;
  let runtime: SyncRuntime;
  let scheduler: CliProcess | undefined;
  const prefix = `em-test-${randomUUID()}`;

  beforeAll(async () => {
    fixture = await startSyncFixture(
      { seed: 91, orgs: ['5f0000000000000000000091'], groups: [A, B, C].map((s) => s.slice(6)), eventsPerScope: 200, days: 1 },
      { EVENTS_START_DATE: daysAgo(2).toISOString() },
    );
    connection = new Redis(REDIS_URL, { maxRetriesPerRequest: null });
    queue = createSyncQueue(connection, prefix);
    runtime = await fixture.runtime({ sync: { settleSeconds: 1 } });
    worker = createSyncWorker({
      connection,
      prefix,
      concurrency: 3,
      processor: createJobProcessor({ ctx: runtime.ctx, logger: silentLogger() }),
      logger: silentLogger(),
    });
    void worker.run();
  });
  afterAll(async () => {
    await scheduler?.stop('SIGKILL').catch(() => undefined);
    await worker?.close();
    await queue?.obliterate({ force: true });
    await queue?.close();
    await connection?.quit();
    await fixture?.close();
  });

  const envWith = (scopes: string[]) => ({
    ...fixture.env,
    EVENTS_SCOPES: scopes.join(','),
    REDIS_PREFIX: prefix,
    EVENTS_POLL_INTERVAL_SECONDS: '1',
  });
  const schedulerIds = async () => (await queue.getJobSchedulers()).map((s) => s.key).sort();

  it('stops polling a removed scope and starts polling an added one', async () => {
    const db = runtime.warehouse.db;
    const began = await pollMark(db);
    scheduler = startCli('scheduler 1', ['scheduler'], envWith([A, B]));
    await waitFor('polls of A and B', async () => {
      const runs = await pollRunsSince(db, began);
      return (runs.get(A) ?? 0) >= 2 && (runs.get(B) ?? 0) >= 2;
    });
    expect((await scheduler.stop('SIGTERM')).code, scheduler.output()).toBe(0);
    // The schedulers live in Redis: polling goes on without the scheduler process.
    expect(await schedulerIds()).toEqual([
      'poll.group.6a0000000000000000000091',
      'poll.group.6a0000000000000000000092',
      'reconcile.group.6a0000000000000000000091',
      'reconcile.group.6a0000000000000000000092',
    ]);

    // The new configuration drops A and adds C; a one-shot run and a long-running one agree.
    const once = await runCli(['scheduler', '--once'], envWith([B, C]));
    expect(once.code, once.stderr).toBe(0);
    // A poll and a reconcile scheduler per scope.
    expect(once.stdout).toContain('2 added, 0 updated, 2 removed, 2 unchanged');
    scheduler = startCli('scheduler 2', ['scheduler'], { ...envWith([B, C]), LOG_LEVEL: 'info' });
    // Its signal handlers are in place once it says it is keeping the scopes; a SIGTERM before that kills it.
    await waitFor('scheduler 2 running', () => Promise.resolve(scheduler!.output().includes('scheduler keeping 2 scopes')));
    expect(await schedulerIds()).toEqual([
      'poll.group.6a0000000000000000000092',
      'poll.group.6a0000000000000000000093',
      'reconcile.group.6a0000000000000000000092',
      'reconcile.group.6a0000000000000000000093',
    ]);

    const changed = await pollMark(db);
    await waitFor('polls of C, and of B since the change', async () => {
      const runs = await pollRunsSince(db, changed);
      return (runs.get(C) ?? 0) >= 1 && (runs.get(B) ?? 0) >= 1;
    });
    // A poll of A already taken before the change may still finish; after that, none starts.
    const settledAt = await pollMark(db);
    await waitFor('three more polls of B', async () => ((await pollRunsSince(db, settledAt)).get(B) ?? 0) >= 3);
    const since = await pollRunsSince(db, settledAt);
    expect(since.get(A) ?? 0, 'polls of the removed scope').toBe(0);
    expect(since.get(C) ?? 0).toBeGreaterThanOrEqual(1);
    expect((await scheduler.stop('SIGTERM')).code, scheduler.output()).toBe(0);
  }, 180_000);
});
