/**
 * The whole deployment through silent network failures: a scheduler and two workers reach
 * PostgreSQL, Redis and the Events API each through a proxy that partitions (drops every byte,
 * closes nothing) and heals (connections opened before stay dead on the client's side). Each
 * dependency is partitioned in turn while events keep arriving; /healthz must answer within 5 s
 * and name the silent dependency; after the last heal the warehouse must equal the emulator
 * within two minutes. Then SIGTERM while everything is silent: every process ends within the
 * bound. The figures printed are docs/operations.md's figures.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/server.js';
import { createWarehouse, type Warehouse } from '../../src/warehouse/database.js';
import { migrateToLatest } from '../../src/warehouse/migrator.js';
import { writeConfigFile } from '../helpers/cli.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { expectMirrorEqualsEmulator } from '../helpers/mirror.js';
import { startPartitionProxy, type PartitionProxy } from '../helpers/partition-proxy.js';
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
import { REDIS_URL } from '../helpers/services.js';
import { daysAgo } from '../helpers/sync-fixture.js';

type Dependency = 'postgres' | 'redis' | 'api';

/**
 * How long each dependency stays silent: past the deadline that notices it, no longer. PostgreSQL:
 * the 3 s query deadline and the 2 s connect deadline both fire. Redis: a command outlives the 11 s
 * socket deadline, so the connection is replaced and reconnects fail against the partition before
 * the heal. The API: /healthz names it within 11.5 s (10 s without an answer, then a 1.5 s probe).
 */
const PARTITION_MS: Record<Dependency, number> = { postgres: 8_000, redis: 14_000, api: 15_000 };
const SHUTDOWN_TIMEOUT_MS = 3_000;
/** The bound docs/operations.md promises: the shutdown timeout plus the hard stop's margin. */
const STOP_BOUND_MS = SHUTDOWN_TIMEOUT_MS + 9_000 + 1_000;
const HEALTH_ANSWER_MS = 5_000;

interface Figures {
  dependency: Dependency;
  noticedMs: number[];
  caughtUpMs: number;
  slowestHealthAnswerMs: number;
}

describe('scheduler and two workers through silent network failures', () => {
  let emulator: RunningEmulator;
  let database: TestDatabase;
  let warehouse: Warehouse;
  const proxies = {} as Record<Dependency, PartitionProxy>;
  const prefix = `em-test-${randomUUID()}`;
  const processes: CliProcess[] = [];

  beforeAll(async () => {
    emulator = await startEmulator({
      host: '127.0.0.1',
      port: 0,
      seed: 111,
      orgs: ['5f0000000000000000000111'],
      groups: ['6a0000000000000000000111', '6a0000000000000000000112'],
      eventsPerScope: 1500,
      days: 2,
      liveRatePerSecond: 6,
      faults: { latencyMs: 5 },
    });
    database = await createTestDatabase();
    warehouse = await createWarehouse({ url: database.url, schema: 'events_mirror', dataDir: 'unused' });
    await migrateToLatest(warehouse);
    const pg = new URL(database.url);
    const redis = new URL(REDIS_URL);
    proxies.postgres = await startPartitionProxy({ host: pg.hostname, port: Number(pg.port || 5432) });
    proxies.redis = await startPartitionProxy({ host: redis.hostname, port: Number(redis.port || 6379) });
    proxies.api = await startPartitionProxy({ host: '127.0.0.1', port: Number(new URL(emulator.baseUrl).port) });
  });

  afterAll(async () => {
    await Promise.all(processes.map((p) => p.stop('SIGKILL').catch(() => undefined)));
    await Promise.all(Object.values(proxies).map((p) => p.close()));
    await warehouse?.close();
    await database?.drop();
    await emulator?.close();
    await obliterateSyncQueue(REDIS_URL, prefix);
  });

  it('notices each partition, reports it on /healthz, catches up after each heal, and stops in bounded time', async () => {
    const key = emulator.keys[0]!;
    const scopes = emulator.dataset.scopes();
    const healthPorts = [await freePort(), await freePort()];
    const env = {
      EVENTS_API_BASE_URL: proxies.api.via(emulator.baseUrl),
      EVENTS_API_PUBLIC_KEY: key.publicKey,
      EVENTS_API_PRIVATE_KEY: key.privateKey,
      EVENTS_SCOPES: scopes.join(','),
      EVENTS_START_DATE: daysAgo(3).toISOString(),
      DATABASE_URL: proxies.postgres.via(database.url),
      REDIS_URL: proxies.redis.via(REDIS_URL),
      REDIS_PREFIX: prefix,
      EVENTS_POLL_INTERVAL_SECONDS: '2',
      EVENTS_MIRROR_CONFIG: writeConfigFile({
        api: { itemsPerPage: 200, requestTimeoutMs: 3_000, maxRetryDelayMs: 2_000 },
        sync: { windowSeconds: 6 * 3600, settleSeconds: 1 },
        database: { connectTimeoutMs: 2_000, queryTimeoutMs: 3_000 },
        redis: { connectTimeoutMs: 2_000, socketTimeoutMs: 11_000 },
        worker: { shutdownTimeoutMs: SHUTDOWN_TIMEOUT_MS, jobTimeoutMs: 60_000 },
      }),
    };
    const db = warehouse.db;
    const slowestHealth = { ms: 0 };
    const healthz = async (port: number) => {
      const started = performance.now();
      const response = await fetch(`http://127.0.0.1:${port}/healthz`, { signal: AbortSignal.timeout(HEALTH_ANSWER_MS) });
      const body = (await response.json()) as { checks: Record<string, string> };
      slowestHealth.ms = Math.max(slowestHealth.ms, performance.now() - started);
      return { status: response.status, checks: body.checks };
    };
    const diagnostics = () => processes.map((p) => p.output()).join('\n');

    try {
      const scheduler = startCli('scheduler', ['scheduler'], env);
      processes.push(scheduler);
      const workers = healthPorts.map((port, i) => startCli(`worker-${i + 1}`, ['worker'], { ...env, METRICS_PORT: String(port) }));
      processes.push(...workers);
      const died = failWhenAnyExits(processes);
      const waitUp = <T>(what: string, check: () => Promise<T | undefined | false>, deadlineMs = 90_000) =>
        Promise.race([waitFor(what, check, deadlineMs, 250), died]);
      const allHealthy = async () => (await Promise.all(healthPorts.map(healthz))).every((h) => h.status === 200);

      const start = await pollMark(db);
      await waitUp('every scope polled', async () => {
        const runs = await pollRunsSince(db, start);
        return scopes.every((s) => (runs.get(s) ?? 0) >= 1);
      });
      await waitUp('both workers healthy', allHealthy);

      const figures: Figures[] = [];
      let lastHealAt = 0;
      for (const dependency of ['postgres', 'redis', 'api'] as const) {
        slowestHealth.ms = 0;
        const partitionedAt = performance.now();
        proxies[dependency].partition();
        // Each worker's /healthz answers in time throughout, and names the silent dependency: the API
        // too, busy or idle (after 10 s without an answer the check probes the API itself).
        const reports = healthPorts.map((port) =>
          waitUp(
            `worker on ${port} reporting ${dependency} on /healthz`,
            async () => {
              const health = await healthz(port);
              return health.status === 503 && health.checks[dependency] !== 'ok' && performance.now() - partitionedAt;
            },
            PARTITION_MS[dependency],
          ),
        );
        const noticedMs = await Promise.all(reports);
        while (performance.now() - partitionedAt < PARTITION_MS[dependency]) {
          await Promise.all(healthPorts.map(healthz));
          await Promise.race([sleep(1_000), died]);
        }
        proxies[dependency].heal();
        const healedAt = await pollMark(db);
        lastHealAt = Date.now();
        await waitUp(`a successful poll of every scope after ${dependency} healed`, async () => {
          const runs = await pollRunsSince(db, healedAt);
          return scopes.every((s) => (runs.get(s) ?? 0) >= 1);
        });
        await waitUp(`both workers healthy after ${dependency} healed`, allHealthy);
        figures.push({ dependency, noticedMs, caughtUpMs: Date.now() - lastHealAt, slowestHealthAnswerMs: slowestHealth.ms });
        expect(slowestHealth.ms, `/healthz answer time during the ${dependency} partition`).toBeLessThan(HEALTH_ANSWER_MS);
      }

      emulator.setLiveRate(0);
      const stoppedAt = Date.now();
      await waitUp(
        'a checkpoint past the last live event for every scope',
        async () => {
          const marks = await watermarks(db);
          return scopes.every((s) => (marks.get(s)?.getTime() ?? 0) > stoppedAt + 1_000);
        },
        120_000,
      );
      await expectMirrorEqualsEmulator(db, emulator.dataset, scopes);
      const equalAfterMs = Date.now() - lastHealAt;
      expect(equalAfterMs, 'the warehouse equals the emulator within two minutes of the last heal').toBeLessThan(120_000);

      // SIGTERM while every dependency is silent.
      for (const proxy of Object.values(proxies)) proxy.partition();
      await sleep(3_000);
      const stopStarted = performance.now();
      const stops = await Promise.all(
        processes.map(async (p) => {
          const result = await p.stop('SIGTERM', 60_000);
          return { name: p.name, code: result.code, ms: performance.now() - stopStarted };
        }),
      );
      console.log(
        [
          `silent network failures (scheduler + 2 workers, 3 scopes; partitions of ${Object.entries(PARTITION_MS)
            .map(([d, ms]) => `${d} ${ms / 1000} s`)
            .join(', ')}):`,
          ...figures.map(
            (f) =>
              `  ${f.dependency.padEnd(8)} noticed on /healthz after ${f.noticedMs.map((ms) => `${(ms / 1000).toFixed(1)} s`).join(' / ')}; ` +
              `every scope polled again ${(f.caughtUpMs / 1000).toFixed(1)} s after the heal; slowest /healthz answer ${Math.round(f.slowestHealthAnswerMs)} ms`,
          ),
          `  warehouse equal to the emulator ${(equalAfterMs / 1000).toFixed(1)} s after the last heal`,
          `  SIGTERM with every dependency silent: ${stops.map((s) => `${s.name} exited ${s.code} after ${(s.ms / 1000).toFixed(1)} s`).join(', ')}`,
        ].join('\n'),
      );
      for (const stop of stops) expect(stop.ms, `${stop.name} stop time`).toBeLessThan(STOP_BOUND_MS);
    } catch (error) {
      throw new Error(`${String(error)}\n${diagnostics()}`, { cause: error });
    }
  }, 360_000);
});
