/**
 * Push and pull on a fleet: one organization of PUSH_PROJECTS projects (1,000) whose live events
 * (PUSH_RATE per scope per second) the emulator pushes every PUSH_INTERVAL_MS (1,000) to a receiver
 * on PostgreSQL, for PUSH_SECONDS (60). It prints:
 * - the time from each event's creation to its row: the row's `ingested_at` minus the record's
 *   `timeUnixNano` (the event's `createdDate`; the emulator creates events on whole seconds, so the
 *   figure can exceed the true latency by up to a second, never fall short of it), p50, p99, max;
 * - the API requests of one poll of every scope, measured (`sync --once` after a first one), and
 *   per day: polling every 60 s (1,440 rounds) against the push set-up's hourly poll of pushed
 *   scopes (24 rounds). The scheduled reconcile (every 6 h) is the same in both and left out.
 * Run: npx tsx test/bench/push-pull.bench.ts
 */
import { sql } from 'kysely';
import { Registry } from 'prom-client';
import { startEmulator } from '../../src/emulator/server.js';
import { createLogger } from '../../src/logger.js';
import { createReceiverMetrics } from '../../src/receiver/receiver-metrics.js';
import { startReceiverServer } from '../../src/receiver/receiver-server.js';
import { createWarehouse } from '../../src/warehouse/database.js';
import { migrateToLatest } from '../../src/warehouse/migrator.js';
import { runCli, writeConfigFile } from '../helpers/cli.js';
import { createTestDatabase } from '../helpers/database.js';

const num = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
const PROJECTS = num('PUSH_PROJECTS', 1000);
const RATE = num('PUSH_RATE', 0.1);
const INTERVAL_MS = num('PUSH_INTERVAL_MS', 1000);
const SECONDS = num('PUSH_SECONDS', 60);
const TOKEN = 'bench-token-0123456789abcdef';
const fmt = (value: number, digits = 0) => value.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });

async function main(): Promise<void> {
  const database = await createTestDatabase();
  const warehouse = await createWarehouse({ url: database.url, schema: 'events_mirror', dataDir: 'unused', poolSize: 8 });
  try {
    await migrateToLatest(warehouse);
    const receiver = await startReceiverServer({
      host: '127.0.0.1',
      port: 0,
      token: TOKEN,
      maxBodyBytes: 64 * 1024 * 1024,
      maxPendingRequests: 64,
      retryAfterSeconds: 1,
      warehouse,
      logger: createLogger({ level: 'warn' }),
      metrics: createReceiverMetrics(new Registry()),
    });
    const org = '5f00000000000000000b0b01';
    const emulator = await startEmulator({
      host: '127.0.0.1',
      port: 0,
      seed: 3,
      orgs: [org],
      projectsPerOrg: PROJECTS,
      eventsPerScope: 0,
      days: 1,
      liveRatePerSecond: RATE,
      push: { url: receiver.url, token: TOKEN, intervalMs: INTERVAL_MS, dropRate: 0, duplicateRate: 0, maxAttempts: 8 },
    });
    await new Promise((resolve) => setTimeout(resolve, SECONDS * 1000));
    emulator.setLiveRate(0);
    await emulator.stopPush();
    const stats = emulator.pushStats()!;
    const latency = await sql<{ n: number; p50: number; p99: number; max: number }>`
      with l as (
        select extract(epoch from ingested_at) * 1000 - ((pushed->>'timeUnixNano')::numeric / 1000000) as ms from events
      )
      select count(*)::int as n, percentile_cont(0.5) within group (order by ms)::float8 as p50,
             percentile_cont(0.99) within group (order by ms)::float8 as p99, max(ms)::float8 as max from l`.execute(warehouse.db);
    const row = latency.rows[0]!;
    process.stdout.write(
      `${new Date().toISOString().slice(0, 10)}: ${fmt(PROJECTS)} projects + 1 org, ${RATE} events/s per scope for ${SECONDS} s, pushed every ${INTERVAL_MS} ms\n` +
        `  pushed ${fmt(stats.events)} events in ${fmt(stats.batches)} batches (${stats.failedBatches} failed); rows ${fmt(row.n)}\n` +
        `  creation to row: p50 ${fmt(row.p50)} ms, p99 ${fmt(row.p99)} ms, max ${fmt(row.max)} ms (target p99 < ${fmt(2 * INTERVAL_MS)} ms)\n`,
    );
    await receiver.close();

    const env = {
      EVENTS_API_BASE_URL: emulator.baseUrl,
      EVENTS_API_PUBLIC_KEY: emulator.keys[0]!.publicKey,
      EVENTS_API_PRIVATE_KEY: emulator.keys[0]!.privateKey,
      EVENTS_SCOPES: `org:${org}`,
      EVENTS_DISCOVER_PROJECTS: 'true',
      EVENTS_START_DATE: new Date(Date.now() - 3_600_000).toISOString(),
      DATABASE_URL: database.url,
      EVENTS_SYNC_CONCURRENCY: '8',
      EVENTS_MIRROR_CONFIG: writeConfigFile({ sync: { settleSeconds: 0 } }),
    };
    const first = await runCli(['sync', '--once'], env);
    if (first.code !== 0) throw new Error(`sync --once failed: ${first.stderr}`);
    const before = emulator.stats().requests;
    const second = await runCli(['sync', '--once'], env);
    if (second.code !== 0) throw new Error(`sync --once failed: ${second.stderr}`);
    const perRound = emulator.stats().requests - before;
    const pulled = await sql<{ n: number }>`select count(*)::int as n from events where source = 'pull'`.execute(warehouse.db);
    const polling = perRound * 1440;
    const pushed = perRound * 24;
    process.stdout.write(
      `  one poll of every scope: ${fmt(perRound)} API requests (${fmt(pulled.rows[0]!.n)} of ${fmt(row.n)} rows now pulled)\n` +
        `  per day: polling every 60 s ${fmt(polling)}, push with an hourly poll ${fmt(pushed)}: ${fmt(pushed / polling, 4)} (1/${fmt(polling / pushed)}; target ≤ 1/30)\n`,
    );
    await emulator.close();
  } finally {
    await warehouse.close();
    await database.drop();
  }
}

await main();
