/**
 * A fleet discovered from organizations: FLEET_ORGS organizations of FLEET_PROJECTS projects each,
 * listed by the scheduler (discovery on), polled every FLEET_PERIOD seconds by FLEET_WORKERS worker
 * processes (WORKER_CONCURRENCY as configured) from an idle emulator. After every scope has its
 * first checkpoint, it measures over FLEET_WINDOW seconds: the share of scopes polled within every
 * 2 periods (sync_state.polls sampled each period), worker CPU per poll (/proc), sync_runs rows added
 * per idle poll, Redis bytes per scope (used_memory of a private redis-server, before the scheduler
 * and in the window), Prometheus series per scope (one worker's /metrics) and the peak RSS of each
 * process (VmHWM; the emulator runs in this process).
 *
 * The configurations: FLEET_PROJECTS=1000|5000|10000 FLEET_ORGS=1, and FLEET_PROJECTS=500
 * FLEET_ORGS=20, with FLEET_PERIOD=60 FLEET_WINDOW=360. Run: FLEET_PROJECTS=… npx tsx test/bench/fleet.bench.ts
 */
import { readFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { sql } from 'kysely';
import { startEmulator } from '../../src/emulator/server.js';
import { createWarehouse } from '../../src/warehouse/database.js';
import { migrateToLatest } from '../../src/warehouse/migrator.js';
import { writeConfigFile } from '../helpers/cli.js';
import { checkpointedScopes, createTestDatabase } from '../helpers/database.js';
import { freePort, sleep, startCli, startPrivateRedis, waitFor, type CliProcess } from '../helpers/queue-processes.js';

const num = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
const PROJECTS = num('FLEET_PROJECTS', 500);
const ORGS = num('FLEET_ORGS', 1);
const PERIOD = num('FLEET_PERIOD', 30);
const WINDOW = num('FLEET_WINDOW', 120);
const WORKERS = num('FLEET_WORKERS', 2);
const CONCURRENCY = process.env.WORKER_CONCURRENCY;
const CLOCK_TICKS = 100; // USER_HZ on Linux

function cpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS;
}

function peakRssMb(pid: number | 'self'): number {
  const match = /^VmHWM:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return Number(match?.[1] ?? 0) / 1024;
}

const fmt = (value: number, digits = 0) => value.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });

async function main(): Promise<void> {
  const scopesTotal = ORGS * (PROJECTS + 1);
  const orgs = Array.from({ length: ORGS }, (_, o) => `5f${(0xf1ee70 + o).toString(16).padStart(22, '0')}`);
  const projects = orgs.flatMap((orgId, o) =>
    Array.from({ length: PROJECTS }, (_, i) => ({ id: `6c${(o * 100_000 + i).toString(16).padStart(22, '0')}`, orgId })),
  );
  const emulator = await startEmulator({ port: 0, seed: 34, orgs, groups: [], projects, eventsPerScope: 0, days: 1 });
  const database = await createTestDatabase();
  const redis = await startPrivateRedis();
  const redisClient = new Redis(redis.url);
  const usedMemory = async () => Number(/^used_memory:(\d+)/m.exec(await redisClient.info('memory'))?.[1]);
  const warehouse = await createWarehouse({ url: database.url, schema: 'events_mirror', dataDir: 'unused', poolSize: 2 });
  const processes: CliProcess[] = [];
  try {
    await migrateToLatest(warehouse);
    const key = emulator.keys[0]!;
    const metricsPorts = await Promise.all(Array.from({ length: WORKERS }, () => freePort()));
    const env = {
      EVENTS_API_BASE_URL: emulator.baseUrl,
      EVENTS_API_PUBLIC_KEY: key.publicKey,
      EVENTS_API_PRIVATE_KEY: key.privateKey,
      EVENTS_START_DATE: new Date(Date.now() - 3600_000).toISOString(),
      EVENTS_POLL_INTERVAL_SECONDS: String(PERIOD),
      EVENTS_RECONCILE_INTERVAL_SECONDS: '0',
      DATABASE_URL: database.url,
      REDIS_URL: redis.url,
      REDIS_PREFIX: `fleet-${randomUUID().slice(0, 8)}`,
      NODE_ENV: 'production',
      LOG_LEVEL: 'warn',
      ...(CONCURRENCY ? { WORKER_CONCURRENCY: CONCURRENCY } : {}),
      EVENTS_MIRROR_CONFIG: writeConfigFile({
        scopes: orgs.map((org) => ({ scope: `org:${org}`, discoverProjects: true })),
        sync: { settleSeconds: 1 },
      }),
    };
    const redisBefore = await usedMemory();
    const scheduler = startCli('scheduler', ['scheduler'], env);
    const workers = metricsPorts.map((port, i) => startCli(`worker${i + 1}`, ['worker'], { ...env, METRICS_PORT: String(port) }));
    processes.push(scheduler, ...workers);
    const db = warehouse.db;
    const checkpointed = () => checkpointedScopes(db);
    const warmStarted = Date.now();
    await waitFor('a first checkpoint for every scope', async () => (await checkpointed()) >= scopesTotal, 3_600_000, 2_000);
    const warmUpSeconds = (Date.now() - warmStarted) / 1000;
    await sleep(PERIOD * 1000);

    const snapshot = async () =>
      new Map((await db.selectFrom('sync_state').select(['scope', 'polls']).execute()).map((r) => [r.scope, Number(r.polls)]));
    const runs = async () =>
      (
        await db
          .selectFrom('sync_runs')
          .select(sql<number>`count(*)::int`.as('n'))
          .executeTakeFirstOrThrow()
      ).n;
    const cpu = () => workers.map((w) => cpuMs(w.child.pid!));
    const snapshots = [await snapshot()];
    const runs0 = await runs();
    const cpu0 = cpu();
    const started = Date.now();
    const periods = Math.max(2, Math.floor(WINDOW / PERIOD));
    for (let p = 1; p <= periods; p += 1) {
      await sleep(Math.max(0, started + p * PERIOD * 1000 - Date.now()));
      snapshots.push(await snapshot());
    }
    const seconds = (Date.now() - started) / 1000;
    const cpu1 = cpu();
    const runsAdded = (await runs()) - runs0;
    const redisAfter = await usedMemory();
    const first = snapshots[0]!;
    const last = snapshots.at(-1)!;
    let polls = 0;
    let within = 0;
    for (const [scope, n] of last) {
      polls += n - (first.get(scope) ?? 0);
      let ok = true;
      for (let i = 0; i + 2 < snapshots.length; i += 1) {
        if ((snapshots[i + 2]!.get(scope) ?? 0) <= (snapshots[i]!.get(scope) ?? 0)) ok = false;
      }
      if (ok) within += 1;
    }
    const metricsText = await (await fetch(`http://127.0.0.1:${metricsPorts[0]}/metrics`)).text();
    const series = metricsText.split('\n').filter((l) => l && !l.startsWith('#'));
    const scopeSeries = series.filter((l) => l.includes('scope="'));
    const workerCpu = cpu1.reduce((a, b, i) => a + b - cpu0[i]!, 0);
    process.stdout.write(
      `fleet: ${ORGS} org(s) × ${PROJECTS} projects = ${scopesTotal} scopes, every ${PERIOD} s, ${WORKERS} workers (WORKER_CONCURRENCY ${CONCURRENCY ?? 'default'}); ` +
        `warm-up ${fmt(warmUpSeconds)} s, ${fmt(seconds)} s measured (${new Date().toISOString()})\n` +
        `  polled within 2 periods: ${fmt((within / scopesTotal) * 100, 2)} % of scopes (${within} of ${scopesTotal})\n` +
        `  polls:                   ${fmt(polls)} (${fmt((polls / scopesTotal / seconds) * PERIOD, 2)} per scope per period)\n` +
        `  worker CPU:              ${fmt(workerCpu / Math.max(1, polls), 2)} ms per poll (${fmt((workerCpu / (seconds * 1000)) * 100)} % of one core, both workers)\n` +
        `  sync_runs:               +${runsAdded} rows, ${fmt(runsAdded / Math.max(1, polls), 4)} per idle poll\n` +
        `  redis:                   ${fmt((redisAfter - redisBefore) / scopesTotal)} bytes per scope (${fmt((redisAfter - redisBefore) / 1e6, 1)} MB)\n` +
        `  prometheus:              ${series.length} series on one worker, ${fmt(scopeSeries.length / scopesTotal, 2)} per scope\n` +
        `  peak RSS:                scheduler ${fmt(peakRssMb(scheduler.child.pid!))} MB, workers ${workers.map((w) => fmt(peakRssMb(w.child.pid!))).join(' / ')} MB, emulator (bench process) ${fmt(peakRssMb('self'))} MB\n`,
    );
    for (const child of processes) await child.stop('SIGTERM');
  } finally {
    for (const child of processes) await child.stop('SIGKILL').catch(() => undefined);
    redisClient.disconnect();
    await warehouse.close();
    await redis.stop();
    await emulator.close();
    await database.drop();
  }
}

await main();
