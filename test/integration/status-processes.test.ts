/**
 * `status` says which scheduler and workers feed the warehouse, and when each was last heard: real
 * scheduler and worker processes write their heartbeat into PostgreSQL's `processes` table, a
 * clean stop is recorded, and `status` (text within 80 columns, and `--json`) reads it without
 * touching Redis. Real PostgreSQL, Redis and the emulator over HTTP.
 */
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { freePort, obliterateSyncQueue, startCli, waitFor, type CliProcess } from '../helpers/queue-processes.js';
import { REDIS_URL } from '../helpers/services.js';
import { daysAgo, startSyncFixture, type SyncFixture } from '../helpers/sync-fixture.js';

interface ProcessJson {
  kind: string;
  host: string;
  pid: number;
  state: string;
  lastSeenAt: string;
  stoppedAt: string | null;
}

describe('status and the fleet processes', () => {
  let fixture: SyncFixture;
  const prefix = `em-test-${randomUUID()}`;
  const processes: CliProcess[] = [];
  let env: Record<string, string>;

  beforeAll(async () => {
    fixture = await startSyncFixture(
      { seed: 441, groups: ['6a0000000000000000000441'], eventsPerScope: 50, days: 1 },
      { EVENTS_START_DATE: daysAgo(2).toISOString() },
    );
    env = { ...fixture.env, REDIS_URL, REDIS_PREFIX: prefix, LOG_LEVEL: 'info' };
  });
  afterAll(async () => {
    await Promise.all(processes.map((p) => p.stop('SIGKILL').catch(() => undefined)));
    await obliterateSyncQueue(REDIS_URL, prefix);
    await fixture?.close();
  });

  /** status without Redis: a REDIS_URL where nothing listens changes nothing. */
  const status = async (...args: string[]) => {
    const result = await runCli(['status', ...args], { ...env, REDIS_URL: 'redis://127.0.0.1:1' });
    expect(result.code, result.stderr).toBe(0);
    return result.stdout;
  };
  const listed = async () => (JSON.parse(await status('--json')) as { processes: ProcessJson[] }).processes;

  it('lists the running scheduler and worker with their host, pid and last heartbeat, then a clean stop', async () => {
    const before = await listed();
    expect(before).toEqual([]);
    expect(await status()).not.toMatch(/^processes:/m);

    const scheduler = startCli('scheduler', ['scheduler'], { ...env, SCHEDULER_METRICS_PORT: String(await freePort()) });
    processes.push(scheduler);
    const worker = startCli('worker', ['worker'], { ...env, METRICS_PORT: String(await freePort()) });
    processes.push(worker);
    const diagnostics = () => processes.map((p) => p.output()).join('\n');

    try {
      const running = await waitFor(
        'both processes heard',
        async () => {
          const seen = await listed();
          return seen.filter((p) => p.state === 'running').length === 2 && seen;
        },
        60_000,
        500,
      );
      expect(running).toEqual([
        expect.objectContaining({ kind: 'scheduler', host: hostname(), pid: scheduler.child.pid, stoppedAt: null }),
        expect.objectContaining({ kind: 'worker', host: hostname(), pid: worker.child.pid, stoppedAt: null }),
      ]);
      const text = await status();
      expect(text).toContain('processes: 1 scheduler, 1 worker running (heartbeat 15 s, last 24 h)');
      expect(text).toMatch(new RegExp(`^\\s*scheduler\\s+\\S+\\s+${scheduler.child.pid}\\s+running\\s+\\d+ s ago\\s*$`, 'm'));
      expect(text).toMatch(new RegExp(`^\\s*worker\\s+\\S+\\s+${worker.child.pid}\\s+running\\s+\\d+ s ago\\s*$`, 'm'));
      for (const line of text.split('\n')) expect(line.length, line).toBeLessThanOrEqual(80);

      // The worker stops cleanly: it says so; the scheduler alone is running.
      expect((await worker.stop('SIGTERM')).code, worker.output()).toBe(0);
      const afterStop = await listed();
      expect(afterStop.find((p) => p.kind === 'worker')).toMatchObject({ state: 'stopped', pid: worker.child.pid });
      expect(afterStop.find((p) => p.kind === 'worker')?.stoppedAt).not.toBeNull();
      const stoppedText = await status();
      expect(stoppedText).toContain('processes: 1 scheduler, 0 workers running');
      expect(stoppedText).toMatch(new RegExp(`^\\s*worker\\s+\\S+\\s+${worker.child.pid}\\s+stopped\\s+stopped \\d+ s ago\\s*$`, 'm'));

      expect((await scheduler.stop('SIGTERM')).code, scheduler.output()).toBe(0);
      const noScheduler = await status();
      expect(noScheduler).toContain('processes: 0 schedulers, 0 workers running');
      expect(noScheduler).toContain('no scheduler running: nothing is polled on schedule');
    } catch (error) {
      throw new Error(`${String(error)}\n${diagnostics()}`, { cause: error });
    }
  }, 180_000);
});
