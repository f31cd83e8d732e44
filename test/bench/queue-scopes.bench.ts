/**
 * 1,000 scopes polled by one worker process from an idle emulator (no events: one request per
 * scope per poll), driven by one scheduler process. Measures, over whole poll periods after every
 * scope has its first checkpoint: polls per second, worker and scheduler CPU (from /proc), Redis
 * commands per poll (INFO commandstats on a private redis-server) and API requests per poll.
 * Fresh database; 127.0.0.1 only. Run: npx tsx test/bench/queue-scopes.bench.ts
 */
import { readFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { startEmulator } from '../../src/emulator/server.js';
import { createWarehouse } from '../../src/warehouse/database.js';
import { migrateToLatest } from '../../src/warehouse/migrator.js';
import { writeConfigFile } from '../helpers/cli.js';
import { checkpointedScopes, createTestDatabase } from '../helpers/database.js';
import { freePort, sleep, startCli, startPrivateRedis, waitFor, type CliProcess } from '../helpers/queue-processes.js';

const SCOPES = 1000;
const POLL_SECONDS = 10;
const MEASURED_PERIODS = 3;
const CLOCK_TICKS = 100; // USER_HZ on Linux

/** User + system CPU of a process so far, in milliseconds. */
function cpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS;
}

const fmt = (value: number, digits = 0) => value.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });

async function main(): Promise<void> {
  const deadline = setTimeout(() => {
    process.stderr.write('queue-scopes bench: over its 2-minute bound, giving up\n');
    process.exit(1);
  }, 115_000);
  deadline.unref();

  const groups = Array.from({ length: SCOPES }, (_, i) => `6b${String(i).padStart(22, '0')}`);
  const emulator = await startEmulator({ port: 0, seed: 7, orgs: ['5f00000000000000000000b1'], groups, eventsPerScope: 0, days: 1 });
  const database = await createTestDatabase();
  const redis = await startPrivateRedis();
  const warehouse = await createWarehouse({ url: database.url, schema: 'events_mirror', dataDir: 'unused', poolSize: 2 });
  const processes: CliProcess[] = [];
  try {
    await migrateToLatest(warehouse);
    const key = emulator.keys[0]!;
    const env = {
      EVENTS_API_BASE_URL: emulator.baseUrl,
      EVENTS_API_PUBLIC_KEY: key.publicKey,
      EVENTS_API_PRIVATE_KEY: key.privateKey,
      EVENTS_SCOPES: groups.map((g) => `group:${g}`).join(','),
      EVENTS_START_DATE: new Date(Date.now() - 3600_000).toISOString(),
      EVENTS_POLL_INTERVAL_SECONDS: String(POLL_SECONDS),
      DATABASE_URL: database.url,
      REDIS_URL: redis.url,
      REDIS_PREFIX: `bench-${randomUUID().slice(0, 8)}`,
      METRICS_PORT: String(await freePort()),
      NODE_ENV: 'production',
      EVENTS_MIRROR_CONFIG: writeConfigFile({ sync: { settleSeconds: 1 } }),
    };
    const scheduler = startCli('scheduler', ['scheduler'], env);
    const worker = startCli('worker', ['worker'], env);
    processes.push(scheduler, worker);
    const db = warehouse.db;
    const checkpointed = () => checkpointedScopes(db);
    await waitFor('a first checkpoint for every scope', async () => (await checkpointed()) === SCOPES, 60_000, 500);
    await sleep(1_000);

    const polls = async (from: Date, to: Date) =>
      (
        await db
          .selectFrom('sync_runs')
          .select(sql<number>`count(*)::int`.as('n'))
          .where('mode', '=', 'poll')
          .where('finished_at', '>', from)
          .where('finished_at', '<=', to)
          .executeTakeFirstOrThrow()
      ).n;
    const startedAt = new Date();
    const cpu0 = { worker: cpuMs(worker.child.pid!), scheduler: cpuMs(scheduler.child.pid!) };
    const redis0 = await redis.commandStats();
    const requests0 = emulator.stats().requests;
    await sleep(MEASURED_PERIODS * POLL_SECONDS * 1000);
    const endedAt = new Date();
    const cpu1 = { worker: cpuMs(worker.child.pid!), scheduler: cpuMs(scheduler.child.pid!) };
    const redis1 = await redis.commandStats();
    const requests = emulator.stats().requests - requests0;
    const done = await polls(startedAt, endedAt);
    const seconds = (endedAt.getTime() - startedAt.getTime()) / 1000;

    const commands = new Map<string, number>();
    for (const [name, calls] of redis1) commands.set(name, calls - (redis0.get(name) ?? 0));
    commands.delete('info');
    const totalCommands = [...commands.values()].reduce((a, b) => a + b, 0);
    const top = [...commands.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, 8)
      .map(([name, n]) => `${name} ${fmt(n / done, 1)}`)
      .join(', ');

    process.stdout.write(
      `queue-scopes: ${SCOPES} scopes every ${POLL_SECONDS} s, one worker (concurrency 4), ${fmt(seconds)} s measured\n` +
        `  polls:     ${fmt(done)} (${fmt(done / seconds, 1)}/s; ${fmt((done / (SCOPES * seconds)) * POLL_SECONDS, 2)} per scope per period)\n` +
        `  worker:    ${fmt((cpu1.worker - cpu0.worker) / done, 2)} ms CPU per poll (${fmt(((cpu1.worker - cpu0.worker) / (seconds * 1000)) * 100)}% of one core)\n` +
        `  scheduler: ${fmt(cpu1.scheduler - cpu0.scheduler)} ms CPU in ${fmt(seconds)} s (${fmt(((cpu1.scheduler - cpu0.scheduler) / (seconds * 1000)) * 100, 2)}% of one core)\n` +
        `  redis:     ${fmt(totalCommands / done, 1)} commands per poll (${top})\n` +
        `  api:       ${fmt(requests / done, 2)} requests per poll\n`,
    );
    for (const child of processes) await child.stop('SIGTERM');
  } finally {
    for (const child of processes) await child.stop('SIGKILL').catch(() => undefined);
    await warehouse.close();
    await redis.stop();
    await emulator.close();
    await database.drop();
  }
}

await main();
