/**
 * End to end: `events-mirror backfill` of ONE 1,000,000-event scope from the emulator into a fresh
 * PostgreSQL database, both run as CLI processes. The backfill runs as the built bin does in
 * production (compiled by tsc into a temporary folder first): run through tsx, the same process
 * holds about 100 MiB more (tsx's loader thread and transpiled sources); SYNC_BACKFILL_TSX=1 runs it
 * that way. Measures the backfill process's wall time (events/s, Node start included), its RSS
 * every 100 ms from /proc (peak, and
 * at 25/50/75/100 % of the rows, to see whether memory grows with the range) and the CPU seconds of
 * the backfill, the emulator and the PostgreSQL backends serving the backfill. Then checks that the
 * warehouse holds every event of the scope. 127.0.0.1 only; stops by itself within 8 minutes.
 * Run: npx tsx test/bench/sync-backfill.bench.ts
 * Profile the backfill process: SYNC_BACKFILL_NODE_ARGS='--cpu-prof --cpu-prof-dir=/tmp/prof' npx tsx …
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Agent } from 'node:http';
import pg from 'pg';
import { PROJECT_ROOT, cliEnv, runCli, waitForExit, writeConfigFile } from '../helpers/cli.js';
import { createTestDatabase } from '../helpers/database.js';
import { BenchDigestClient, cpuSecondsOf, machineCpuTicks, memoryOf, startEmulatorProcess } from './bench-emulator.js';

const EVENTS = 1_000_000;
const GROUP = '5f1a00000000000000000b0c';
const SCOPE = `group:${GROUP}`;
const DAYS = 30;
const HARD_LIMIT_MS = 8 * 60_000;
const RSS_SAMPLE_MS = 100;
const PROGRESS_POLL_MS = 500;
const TARGET_EVENTS_PER_SECOND = 20_000;
const TARGET_PEAK_RSS_MIB = 300;

const fmt = (value: number): string => Math.round(value).toLocaleString('en-US');
const iso = (date: Date): string => date.toISOString().replace(/\.\d{3}Z$/, 'Z');

interface ProgressMark {
  readonly seconds: number;
  readonly rows: number;
  readonly rssMiB: number;
}

/** Live children, killed on any way out (error, hard limit, Ctrl-C) so nothing outlives the bench. */
const children = new Set<ChildProcess>();
const killChildren = (): void => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
};
process.on('exit', killChildren);
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    killChildren();
    process.exit(130);
  });
}

/** The emulator's own count of the scope's events over the range (totalCount of a one-item page). */
async function emulatorCount(baseUrl: string, user: string, password: string, from: Date, to: Date): Promise<number> {
  const agent = new Agent({ keepAlive: false });
  try {
    const url = `${baseUrl}/groups/${GROUP}/events?itemsPerPage=1&minDate=${iso(from)}&maxDate=${iso(to)}`;
    const body = JSON.parse(await new BenchDigestClient(agent, user, password).get(url)) as { totalCount: number };
    return body.totalCount;
  } finally {
    agent.destroy();
  }
}

/** Rows inserted into `events` so far, from the statistics collector: cheap, about a second behind. */
async function insertedRows(client: pg.Client): Promise<number> {
  const result = await client.query<{ n: string }>(
    `select coalesce(sum(n_tup_ins), 0) as n from pg_stat_user_tables where schemaname = 'events_mirror' and relname = 'events'`,
  );
  return Number(result.rows[0]?.n ?? 0);
}

async function backendPids(client: pg.Client, database: string): Promise<number[]> {
  const result = await client.query<{ pid: number }>('select pid from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()', [
    database,
  ]);
  return result.rows.map((row) => row.pid);
}

function tryRead<T>(read: () => T): T | undefined {
  try {
    return read();
  } catch {
    return undefined; // the process ended between two samples
  }
}

/**
 * The CLI compiled as `npm run build` does, into a temporary folder laid out like the project
 * (config/ and node_modules/ linked), so the measured process is the production one. tsc writes its
 * output even when a file elsewhere in the tree fails to typecheck; a missing cli.js is the failure.
 */
function buildCli(): { cli: string; remove: () => void } {
  const root = mkdtempSync(path.join(tmpdir(), 'em-bench-build-'));
  const remove = (): void => rmSync(root, { recursive: true, force: true });
  const tsc = path.join(PROJECT_ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
  const built = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.build.json', '--outDir', path.join(root, 'dist')], {
    cwd: PROJECT_ROOT,
    encoding: 'utf8',
  });
  const cli = path.join(root, 'dist', 'src', 'cli.js');
  if (!existsSync(cli)) {
    remove();
    throw new Error(`tsc did not build the CLI (exit ${built.status}): ${built.stdout}${built.stderr}`);
  }
  copyFileSync(path.join(PROJECT_ROOT, 'package.json'), path.join(root, 'package.json'));
  symlinkSync(path.join(PROJECT_ROOT, 'node_modules'), path.join(root, 'node_modules'));
  symlinkSync(path.join(PROJECT_ROOT, 'config'), path.join(root, 'config'));
  return { cli, remove };
}

/** Quotes the earlier benchmarks' rows from the README, for comparison. */
function earlierFigures(): string[] {
  const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
  const rows = readme.split('\n').filter((line) => line.startsWith('| Emulator: 500-event pages') || line.startsWith('| Warehouse upsert'));
  return rows.length > 0 ? rows.map((row) => `  ${row}`) : ['  see the README benchmark table (emulator-pages, warehouse-upsert)'];
}

async function main(): Promise<void> {
  const hardLimit = setTimeout(() => {
    console.error(`sync-backfill: still running after ${HARD_LIMIT_MS / 60_000} minutes: stopping`);
    killChildren();
  }, HARD_LIMIT_MS);
  hardLimit.unref();
  const emulatorProcess = startEmulatorProcess([
    '--group',
    GROUP,
    '--events-per-scope',
    String(EVENTS),
    '--days',
    String(DAYS),
    '--seed',
    '1',
  ]);
  children.add(emulatorProcess.child);
  const build = process.env.SYNC_BACKFILL_TSX === '1' ? undefined : buildCli();
  const database = await createTestDatabase().catch((error: unknown) => {
    build?.remove();
    throw error;
  });
  const monitor = new pg.Client({ connectionString: database.url });
  try {
    await monitor.connect();
    const emulator = await emulatorProcess.ready;
    const emulatorPid = emulatorProcess.child.pid as number;
    const to = new Date();
    const from = new Date(to.getTime() - (DAYS + 1) * 86_400_000);
    const expected = await emulatorCount(emulator.baseUrl, emulator.publicKey, emulator.privateKey, from, to);
    console.log(`emulator ready: ${fmt(expected)} events in ${SCOPE} from ${iso(from)} to ${iso(to)}`);

    const env = {
      NODE_ENV: 'production',
      LOG_LEVEL: 'warn',
      DATABASE_URL: database.url,
      EVENTS_API_BASE_URL: emulator.baseUrl,
      EVENTS_API_PUBLIC_KEY: emulator.publicKey,
      EVENTS_API_PRIVATE_KEY: emulator.privateKey,
      // The default budget (100 requests a minute per project) paces the real service; 2,000 pages here.
      EVENTS_MIRROR_CONFIG: writeConfigFile({ api: { requestsPerMinute: { group: 1_000_000, org: 1_000_000 } } }),
    };
    const migrated = await runCli(['migrate'], env);
    if (migrated.code !== 0) throw new Error(`migrate failed (${migrated.code}): ${migrated.stderr}`);

    const emulatorCpuBefore = cpuSecondsOf(emulatorPid);
    const machineBefore = machineCpuTicks();
    const started = performance.now();
    const nodeArgs = process.env.SYNC_BACKFILL_NODE_ARGS?.split(' ').filter(Boolean) ?? [];
    const cliArgs = build ? [build.cli] : ['--import', 'tsx', 'src/cli.ts'];
    const child = spawn(process.execPath, [...nodeArgs, ...cliArgs, 'backfill', '--scope', SCOPE, '--from', iso(from), '--to', iso(to)], {
      cwd: PROJECT_ROOT,
      env: cliEnv(env),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.add(child);
    const exited = waitForExit(child, HARD_LIMIT_MS);
    const pid = child.pid as number;

    let rssMiB = 0;
    let peakMiB = 0;
    let peakAtSeconds = 0;
    let backfillCpu = 0;
    let emulatorCpu = emulatorCpuBefore;
    const backendCpu = new Map<number, number>();
    const marks: ProgressMark[] = [];
    const rssTimer = setInterval(() => {
      const memory = tryRead(() => memoryOf(pid));
      if (!memory || memory.rssMiB === 0) return;
      rssMiB = memory.rssMiB;
      if (memory.peakMiB > peakMiB) peakAtSeconds = (performance.now() - started) / 1000;
      peakMiB = Math.max(peakMiB, memory.rssMiB, memory.peakMiB);
      backfillCpu = tryRead(() => cpuSecondsOf(pid)) ?? backfillCpu;
      emulatorCpu = tryRead(() => cpuSecondsOf(emulatorPid)) ?? emulatorCpu;
    }, RSS_SAMPLE_MS);
    let polling = true;
    const progress = (async () => {
      while (polling) {
        await new Promise((resolve) => setTimeout(resolve, PROGRESS_POLL_MS));
        const rows = await insertedRows(monitor);
        marks.push({ seconds: (performance.now() - started) / 1000, rows, rssMiB });
        for (const backend of await backendPids(monitor, database.name)) {
          const cpu = tryRead(() => cpuSecondsOf(backend));
          if (cpu !== undefined) backendCpu.set(backend, cpu);
        }
      }
    })();
    const result = await exited.finally(() => {
      clearInterval(rssTimer);
      polling = false;
    });
    const seconds = (performance.now() - started) / 1000;
    const machineAfter = machineCpuTicks();
    await progress;
    if (result.code !== 0) throw new Error(`backfill exited with ${result.code ?? result.signal}\n${result.stderr}`);
    process.stdout.write(`backfill: ${result.stdout}`);

    const counts = await monitor.query<{ events: string; distinct_ids: string; rejected: string }>(
      `select (select count(*) from events_mirror.events where scope = $1) as events,
              (select count(distinct id) from events_mirror.events where scope = $1) as distinct_ids,
              (select count(*) from events_mirror.rejected_events where scope = $1) as rejected`,
      [SCOPE],
    );
    const held = Number(counts.rows[0]?.events);
    const distinct = Number(counts.rows[0]?.distinct_ids);
    const rejected = Number(counts.rows[0]?.rejected);
    console.log(
      `warehouse holds ${fmt(held)} events (${fmt(distinct)} distinct ids) and ${fmt(rejected)} rejected for ${SCOPE}; the emulator serves ${fmt(expected)} (no malformed ones: --malformed-rate defaults to 0)`,
    );
    if (held !== expected || distinct !== expected || rejected !== 0)
      throw new Error("the warehouse does not hold exactly the emulator's events");

    const perSecond = held / seconds;
    const atShare = (share: number): string => {
      const mark = marks.find((m) => m.rows >= share * expected);
      return mark ? `${mark.rssMiB} MiB at ${mark.seconds.toFixed(0)} s` : `${rssMiB} MiB at exit`;
    };
    const rssOverProgress = [0.25, 0.5, 0.75, 1].map((share) => `${share * 100}%: ${atShare(share)}`).join(', ');
    const postgresCpu = [...backendCpu.values()].reduce((sum, cpu) => sum + cpu, 0);
    console.log(`events:            ${fmt(held)}`);
    console.log(
      `seconds:           ${seconds.toFixed(1)} (backfill process, ${build ? 'built CLI' : 'through tsx'}; Node start and migrations check included)`,
    );
    console.log(`events/s:          ${fmt(perSecond)} (target >= ${fmt(TARGET_EVENTS_PER_SECOND)})`);
    console.log(`peak RSS:          ${peakMiB} MiB, reached at ${peakAtSeconds.toFixed(1)} s (target < ${TARGET_PEAK_RSS_MIB} MiB)`);
    console.log(`RSS over progress: ${rssOverProgress}`);
    console.log(
      `CPU seconds:       backfill ${backfillCpu.toFixed(1)}, emulator ${(emulatorCpu - emulatorCpuBefore).toFixed(1)}, ` +
        `PostgreSQL backends ${postgresCpu.toFixed(1)} (of ${(2 * seconds).toFixed(0)} available on 2 cores)`,
    );
    const ticks = (key: 'busy' | 'idle' | 'iowait'): number => machineAfter[key] - machineBefore[key];
    const allTicks = ticks('busy') + ticks('idle') + ticks('iowait');
    console.log(
      `machine CPU:       ${((100 * ticks('busy')) / allTicks).toFixed(0)}% busy (every process, this one and PostgreSQL's own ` +
        `included), ${((100 * ticks('iowait')) / allTicks).toFixed(0)}% waiting on I/O, ${((100 * ticks('idle')) / allTicks).toFixed(0)}% idle`,
    );
    console.log('earlier benchmarks (README), for comparison:');
    for (const line of earlierFigures()) console.log(line);
    console.log(
      `FIGURE sync-backfill: ${fmt(held)} events of one scope in ${seconds.toFixed(1)} s = ${fmt(perSecond)} events/s ` +
        `(${build ? 'built CLI' : 'through tsx'}); ` +
        `backfill peak RSS ${peakMiB} MiB; RSS at ${rssOverProgress}`,
    );
  } finally {
    clearTimeout(hardLimit);
    killChildren();
    await monitor.end().catch(() => undefined);
    await database.drop();
    build?.remove();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
