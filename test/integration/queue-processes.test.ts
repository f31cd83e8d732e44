import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWarehouse, type Warehouse } from '../../src/warehouse/database.js';
import { writeConfigFile } from '../helpers/cli.js';
import { expectMirrorEqualsEmulator } from '../helpers/mirror.js';
import {
  freePort,
  pollMark,
  pollRunsSince,
  runningRuns,
  startCli,
  startPrivateRedis,
  waitFor,
  watermarks,
  type CliProcess,
  type PrivateRedis,
} from '../helpers/queue-processes.js';
import { daysAgo, startSyncFixture, type SyncFixture } from '../helpers/sync-fixture.js';

describe('a scheduler and two worker processes mirror several scopes continuously', () => {
  let fixture: SyncFixture;
  let redis: PrivateRedis;
  let warehouse: Warehouse;
  const processes: CliProcess[] = [];

  beforeAll(async () => {
    fixture = await startSyncFixture(
      {
        seed: 71,
        orgs: ['5f0000000000000000000071'],
        groups: ['6a0000000000000000000071', '6a0000000000000000000072'],
        eventsPerScope: 2000,
        days: 3,
        liveRatePerSecond: 8,
        faults: { latencyMs: 10, malformedRate: 0.01, rate5xx: 0.02, rate429: 0.02, dropRate: 0.01, lateEventsMaxSeconds: 60 },
      },
      { EVENTS_START_DATE: daysAgo(4).toISOString() },
    );
    redis = await startPrivateRedis();
    warehouse = await createWarehouse({ url: fixture.database.url, schema: 'events_mirror', dataDir: 'unused' });
  });

  afterAll(async () => {
    await Promise.all(processes.map((p) => p.stop('SIGKILL').catch(() => undefined)));
    await warehouse?.close();
    await redis?.stop();
    await fixture?.close();
  });

  it('ends equal to the emulator despite a SIGKILLed worker and a Redis restart', async () => {
    const env = {
      ...fixture.env,
      REDIS_URL: redis.url,
      REDIS_PREFIX: `em-${randomUUID().slice(0, 8)}`,
      EVENTS_POLL_INTERVAL_SECONDS: '1',
      EVENTS_MIRROR_CONFIG: writeConfigFile({
        api: { itemsPerPage: 100 },
        sync: { windowSeconds: 6 * 3600, settleSeconds: 1 },
        worker: { shutdownTimeoutMs: 5_000 },
      }),
    };
    const db = warehouse.db;
    const scopes = fixture.emulator.dataset.scopes();
    const start = (name: string, args: string[], extra: Record<string, string> = {}) => {
      const child = startCli(name, args, { ...env, ...extra });
      processes.push(child);
      return child;
    };
    const diagnostics = () => processes.map((p) => p.output()).join('\n');

    try {
      start('scheduler', ['scheduler']);
      const first = start('worker A', ['worker'], { METRICS_PORT: String(await freePort()) });

      // Kill worker A while it holds a poll job in the middle of the first (long) sync.
      await waitFor('worker A mid-job', async () => (await runningRuns(db, 'poll')).length > 0, 60_000, 50);
      first.child.kill('SIGKILL');
      expect((await first.exited).signal).toBe('SIGKILL');

      const healthPort = await freePort();
      const secondMetricsPort = await freePort();
      start('worker B', ['worker'], { METRICS_PORT: String(healthPort) });
      start('worker A again', ['worker'], { METRICS_PORT: String(secondMetricsPort) });
      await waitFor('a first checkpoint for every scope', async () => {
        const marks = await watermarks(db);
        return scopes.every((s) => marks.get(s));
      });

      const restartedAt = await pollMark(db);
      await redis.restart();
      // The restarted Redis is empty: the scheduler must notice, re-create the schedulers, and the
      // workers reconnect and poll every scope again.
      await waitFor('polls of every scope after the Redis restart', async () => {
        const runs = await pollRunsSince(db, restartedAt);
        return scopes.every((s) => (runs.get(s) ?? 0) >= 2);
      });

      fixture.emulator.setLiveRate(0);
      const stoppedAt = Date.now();
      await waitFor('a checkpoint past the last live event for every scope', async () => {
        const marks = await watermarks(db);
        return scopes.every((s) => (marks.get(s)?.getTime() ?? 0) > stoppedAt + 1_000);
      });
      await expectMirrorEqualsEmulator(db, fixture.emulator.dataset, scopes);

      const health = await fetch(`http://127.0.0.1:${healthPort}/healthz`);
      expect(health.status).toBe(200);
      expect(await health.json()).toEqual({ status: 'ok', checks: { redis: 'ok', postgres: 'ok', migrations: 'ok', api: 'ok' } });
      // Each worker reports only the scopes it polled itself, and which worker takes which poll is
      // up to the queue: every scope must show up in one of the two.
      const metricsOf = async (port: number) => (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
      const bothWorkers = [await metricsOf(healthPort), await metricsOf(secondMetricsPort)];
      expect(bothWorkers.some((m) => /events_mirror_jobs_total\{job="poll",outcome="succeeded"\} [1-9]/.test(m))).toBe(true);
      expect(bothWorkers.some((m) => /events_mirror_api_requests_total\{[^}]*\} [1-9]/.test(m))).toBe(true);
      for (const scope of scopes) {
        const gauge = `events_mirror_scope_lag_seconds{scope="${scope}"}`;
        expect(
          bothWorkers.some((metrics) => metrics.includes(gauge)),
          gauge,
        ).toBe(true);
      }

      for (const child of processes.filter((p) => p !== first)) {
        const result = await child.stop('SIGTERM');
        expect(result.code, child.output()).toBe(0);
      }
      const stillRunning = await db
        .selectFrom('sync_runs')
        .select(sql<number>`count(*)::int`.as('n'))
        .where('status', '=', 'running')
        .where('started_at', '>', new Date(stoppedAt))
        .executeTakeFirstOrThrow();
      expect(stillRunning.n, 'runs left unfinished by a graceful stop').toBe(0);
    } catch (error) {
      throw new Error(`${String(error)}\n${diagnostics()}`, { cause: error });
    }
  }, 180_000);
});
