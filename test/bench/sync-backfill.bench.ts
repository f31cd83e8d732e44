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
import { readFileSync } from 'node:fs';
import { measureBackfill } from './measure-backfill.js';

const EVENTS = 1_000_000;
const DAYS = 30;
const TARGET_EVENTS_PER_SECOND = 20_000;
const TARGET_PEAK_RSS_MIB = 300;

const fmt = (value: number): string => Math.round(value).toLocaleString('en-US');

/** Quotes the earlier benchmarks' rows from docs/benchmarks.md, for comparison. */
function earlierFigures(): string[] {
  const page = readFileSync(new URL('../../docs/benchmarks.md', import.meta.url), 'utf8');
  const rows = page.split('\n').filter((line) => /^\| `(emulator-pages|warehouse-upsert)`/.test(line));
  return rows.length > 0 ? rows.map((row) => `  ${row}`) : ['  see docs/benchmarks.md (emulator-pages, warehouse-upsert)'];
}

async function main(): Promise<void> {
  const run = await measureBackfill({ eventsPerScope: EVENTS, scopes: 1, days: DAYS, seed: 1 });
  const how = run.built ? 'built CLI' : 'through tsx';
  const atShare = (share: number): string => {
    const mark = run.marks.find((m) => m.rows >= share * run.events);
    return mark ? `${mark.rssMiB} MiB at ${mark.seconds.toFixed(0)} s` : 'at exit';
  };
  const rssOverProgress = [0.25, 0.5, 0.75, 1].map((share) => `${share * 100}%: ${atShare(share)}`).join(', ');
  console.log(`warehouse holds all ${fmt(run.events)} events of the scope, each once, none rejected`);
  console.log(`seconds:           ${run.seconds.toFixed(1)} (backfill process, ${how}; Node start and migrations check included)`);
  console.log(`events/s:          ${fmt(run.eventsPerSecond)} (target >= ${fmt(TARGET_EVENTS_PER_SECOND)})`);
  console.log(
    `peak RSS:          ${run.peakRssMiB} MiB, reached at ${run.peakAtSeconds.toFixed(1)} s (target < ${TARGET_PEAK_RSS_MIB} MiB)`,
  );
  console.log(`RSS over progress: ${rssOverProgress}`);
  console.log(
    `CPU seconds:       backfill ${run.cpu.backfill.toFixed(1)}, emulator ${run.cpu.emulator.toFixed(1)}, ` +
      `PostgreSQL backends ${run.cpu.postgres.toFixed(1)} (of ${(2 * run.seconds).toFixed(0)} available on 2 cores)`,
  );
  console.log(
    `machine CPU:       ${run.machine.busy.toFixed(0)}% busy (every process, this one and PostgreSQL's own included), ` +
      `${run.machine.iowait.toFixed(0)}% waiting on I/O, ${run.machine.idle.toFixed(0)}% idle`,
  );
  console.log('earlier benchmarks (docs/benchmarks.md), for comparison:');
  for (const line of earlierFigures()) console.log(line);
  console.log(
    `FIGURE sync-backfill: ${fmt(run.events)} events of one scope in ${run.seconds.toFixed(1)} s = ${fmt(run.eventsPerSecond)} events/s ` +
      `(${how}); backfill peak RSS ${run.peakRssMiB} MiB; RSS at ${rssOverProgress}`,
  );
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
