import { UnrecoverableError, Worker } from 'bullmq';
import { waitFor } from '../helpers/queue-processes.js';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REDIS_URL } from '../helpers/services.js';
import { createSyncQueue } from '../../src/queue/scheduler.js';
import { runCli } from '../helpers/cli.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';

const KEYS = {
  EVENTS_API_PUBLIC_KEY: 'pub',
  EVENTS_API_PRIVATE_KEY: 'never-shown-private-key',
  EVENTS_API_BASE_URL: 'http://127.0.0.1:9/api/public/v1.0',
};

describe('worker and scheduler refuse a configuration they cannot run with', () => {
  let unmigrated: TestDatabase;
  beforeAll(async () => {
    unmigrated = await createTestDatabase();
  });
  afterAll(async () => unmigrated?.drop());

  it('worker without DATABASE_URL: one line, exit 2', async () => {
    const result = await runCli(['worker'], { ...KEYS, METRICS_PORT: '0' });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('the worker needs DATABASE_URL');
    expect(result.stderr + result.stdout).not.toContain('never-shown-private-key');
  });

  it('worker without an API key pair: exit 2 naming the variable', async () => {
    const result = await runCli(['worker'], { DATABASE_URL: unmigrated.url });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('EVENTS_API_PUBLIC_KEY');
  });

  it('worker on an unmigrated warehouse: says to run migrate, exit 1', async () => {
    const result = await runCli(['worker'], {
      ...KEYS,
      DATABASE_URL: unmigrated.url,
      REDIS_PREFIX: `em-test-${Date.now()}`,
      METRICS_PORT: '0',
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('events-mirror migrate');
    expect(result.stderr + result.stdout).not.toContain('never-shown-private-key');
  });

  it('scheduler without scopes: exit 2 naming EVENTS_SCOPES', async () => {
    const result = await runCli(['scheduler', '--once'], {});
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('EVENTS_SCOPES');
  });
});

describe('backfill --enqueue of windows that ran before', () => {
  it('enqueues a failed window again, and a done one only with --force', async () => {
    const prefix = `em-test-${Date.now()}-${process.pid}-again`;
    const args = [
      'backfill',
      '--scope',
      'group:6a00000000000000000000e2',
      '--from',
      '2026-10-01',
      '--to',
      '2026-10-03T00:00:00Z',
      '--enqueue',
    ];
    expect((await runCli(args, { REDIS_PREFIX: prefix })).code).toBe(0);
    const connection = new Redis(REDIS_URL, { maxRetriesPerRequest: null });
    const queue = createSyncQueue(connection, prefix);
    // A worker that fails the first window for good and finishes the second.
    let seen = 0;
    const worker = new Worker(
      'sync',
      async () => {
        seen += 1;
        if (seen === 1) throw new UnrecoverableError('403 for this window');
        return { status: 'succeeded' };
      },
      { connection: connection.duplicate(), prefix, concurrency: 1 },
    );
    try {
      await waitFor(
        'both windows to end',
        async () =>
          (await queue.getJobCounts('failed', 'completed')).failed === 1 && (await queue.getJobCounts('completed')).completed === 1,
      );
      await worker.close();
      const again = await runCli(args, { REDIS_PREFIX: prefix });
      expect(again.stdout).toContain('1 of 2 windows added (1 of them failed before; 1 already queued or done');
      expect((await queue.getJobCounts('failed')).failed).toBe(0);
      const forced = await runCli([...args, '--force'], { REDIS_PREFIX: prefix });
      expect(forced.stdout).toContain('1 of 2 windows added (0 of them failed before; 1 already queued or done)');
      const waiting = await queue.getJobs(['prioritized', 'wait']);
      expect(waiting).toHaveLength(2);
      expect(waiting.map((job) => (job.data as { force?: boolean }).force ?? false).sort()).toEqual([false, true]);
    } finally {
      await worker.close();
      await queue.obliterate({ force: true });
      await queue.close();
      await connection.quit();
    }
  });
});

describe('backfill --enqueue', () => {
  it('adds one job per window with Redis only, and adds nothing the second time', async () => {
    const prefix = `em-test-${Date.now()}-${process.pid}`;
    const args = [
      'backfill',
      '--scope',
      'group:6a00000000000000000000e1',
      '--from',
      '2026-10-01',
      '--to',
      '2026-10-03T00:00:00Z',
      '--enqueue',
    ];
    const first = await runCli(args, { REDIS_PREFIX: prefix });
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toContain('2 of 2 windows added');
    const second = await runCli(args, { REDIS_PREFIX: prefix });
    expect(second.code, second.stderr).toBe(0);
    expect(second.stdout).toContain('0 of 2 windows added (0 of them failed before; 2 already queued or done: --force re-reads done ones)');

    const connection = new Redis(REDIS_URL, { maxRetriesPerRequest: null });
    const queue = createSyncQueue(connection, prefix);
    try {
      const jobs = await queue.getJobs(['prioritized', 'wait']);
      expect(jobs.map((j) => j.id).sort()).toEqual([
        'backfill.group.6a00000000000000000000e1.20261001T000000Z.20261002T000000Z',
        'backfill.group.6a00000000000000000000e1.20261002T000000Z.20261003T000000Z',
      ]);
    } finally {
      await queue.obliterate({ force: true });
      await queue.close();
      await connection.quit();
    }
  });
});
