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

describe('backfill --enqueue', () => {
  it('adds one job per window with Redis only, and adds nothing the second time', async () => {
    const prefix = `em-test-${Date.now()}-${process.pid}`;
    const args = ['backfill', '--scope', 'group:6a00000000000000000000e1', '--from', '2026-10-01', '--to', '2026-10-03', '--enqueue'];
    const first = await runCli(args, { REDIS_PREFIX: prefix });
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toContain('2 of 2 windows added');
    const second = await runCli(args, { REDIS_PREFIX: prefix });
    expect(second.code, second.stderr).toBe(0);
    expect(second.stdout).toContain('0 of 2 windows added (2 already queued or done)');

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
