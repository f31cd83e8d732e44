import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REDIS_URL } from '../helpers/services.js';
import { scopeSettings } from '../../src/config.js';
import { silentLogger } from '../../src/logger.js';
import { enqueueBackfill } from '../../src/queue/enqueue-backfill.js';
import { createWarehouse, type Warehouse } from '../../src/warehouse/database.js';
import { createJobProcessor } from '../../src/queue/job-processor.js';
import { createSyncQueue, type SyncQueue } from '../../src/queue/scheduler.js';
import { createSyncWorker } from '../../src/queue/worker.js';
import { parseScope } from '../../src/scope.js';
import { writeConfigFile } from '../helpers/cli.js';
import { expectMirrorEqualsEmulator } from '../helpers/mirror.js';
import { freePort, runningRuns, startCli, waitFor } from '../helpers/queue-processes.js';
import { daysAgo, startSyncFixture, type SyncFixture } from '../helpers/sync-fixture.js';

const GROUP = 'group:6a0000000000000000000081';
const WINDOW_SECONDS = 86_400;

describe('SIGTERM while a worker process runs a job', () => {
  let fixture: SyncFixture;
  let connection: Redis;
  let queue: SyncQueue;
  let warehouse: Warehouse;
  const prefix = `em-test-${randomUUID()}`;

  beforeAll(async () => {
    fixture = await startSyncFixture(
      // Slow pages make one backfill window take seconds: long enough to be cut.
      {
        seed: 81,
        orgs: ['5f0000000000000000000081'],
        groups: [GROUP.slice(6)],
        eventsPerScope: 3000,
        days: 2,
        faults: { latencyMs: 120, malformedRate: 0.01 },
      },
      { EVENTS_START_DATE: daysAgo(3).toISOString() },
    );
    connection = new Redis(REDIS_URL, { maxRetriesPerRequest: null });
    queue = createSyncQueue(connection, prefix);
    warehouse = await createWarehouse({ url: fixture.database.url, schema: 'events_mirror', dataDir: 'unused' });
  });
  afterAll(async () => {
    await warehouse?.close();
    await queue?.obliterate({ force: true });
    await queue?.close();
    await connection?.quit();
    await fixture?.close();
  });

  const envFor = (shutdownTimeoutMs: number, port: number) => ({
    ...fixture.env,
    EVENTS_SCOPES: GROUP,
    REDIS_PREFIX: prefix,
    METRICS_PORT: String(port),
    WORKER_CONCURRENCY: '1',
    EVENTS_MIRROR_CONFIG: writeConfigFile({
      api: { itemsPerPage: 100 },
      sync: { windowSeconds: WINDOW_SECONDS },
      worker: { shutdownTimeoutMs },
    }),
  });

  /** Starts a worker, waits until it is inside a backfill window, sends SIGTERM; returns that job's id. */
  async function termMidJob(shutdownTimeoutMs: number): Promise<{ jobId: string; code: number | null; output: string }> {
    const worker = startCli('worker', ['worker'], envFor(shutdownTimeoutMs, await freePort()));
    try {
      const running = await waitFor(
        'a backfill window in progress',
        async () => (await runningRuns(warehouse.db, 'backfill'))[0],
        60_000,
        50,
      );
      const result = await worker.stop('SIGTERM');
      return { jobId: running.jobId!, code: result.code, output: worker.output() };
    } catch (error) {
      await worker.stop('SIGKILL').catch(() => undefined);
      throw new Error(`${String(error)}\n${worker.output()}`, { cause: error });
    }
  }

  it('finishes the job within the shutdown time, or hands it back; either way nothing is lost', async () => {
    const config = fixture.config({ sync: { windowSeconds: WINDOW_SECONDS } });
    const enqueued = await enqueueBackfill(queue, scopeSettings(config, parseScope(GROUP)), daysAgo(3), new Date(), WINDOW_SECONDS);
    expect(enqueued.added).toBeGreaterThanOrEqual(3);

    // A long shutdown time: the running window completes before the process exits.
    const patient = await termMidJob(60_000);
    expect(patient.code, patient.output).toBe(0);
    expect(await (await queue.getJob(patient.jobId))!.getState()).toBe('completed');

    // A short one: the window is interrupted and goes back to the queue, no attempt spent.
    const hasty = await termMidJob(300);
    expect(hasty.code, hasty.output).toBe(0);
    const handedBack = (await queue.getJob(hasty.jobId))!;
    const state = await handedBack.getState();
    expect(['waiting', 'prioritized', 'completed']).toContain(state);
    if (state !== 'completed') expect(handedBack.attemptsMade, 'a handed-back job spends no attempt').toBe(0);
    const states = await Promise.all((await queue.getJobs()).map((job) => job.getState()));
    expect(states.filter((s) => s === 'active' || s === 'failed')).toEqual([]);

    // Another worker drains the queue: every window lands, none twice.
    const runtime = await fixture.runtime({ api: { itemsPerPage: 500 }, sync: { windowSeconds: WINDOW_SECONDS } });
    fixture.emulator.setFaults({ latencyMs: 0 });
    const drain = createSyncWorker({
      connection,
      prefix,
      concurrency: 2,
      processor: createJobProcessor({ ctx: runtime.ctx, logger: silentLogger() }),
      logger: silentLogger(),
    });
    void drain.run();
    try {
      await waitFor('every backfill window completed', async () => {
        const jobs = await queue.getJobs();
        const done = await Promise.all(jobs.map(async (job) => (await job.getState()) === 'completed'));
        return jobs.length === enqueued.windows && done.every(Boolean);
      });
    } finally {
      await drain.close();
    }
    await expectMirrorEqualsEmulator(runtime.warehouse.db, fixture.emulator.dataset, [GROUP]);
  }, 180_000);
});
