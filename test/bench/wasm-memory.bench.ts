/**
 * What one page far larger than usual costs the process that syncs it, as a user pays it (issue 32,
 * item 12): `events-mirror sync --once` as the built CLI, a child process measured from outside
 * (wall clock, CPU seconds, peak and current RSS from /proc), syncing one scope from a plain HTTP
 * feed in this process that pages each window as the API does. In windows of 600 s: a 48 MB page of
 * 500 events (and 20 more events) in the first, then 7,500 usual events over the next two hours.
 * The feed holds back the second window until the first window's rows are in PostgreSQL, reading
 * the child's RSS 1 s and HOLD_MS later ("after the large page"), and the newest window until every
 * other row landed, reading it HOLD_MS later ("at the end"). HOLD_MS is 30 s: an idle process's
 * garbage is collected some 8 to 25 s after V8's last collection. Runs alternate (WASM_MEMORY_RUNS
 * rounds, default 2):
 * - `no large`: as shipped, the first page a usual one: what the same run holds without the large page;
 * - `given back`: as shipped: a module whose memory grew past WASM_MEMORY_KEPT_BYTES is instantiated again;
 * - `kept`: the same with `outgrewMemory` always false, as before that change (memory kept for good);
 * - `JavaScript`: no WebAssembly module at all: the JavaScript text scan and COPY encoder, the
 *   fallbacks the WebAssembly ones are tested against.
 * The last two are copies of the build with one module's compiled file replaced. Each run checks that
 * the warehouse holds every event. Wall clock less the two holds. 127.0.0.1 only. WASM_MEMORY_NODE_ARGS:
 * node flags for the child (e.g. --trace-gc; its output then goes to WASM_MEMORY_TRACE-<run>.txt).
 * Run: npx tsx test/bench/wasm-memory.bench.ts
 */
import { spawn } from 'node:child_process';
import { cpSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import pg from 'pg';
import { PROJECT_ROOT, cliEnv, runCli, waitForExit, writeConfigFile } from '../helpers/cli.js';
import { createTestDatabase } from '../helpers/database.js';
import { cpuSecondsOf, memoryOf } from './bench-emulator.js';
import { buildCli } from './measure-backfill.js';

const GROUP_ID = '5f1a00000000000000003212';
const PAGE = 500;
/** Window size of the run: the large page's window ends before the next one starts. */
const WINDOW_SECONDS = 600;
/** Bytes of the large field of each event on the large page: 500 of them make a 48 MB body. */
const LARGE_FIELD = 96_000;
/** Events after the large page's window, in windows of 600 s over the next 110 minutes. */
const USUAL_EVENTS = 7_500;
/** Events of the large page's window older than the large ones: its second page. */
const WINDOW_TAIL = 20;
const TOTAL = PAGE + WINDOW_TAIL + USUAL_EVENTS;
/** How long the feed holds back a request once the rows before it landed. */
const HOLD_MS = Number(process.env.WASM_MEMORY_HOLD_MS ?? 30_000);
/** When the RSS is read a first time during the first hold. */
const SOON_MS = 1_000;
const SAMPLE_MS = 50;
const ROUNDS = Number(process.env.WASM_MEMORY_RUNS ?? 2);

const fmt = (value: number, digits = 0) => value.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const apiDate = (ms: number) => new Date(ms).toISOString().replace('.000Z', 'Z');

interface FeedEvent {
  readonly created: number;
  readonly text: string;
}

/**
 * The feed's events, newest first, from `start` (a window boundary) to a minute ago: in the first
 * window, 500 large ones (or usual ones) newer than WINDOW_TAIL usual ones, so the large ones make
 * its first page; then the usual ones, none on a window boundary (which two windows share).
 */
function feedEvents(start: number, end: number, large: boolean): FeedEvent[] {
  const events: FeedEvent[] = [];
  const add = (index: number, created: number, big: boolean) => {
    const head =
      `{"id":"64f3${String(index).padStart(20, '0')}","created":"${apiDate(created)}","eventTypeName":"JOINED_GROUP",` +
      `"groupId":"${GROUP_ID}","orgId":"5f1a00000000000000000d00","username":"user${index % 97}@example.com"`;
    const words = `event ${index} notes, written at length: `;
    const text = big
      ? `${head},"notes":"${words.repeat(Math.ceil(LARGE_FIELD / words.length)).slice(0, LARGE_FIELD)}"}`
      : `${head},"remoteAddress":"10.0.${index % 250}.${index % 199}","isGlobalAdmin":false,"port":27017,"note":"${'usual '.repeat(40)}"}`;
    events.push({ created, text });
  };
  for (let i = 0; i < WINDOW_TAIL; i += 1) add(i, start + (10 + i) * 1000, false);
  for (let i = 0; i < PAGE; i += 1) add(WINDOW_TAIL + i, start + (120 + (i % 50)) * 1000, large);
  const from = start + (WINDOW_SECONDS + 10) * 1000;
  for (let i = 0; i < USUAL_EVENTS; i += 1) {
    let created = from + Math.floor((i * (end - from)) / USUAL_EVENTS / 1000) * 1000;
    if ((created / 1000) % WINDOW_SECONDS === 0) created += 1000;
    add(WINDOW_TAIL + PAGE + i, created, false);
  }
  return events.sort((a, b) => b.created - a.created);
}

interface Variant {
  readonly name: string;
  readonly cli: string;
  /** Whether the first page is the large one. */
  readonly large: boolean;
}

/** The three builds: the shipped one and two copies with one module each replaced. */
function variants(build: { root: string; cli: string }): Variant[] {
  const copy = (name: string, patch: (dist: string) => void): Variant => {
    const root = `${build.root}-${name}`;
    cpSync(build.root, root, { recursive: true, verbatimSymlinks: true });
    patch(path.join(root, 'dist', 'src'));
    return { name, cli: path.join(root, 'dist', 'src', 'cli.js'), large: true };
  };
  const replace = (file: string, from: string, to: string) => {
    const text = readFileSync(file, 'utf8');
    if (!text.includes(from)) throw new Error(`${file} holds no ${from}: the benchmark's patch needs updating`);
    writeFileSync(file, text.replace(from, to));
  };
  return [
    { name: 'no large', cli: build.cli, large: false },
    { name: 'given back', cli: build.cli, large: true },
    copy('kept', (dist) =>
      replace(
        path.join(dist, 'wasm-modules.js'),
        'export function outgrewMemory(name) {',
        'export function outgrewMemory(name) {\n    return false;',
      ),
    ),
    copy('JavaScript', (dist) => {
      writeFileSync(path.join(dist, 'api', 'result-spans.js'), 'export function wasmResultTexts() {\n    return undefined;\n}\n');
      writeFileSync(
        path.join(dist, 'warehouse', 'copy-lines.js'),
        [
          "import { copyRows } from './copy-text.js';",
          "import { eventRowValues } from './event-row.js';",
          'export function encodeCopyLines(scope, events, stamp) {',
          '    return { bytes: copyRows(events.map((event) => eventRowValues(scope, event)), stamp), writtenInJavaScript: events.length };',
          '}',
          'export function copyLines(scope, events, stamp) {',
          '    return encodeCopyLines(scope, events, stamp).bytes;',
          '}',
          '',
        ].join('\n'),
      );
    }),
  ];
}

interface RunFigures {
  readonly seconds: number;
  readonly cpu: number;
  readonly peakMiB: number;
  /** RSS SOON_MS and HOLD_MS after the first window's rows landed; HOLD_MS after all but the newest window's. */
  readonly afterLargeMiB: readonly [number, number];
  readonly endMiB: number;
}

async function main(): Promise<void> {
  // The first window of the run starts on a boundary two hours ago; the sync starts there.
  const start = Math.floor((Date.now() - 2 * 3_600_000) / (WINDOW_SECONDS * 1000)) * WINDOW_SECONDS * 1000;
  const end = Date.now() - 60_000;
  const feeds = { large: feedEvents(start, end, true), usual: feedEvents(start, end, false) };
  let events = feeds.large;
  const largePage = Buffer.byteLength(
    feeds.large
      .filter((e) => e.created >= start + 120_000 && e.created < start + 200_000)
      .map((e) => e.text)
      .join(','),
  );
  console.log(
    `one scope, windows of ${WINDOW_SECONDS} s: a ${fmt(largePage / 1e6, 1)} MB page of ${PAGE} events and ${WINDOW_TAIL} more in the first, ` +
      `then ${fmt(USUAL_EVENTS)} events (${fmt(Buffer.byteLength(feeds.usual[0]!.text))} bytes each) in the next ${Math.round((end - start) / 1000 / WINDOW_SECONDS) - 1}; ` +
      `RSS read ${SOON_MS / 1000} s and ${HOLD_MS / 1000} s after the first window's rows landed, and ${HOLD_MS / 1000} s after all ` +
      `but the last window's; ${ROUNDS} rounds`,
  );
  // Each gate holds back a request until `rows` rows are in the warehouse, reading the child's RSS
  // (at SOON_MS when asked) and at HOLD_MS.
  let gates = new Map<string, Promise<void>>();
  let child: { pid: number; rss: number[]; rows: () => Promise<number> } | undefined;
  const gate = (name: string, rows: number, soon: boolean): Promise<void> => {
    let held = gates.get(name);
    if (held === undefined) {
      held = (async () => {
        while ((await child!.rows()) < rows) await sleep(100);
        if (soon) {
          await sleep(SOON_MS);
          child!.rss.push(memoryOf(child!.pid).rssMiB);
        }
        await sleep(soon ? HOLD_MS - SOON_MS : HOLD_MS);
        child!.rss.push(memoryOf(child!.pid).rssMiB);
      })();
      gates.set(name, held);
    }
    return held;
  };
  // The API's paging over a window: minDate and maxDate inclusive, newest first, itemsPerPage a page.
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const query = new URL(req.url!, 'http://feed').searchParams;
    const minDate = Date.parse(query.get('minDate') ?? '1970-01-01T00:00:00Z');
    const maxDate = Date.parse(query.get('maxDate') ?? '2100-01-01T00:00:00Z');
    const pageNum = Number(query.get('pageNum') ?? 1);
    const itemsPerPage = Number(query.get('itemsPerPage') ?? PAGE);
    const inWindow = events.filter((e) => e.created >= minDate && e.created <= maxDate);
    // A later window waits for the first window's rows; the newest window for every other row.
    const held =
      pageNum !== 1 || minDate < start + WINDOW_SECONDS * 1000
        ? undefined
        : maxDate >= events[0]!.created
          ? gate('end', TOTAL - inWindow.length, false)
          : gate('after the large page', PAGE + WINDOW_TAIL, true);
    void (held ?? Promise.resolve()).then(() => {
      const page = inWindow.slice((pageNum - 1) * itemsPerPage, pageNum * itemsPerPage);
      res.setHeader('content-type', 'application/json');
      res.end(`{"links":[],"results":[${page.map((e) => e.text).join(',')}],"totalCount":${inWindow.length}}`);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/public/v1.0`;
  const build = buildCli();
  const builds = variants(build);
  const figures = new Map<string, RunFigures[]>(builds.map(({ name }) => [name, []]));
  try {
    for (let round = 0; round < ROUNDS; round += 1) {
      for (const variant of round % 2 === 0 ? builds : [...builds].reverse()) {
        const database = await createTestDatabase();
        const monitor = new pg.Client({ connectionString: database.url });
        try {
          await monitor.connect();
          const env = {
            NODE_ENV: 'production',
            LOG_LEVEL: 'warn',
            DATABASE_URL: database.url,
            EVENTS_API_BASE_URL: baseUrl,
            EVENTS_API_PUBLIC_KEY: 'public',
            EVENTS_API_PRIVATE_KEY: 'private',
            EVENTS_SCOPES: `group:${GROUP_ID}`,
            EVENTS_START_DATE: new Date(start).toISOString(),
            EVENTS_MIRROR_CONFIG: writeConfigFile({
              api: { requestsPerMinute: { group: 1_000_000, org: 1_000_000 } },
              sync: { windowSeconds: WINDOW_SECONDS },
            }),
          };
          const migrated = await runCli(['migrate'], env);
          if (migrated.code !== 0) throw new Error(`migrate failed (${migrated.code}): ${migrated.stderr}`);
          const rows = async () =>
            Number((await monitor.query<{ n: string }>('select count(*) as n from events_mirror.events')).rows[0]!.n);
          gates = new Map();
          events = variant.large ? feeds.large : feeds.usual;
          const started = performance.now();
          const nodeArgs = process.env.WASM_MEMORY_NODE_ARGS?.split(' ').filter(Boolean) ?? [];
          const sync = spawn(process.execPath, [...nodeArgs, variant.cli, 'sync', '--once'], {
            cwd: PROJECT_ROOT,
            env: cliEnv(env),
            stdio: ['ignore', 'pipe', 'pipe'],
          });
          child = { pid: sync.pid!, rss: [], rows };
          const exited = waitForExit(sync, 5 * 60_000);
          let cpu = 0;
          let peakMiB = 0;
          const sampler = setInterval(() => {
            try {
              cpu = cpuSecondsOf(sync.pid!);
              peakMiB = Math.max(peakMiB, memoryOf(sync.pid!).peakMiB);
            } catch {
              // the process ended between two samples
            }
          }, SAMPLE_MS);
          const result = await exited.finally(() => clearInterval(sampler));
          const seconds = (performance.now() - started) / 1000 - (2 * HOLD_MS) / 1000;
          if (result.code !== 0)
            throw new Error(`sync --once (${variant.name}) exited with ${result.code ?? result.signal}\n${result.stderr}`);
          if (process.env.WASM_MEMORY_TRACE)
            writeFileSync(`${process.env.WASM_MEMORY_TRACE}-${variant.name.replace(' ', '-')}.txt`, result.stdout);
          const held = await rows();
          if (held !== TOTAL) throw new Error(`the warehouse holds ${held} events of ${TOTAL} (${variant.name})`);
          const [soon = 0, late = 0, end = 0] = child.rss;
          const run: RunFigures = { seconds, cpu, peakMiB, afterLargeMiB: [soon, late], endMiB: end };
          figures.get(variant.name)!.push(run);
          console.log(
            `  ${variant.name.padEnd(10)} ${fmt(run.seconds, 1)} s, CPU ${fmt(run.cpu, 2)} s, peak RSS ${run.peakMiB} MiB, ` +
              `RSS after the large page ${run.afterLargeMiB[0]} / ${run.afterLargeMiB[1]} MiB, at the end ${run.endMiB} MiB`,
          );
        } finally {
          await monitor.end().catch(() => undefined);
          await database.drop();
        }
      }
    }
  } finally {
    server.close();
    for (const variant of builds)
      if (variant.cli !== build.cli) rmSync(path.resolve(variant.cli, '..', '..', '..'), { recursive: true, force: true });
    build.remove();
  }
  const range = (values: readonly number[], digits = 0) => {
    const low = Math.min(...values);
    const high = Math.max(...values);
    return low === high ? fmt(low, digits) : `${fmt(low, digits)}–${fmt(high, digits)}`;
  };
  console.log(
    `per build (range over the rounds): wall s | CPU s | peak RSS MiB | RSS ${SOON_MS / 1000} s / ${HOLD_MS / 1000} s after the large page | RSS at the end`,
  );
  const summary: string[] = [];
  for (const [name, runs] of figures) {
    const line =
      `${range(
        runs.map((r) => r.seconds),
        1,
      )} s | ${range(
        runs.map((r) => r.cpu),
        2,
      )} s | ${range(runs.map((r) => r.peakMiB))} | ` +
      `${range(runs.map((r) => r.afterLargeMiB[0]))} / ${range(runs.map((r) => r.afterLargeMiB[1]))} | ${range(runs.map((r) => r.endMiB))}`;
    console.log(`  ${name.padEnd(10)} ${line}`);
    summary.push(`${name} ${range(runs.map((r) => r.afterLargeMiB[1]))} / ${range(runs.map((r) => r.endMiB))} MiB`);
  }
  console.log(`FIGURE wasm-memory: RSS ${HOLD_MS / 1000} s after the large page / at the end: ${summary.join('; ')}`);
}

await main();
