/**
 * End-to-end measurements shared by the benchmarks: the emulator in its own process, a fresh
 * PostgreSQL database, and events-mirror as the built CLI (compiled by tsc into a temporary folder,
 * as `npm run build` does: run through tsx, the same process holds about 100 MiB more).
 * - `measureBackfill`: `events-mirror backfill` of one scope, its RSS every 100 ms (peak, and at
 *   25/50/75/100 % of the rows) and the CPU seconds of the backfill, the emulator and PostgreSQL.
 * - `measureWorkers`: `backfill --enqueue` of many scopes, then N `worker` processes against one
 *   PostgreSQL until every event is held: aggregate events/s and each side's CPU.
 * Each checks that the warehouse holds exactly the emulator's events. 127.0.0.1 only.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { copyFileSync, existsSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Agent } from 'node:http';
import pg from 'pg';
import { formatApiDate as iso } from '../../src/time.js';
import { PROJECT_ROOT, cliEnv, runCli, waitForExit, writeConfigFile } from '../helpers/cli.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { freePort, startPrivateRedis } from '../helpers/queue-processes.js';
import {
  BenchDigestClient,
  cpuSecondsOf,
  machineCpuTicks,
  memoryOf,
  startEmulatorProcess,
  type EmulatorStartLine,
} from './bench-emulator.js';

const HARD_LIMIT_MS = 8 * 60_000;
const RSS_SAMPLE_MS = 100;
const PROGRESS_POLL_MS = 500;

/** Live children, killed on any way out (error, hard limit, Ctrl-C) so nothing outlives a bench. */
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

export interface ProgressMark {
  readonly seconds: number;
  readonly rows: number;
  readonly rssMiB: number;
}

export interface BackfillMeasure {
  readonly events: number;
  readonly seconds: number;
  readonly eventsPerSecond: number;
  readonly peakRssMiB: number;
  readonly peakAtSeconds: number;
  readonly marks: readonly ProgressMark[];
  readonly cpu: { readonly backfill: number; readonly emulator: number; readonly postgres: number };
  /** Percent of the machine's CPU time: busy, waiting on I/O, idle. */
  readonly machine: { readonly busy: number; readonly iowait: number; readonly idle: number };
  readonly built: boolean;
}

export interface BackfillShape {
  readonly eventsPerScope: number;
  readonly scopes: number;
  readonly days: number;
  readonly seed: number;
}

/** The groups of a benchmark's emulator, one per scope. */
function benchGroups(count: number): string[] {
  return Array.from({ length: count }, (_, i) => `5f1a${String(i).padStart(20, '0')}`);
}

/** The emulator's own count of a group's events over the range (totalCount of a one-item page). */
async function emulatorCount(emulator: EmulatorStartLine, group: string, from: Date, to: Date): Promise<number> {
  const agent = new Agent({ keepAlive: false });
  try {
    const url = `${emulator.baseUrl}/groups/${group}/events?itemsPerPage=1&minDate=${iso(from)}&maxDate=${iso(to)}`;
    const body = JSON.parse(await new BenchDigestClient(agent, emulator.publicKey, emulator.privateKey).get(url)) as { totalCount: number };
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
export function buildCli(): { root: string; cli: string; remove: () => void } {
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
  return { root, cli, remove };
}

/** What every measurement sets up: emulator process, built CLI, fresh migrated database. */
interface Stage {
  readonly emulator: EmulatorStartLine;
  readonly emulatorPid: number;
  readonly database: TestDatabase;
  readonly monitor: pg.Client;
  readonly groups: readonly string[];
  readonly from: Date;
  readonly to: Date;
  readonly expected: number;
  readonly env: Record<string, string>;
  /** Node arguments that run the CLI: the built one, or src through tsx. */
  readonly cliArgs: readonly string[];
  readonly built: boolean;
}

async function withStage<T>(shape: BackfillShape, extraEnv: Record<string, string>, measure: (stage: Stage) => Promise<T>): Promise<T> {
  const hardLimit = setTimeout(() => {
    console.error(`bench: still running after ${HARD_LIMIT_MS / 60_000} minutes: stopping`);
    killChildren();
  }, HARD_LIMIT_MS);
  hardLimit.unref();
  const groups = benchGroups(shape.scopes);
  const emulatorProcess = startEmulatorProcess([
    ...groups.flatMap((group) => ['--group', group]),
    '--events-per-scope',
    String(shape.eventsPerScope),
    '--days',
    String(shape.days),
    '--seed',
    String(shape.seed),
  ]);
  children.add(emulatorProcess.child);
  const build = process.env.SYNC_BACKFILL_TSX === '1' ? undefined : buildCli();
  let database: TestDatabase | undefined;
  let monitor: pg.Client | undefined;
  try {
    database = await createTestDatabase();
    monitor = new pg.Client({ connectionString: database.url });
    await monitor.connect();
    const emulator = await emulatorProcess.ready;
    const to = new Date();
    const from = new Date(to.getTime() - (shape.days + 1) * 86_400_000);
    let expected = 0;
    for (const group of groups) expected += await emulatorCount(emulator, group, from, to);
    const env = {
      NODE_ENV: 'production',
      LOG_LEVEL: 'warn',
      DATABASE_URL: database.url,
      EVENTS_API_BASE_URL: emulator.baseUrl,
      EVENTS_API_PUBLIC_KEY: emulator.publicKey,
      EVENTS_API_PRIVATE_KEY: emulator.privateKey,
      // backfill --scope takes only a scope that is configured or already in the warehouse.
      EVENTS_SCOPES: groups.map((group) => `group:${group}`).join(','),
      // The default budget (100 requests a minute per project) paces the real service, not this one.
      EVENTS_MIRROR_CONFIG: writeConfigFile({ api: { requestsPerMinute: { group: 1_000_000, org: 1_000_000 } } }),
      ...extraEnv,
    };
    const migrated = await runCli(['migrate'], env);
    if (migrated.code !== 0) throw new Error(`migrate failed (${migrated.code}): ${migrated.stderr}`);
    const result = await measure({
      emulator,
      emulatorPid: emulatorProcess.child.pid as number,
      database,
      monitor,
      groups,
      from,
      to,
      expected,
      env,
      cliArgs: build ? [build.cli] : ['--import', 'tsx', 'src/cli.ts'],
      built: build !== undefined,
    });
    const counts = await monitor.query<{ events: string; distinct_ids: string; rejected: string }>(
      `select (select count(*) from events_mirror.events) as events, (select count(distinct id) from events_mirror.events) as distinct_ids,
              (select count(*) from events_mirror.rejected_events) as rejected`,
    );
    const { events, distinct_ids: distinctIds, rejected } = counts.rows[0]!;
    if (Number(events) !== expected || Number(distinctIds) !== expected || Number(rejected) !== 0)
      throw new Error(
        `the warehouse holds ${events} events (${distinctIds} distinct, ${rejected} rejected); the emulator serves ${expected}`,
      );
    return result;
  } finally {
    await monitor?.end().catch(() => undefined);
    clearTimeout(hardLimit);
    killChildren();
    children.clear();
    await database?.drop();
    build?.remove();
  }
}

interface Spawned {
  readonly child: ChildProcess;
  readonly pid: number;
  readonly exited: ReturnType<typeof waitForExit>;
}

/** Node flags for the spawned CLI from an environment variable (space-separated), e.g. `--cpu-prof`. */
function nodeArgsFrom(variable: string): string[] {
  return process.env[variable]?.split(' ').filter(Boolean) ?? [];
}

function spawnCli(
  stage: Stage,
  args: readonly string[],
  options: { nodeArgs?: readonly string[]; env?: Record<string, string> } = {},
): Spawned {
  const child = spawn(process.execPath, [...(options.nodeArgs ?? []), ...stage.cliArgs, ...args], {
    cwd: PROJECT_ROOT,
    env: cliEnv({ ...stage.env, ...options.env }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.add(child);
  return { child, pid: child.pid as number, exited: waitForExit(child, HARD_LIMIT_MS) };
}

/** Samples the processes' CPU and RSS and PostgreSQL's backends until `until` settles. */
async function sampleUntil<T>(
  stage: Stage,
  pids: readonly number[],
  until: Promise<T>,
): Promise<{
  result: T;
  seconds: number;
  peakRssMiB: number;
  peakAtSeconds: number;
  marks: ProgressMark[];
  cpu: { processes: number; emulator: number; postgres: number };
  machine: BackfillMeasure['machine'];
}> {
  const emulatorBefore = cpuSecondsOf(stage.emulatorPid);
  const machineBefore = machineCpuTicks();
  const started = performance.now();
  let rssMiB = 0;
  let peakRssMiB = 0;
  let peakAtSeconds = 0;
  const processCpu = new Map<number, number>();
  let emulatorCpu = emulatorBefore;
  const backendCpu = new Map<number, number>();
  const marks: ProgressMark[] = [];
  const rssTimer = setInterval(() => {
    let total = 0;
    for (const pid of pids) {
      const memory = tryRead(() => memoryOf(pid));
      if (memory && memory.rssMiB > 0) {
        total += memory.rssMiB;
        if (memory.peakMiB > peakRssMiB) peakAtSeconds = (performance.now() - started) / 1000;
        peakRssMiB = Math.max(peakRssMiB, memory.rssMiB, memory.peakMiB);
      }
      const cpu = tryRead(() => cpuSecondsOf(pid));
      if (cpu !== undefined) processCpu.set(pid, cpu);
    }
    if (total > 0) rssMiB = total;
    emulatorCpu = tryRead(() => cpuSecondsOf(stage.emulatorPid)) ?? emulatorCpu;
  }, RSS_SAMPLE_MS);
  let polling = true;
  const progress = (async () => {
    while (polling) {
      await new Promise((resolve) => setTimeout(resolve, PROGRESS_POLL_MS));
      const rows = await insertedRows(stage.monitor);
      marks.push({ seconds: (performance.now() - started) / 1000, rows, rssMiB });
      for (const backend of await backendPids(stage.monitor, stage.database.name)) {
        const cpu = tryRead(() => cpuSecondsOf(backend));
        if (cpu !== undefined) backendCpu.set(backend, cpu);
      }
    }
  })();
  const result = await until.finally(() => {
    clearInterval(rssTimer);
    polling = false;
  });
  const seconds = (performance.now() - started) / 1000;
  const machineAfter = machineCpuTicks();
  await progress;
  const ticks = (key: 'busy' | 'idle' | 'iowait'): number => machineAfter[key] - machineBefore[key];
  const allTicks = ticks('busy') + ticks('idle') + ticks('iowait');
  const total = (values: Iterable<number>) => [...values].reduce((a, b) => a + b, 0);
  return {
    result,
    seconds,
    peakRssMiB,
    peakAtSeconds,
    marks,
    cpu: { processes: total(processCpu.values()), emulator: emulatorCpu - emulatorBefore, postgres: total(backendCpu.values()) },
    machine: {
      busy: (100 * ticks('busy')) / allTicks,
      iowait: (100 * ticks('iowait')) / allTicks,
      idle: (100 * ticks('idle')) / allTicks,
    },
  };
}

/** `events-mirror backfill` of the emulator's scope(s), one CLI process per scope in turn (one scope: one process). */
export async function measureBackfill(shape: BackfillShape): Promise<BackfillMeasure> {
  if (shape.scopes !== 1) throw new Error('measureBackfill runs one scope; measureWorkers runs many');
  return withStage(shape, {}, async (stage) => {
    const nodeArgs = nodeArgsFrom('SYNC_BACKFILL_NODE_ARGS');
    const backfill = spawnCli(
      stage,
      ['backfill', '--scope', `group:${stage.groups[0]}`, '--from', iso(stage.from), '--to', iso(stage.to)],
      {
        nodeArgs,
      },
    );
    const sampled = await sampleUntil(stage, [backfill.pid], backfill.exited);
    if (sampled.result.code !== 0)
      throw new Error(`backfill exited with ${sampled.result.code ?? sampled.result.signal}\n${sampled.result.stderr}`);
    return {
      events: stage.expected,
      seconds: sampled.seconds,
      eventsPerSecond: stage.expected / sampled.seconds,
      peakRssMiB: sampled.peakRssMiB,
      peakAtSeconds: sampled.peakAtSeconds,
      marks: sampled.marks,
      cpu: { backfill: sampled.cpu.processes, emulator: sampled.cpu.emulator, postgres: sampled.cpu.postgres },
      machine: sampled.machine,
      built: stage.built,
    };
  });
}

export interface WorkersMeasure {
  readonly workers: number;
  readonly events: number;
  readonly seconds: number;
  readonly eventsPerSecond: number;
  readonly cpu: { readonly workers: number; readonly emulator: number; readonly postgres: number };
  readonly peakRssMiB: number;
  readonly machine: BackfillMeasure['machine'];
  /** From sync_runs: events the windows read (a re-read counts again), requests, runs that did not succeed. */
  readonly reads: { readonly events: number; readonly requests: number; readonly runsNotSucceeded: number };
}

/**
 * Every scope's range enqueued (`backfill --enqueue`), then `workers` worker processes started at
 * once; timed from the first window's start to the last one's end (sync_runs). CPU is sampled from
 * the workers' start to the end.
 */
export async function measureWorkers(shape: BackfillShape, workers: number): Promise<WorkersMeasure> {
  const redis = await startPrivateRedis();
  try {
    const extra = { REDIS_URL: redis.url, REDIS_PREFIX: `bench-${randomUUID().slice(0, 8)}` };
    return await withStage(shape, extra, async (stage) => {
      let windows = 0;
      for (const group of stage.groups) {
        const queued = await runCli(
          ['backfill', '--enqueue', '--scope', `group:${group}`, '--from', iso(stage.from), '--to', iso(stage.to)],
          stage.env,
        );
        if (queued.code !== 0) throw new Error(`backfill --enqueue failed (${queued.code}): ${queued.stderr}`);
        windows += Number(/ of (\d+) windows added/.exec(queued.stdout)?.[1] ?? NaN);
      }
      const processes: Spawned[] = [];
      const nodeArgs = nodeArgsFrom('WORKER_SCALING_NODE_ARGS');
      for (let n = 0; n < workers; n++)
        processes.push(spawnCli(stage, ['worker'], { nodeArgs, env: { METRICS_PORT: String(await freePort()) } }));
      // Done when every window has its succeeded run; timed by those runs (first start to last
      // finish), so the workers' own start is not counted as backfill time.
      const runs = async () =>
        (
          await stage.monitor.query<{ done: string; span: string | null }>(
            `select count(*) filter (where status = 'succeeded') as done, extract(epoch from max(finished_at) - min(started_at)) as span
             from events_mirror.sync_runs where mode = 'backfill'`,
          )
        ).rows[0]!;
      const allDone = (async () => {
        for (;;) {
          await new Promise((resolve) => setTimeout(resolve, 250));
          const progress = await runs();
          if (Number(progress.done) >= windows) return Number(progress.span);
          const ended = processes.find(({ child }) => child.exitCode !== null || child.signalCode !== null);
          if (ended) throw new Error(`a worker exited with ${ended.child.exitCode ?? ended.child.signalCode} before every window was done`);
        }
      })();
      const sampled = await sampleUntil(
        stage,
        processes.map(({ pid }) => pid),
        allDone,
      );
      for (const { child } of processes) child.kill('SIGTERM');
      await Promise.all(processes.map(({ exited }) => exited.catch(() => undefined)));
      const seconds = sampled.result;
      const reads = (
        await stage.monitor.query<{ events: string; requests: string; other: string }>(
          `select sum(events_seen) as events, sum(requests) as requests, count(*) filter (where status <> 'succeeded') as other
           from events_mirror.sync_runs where mode = 'backfill'`,
        )
      ).rows[0]!;
      return {
        workers,
        events: stage.expected,
        seconds,
        eventsPerSecond: stage.expected / seconds,
        cpu: { workers: sampled.cpu.processes, emulator: sampled.cpu.emulator, postgres: sampled.cpu.postgres },
        peakRssMiB: sampled.peakRssMiB,
        machine: sampled.machine,
        reads: { events: Number(reads.events), requests: Number(reads.requests), runsNotSucceeded: Number(reads.other) },
      };
    });
  } finally {
    await redis.stop();
  }
}
