/**
 * The write path, stage by stage, on the same pages (1,000,000 emulator events by default,
 * WRITE_PATH_EVENTS to change), then end to end, all in one run:
 * - the mirror's CPU per event for each stage after HTTP (JSON parse and list check, slicing each
 *   event's text out of the body, event validation, row mapping and the COPY bytes), beside the bare
 *   `JSON.parse` floor of the same bytes;
 * - PostgreSQL's CPU per event (the backend's, from /proc) for the mirror's page write (one
 *   transaction: lookup of the ids, COPY of the new events), beside a `COPY` of the same rows into
 *   an identical table with the same indexes (the floor) and beside the INSERT … ON CONFLICT
 *   statement alone (the embedded warehouse's path, in a second schema). Pages alternate between
 *   the three so load from elsewhere hits them alike. Then the same pages again, now all present;
 * - end to end: `events-mirror backfill` (built CLI) of the same number of events from the emulator
 *   in its own process, against the COPY rate measured above; then the same COPY again, as a check
 *   of how far the machine's speed drifted in between.
 * 127.0.0.1 only. Run: npx tsx test/bench/write-path.bench.ts
 */
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { sql } from 'kysely';
import pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { resultTexts } from '../../src/api/result-texts.js';
import { Dataset } from '../../src/emulator/dataset.js';
import { validateEvents } from '../../src/events/validate-event.js';
import { parseScope } from '../../src/scope.js';
import { COPY_ROW_COLUMNS, copyRows } from '../../src/warehouse/copy-text.js';
import { createWarehouse, type Warehouse } from '../../src/warehouse/database.js';
import { eventRowValues } from '../../src/warehouse/event-row.js';
import { upsertEvents, upsertEventsInOneStatement, type UpsertCounts } from '../../src/warehouse/events.repository.js';
import { migrateToLatest } from '../../src/warehouse/migrator.js';
import { createTestDatabase } from '../helpers/database.js';
import { cpuSecondsOf } from './bench-emulator.js';
import { cpuMs } from './cpu-time.js';
import { javaScriptEncoderMirrorMs, mirrorMs, mirrorStages, noStageMs, pageBody } from './mirror-stages.js';
import { measureBackfill } from './measure-backfill.js';

const EVENTS = Number(process.env.WRITE_PATH_EVENTS ?? 1_000_000);
const PAGE = 500;
const GROUP = '5f1a00000000000000000d0e';
const SCOPE = `group:${GROUP}`;
const NOW = Date.UTC(2026, 10, 20);

/** A ratio against its target, to three decimals so that rounding never decides the verdict. */
const verdict = (ratio: number, of: string, target: number, atMost: boolean) =>
  `${ratio.toFixed(3)} x ${of} (target ${atMost ? '<=' : '>='} ${target}: ${(atMost ? ratio <= target : ratio >= target) ? 'met' : 'not met'})`;
const fmt = (value: number, digits = 0) => value.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });

async function backendPid(db: Warehouse['db']): Promise<number> {
  return Number((await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(db)).rows[0]!.pid);
}

/** Backend CPU seconds and wall milliseconds of `work`, added to `into`. */
async function measured<T>(pid: number, into: { cpu: number; wall: number }, work: () => Promise<T>): Promise<T> {
  const cpu = cpuSecondsOf(pid);
  const started = performance.now();
  const result = await work();
  into.wall += performance.now() - started;
  into.cpu += cpuSecondsOf(pid) - cpu;
  return result;
}

const sum = (a: UpsertCounts, b: UpsertCounts): UpsertCounts => ({
  inserted: a.inserted + b.inserted,
  changed: a.changed + b.changed,
  unchanged: a.unchanged + b.unchanged,
});

async function main(): Promise<void> {
  const dataset = new Dataset({
    seed: 3,
    orgs: ['5f1a00000000000000000d00'],
    groups: [GROUP],
    eventsPerScope: EVENTS,
    days: 30,
    malformedRate: 0,
    now: () => NOW,
    baseUrl: 'http://127.0.0.1:1/api/public/v1.0',
  });
  const database = await createTestDatabase();
  // One connection each, so each path's backend is one process to read the CPU of.
  const mirror = await createWarehouse({ url: database.url, schema: 'events_mirror', dataDir: 'unused', poolSize: 1 });
  const statement = await createWarehouse({ url: database.url, schema: 'statement_path', dataDir: 'unused', poolSize: 1 });
  const copyClient = new pg.Client({ connectionString: database.url });
  try {
    await migrateToLatest(mirror);
    await migrateToLatest(statement);
    await sql`create table events_copy (like events including all)`.execute(mirror.db);
    await copyClient.connect();
    await copyClient.query('set search_path to events_mirror');
    const pids = { mirror: await backendPid(mirror.db), statement: await backendPid(statement.db), copy: 0 };
    pids.copy = Number((await copyClient.query<{ pid: number }>('select pg_backend_pid() as pid')).rows[0]!.pid);
    const copyStatement = `COPY events_copy (${COPY_ROW_COLUMNS.map((c) => `"${c}"`).join(', ')}) FROM STDIN`;
    /** The floor: one page's COPY bytes into the identical table, its cost added to `into`. */
    const copyPage = (text: Buffer, into: { cpu: number; wall: number }) =>
      measured(pids.copy, into, () => pipeline(Readable.from([text]), copyClient.query(copyFrom(copyStatement))));

    const scope = parseScope(SCOPE);
    const stages = { floor: 0, ...noStageMs() };
    const fresh = { copy: { cpu: 0, wall: 0 }, mirror: { cpu: 0, wall: 0 }, statement: { cpu: 0, wall: 0 } };
    const again = { mirror: { cpu: 0, wall: 0 }, statement: { cpu: 0, wall: 0 } };
    const counts = { first: { inserted: 0, changed: 0, unchanged: 0 }, second: { inserted: 0, changed: 0, unchanged: 0 } };
    let events = 0;
    let bytes = 0;
    const stamp = new Date(NOW);
    for (let offset = 0; offset < EVENTS; offset += PAGE) {
      const body = pageBody(dataset, SCOPE, offset, PAGE);
      bytes += Buffer.byteLength(body);
      stages.floor += cpuMs(() => JSON.parse(body) as unknown)[1];
      const { valid, copied: text } = mirrorStages(scope, body, stamp.toISOString(), stages);
      events += valid.length;

      await copyPage(text, fresh.copy);
      counts.first = sum(counts.first, await measured(pids.mirror, fresh.mirror, () => upsertEvents(mirror.db, SCOPE, valid, stamp)));
      await measured(pids.statement, fresh.statement, () => upsertEventsInOneStatement(statement.db, SCOPE, valid, stamp));
    }
    // The same pages again, regenerated: a million parsed events would not fit the heap at once.
    const validEventsAt = (offset: number) => {
      const { results } = dataset.query(SCOPE, { offset, limit: PAGE, includeRaw: false });
      return validateEvents(results, resultTexts(JSON.stringify({ results }))).events;
    };
    for (let offset = 0; offset < EVENTS; offset += PAGE) {
      const valid = validEventsAt(offset);
      counts.second = sum(counts.second, await measured(pids.mirror, again.mirror, () => upsertEvents(mirror.db, SCOPE, valid, stamp)));
      await measured(pids.statement, again.statement, () => upsertEventsInOneStatement(statement.db, SCOPE, valid, stamp));
    }
    const held = await sql<{ mirror: string; statement: string; copied: string }>`select
      (select count(*) from events_mirror.events) as mirror, (select count(*) from statement_path.events) as statement,
      (select count(*) from events_mirror.events_copy) as copied`.execute(mirror.db);
    const rowCounts = held.rows[0]!;
    if ([rowCounts.mirror, rowCounts.statement, rowCounts.copied].some((n) => Number(n) !== events))
      throw new Error(`row counts differ: ${JSON.stringify(rowCounts)}`);
    if (counts.first.inserted !== events || counts.second.unchanged !== events)
      throw new Error(`the page writes counted ${JSON.stringify(counts)} for ${events} events`);

    const perEvent = (ms: number) => (1000 * ms) / events; // µs
    const mirrorTotal = mirrorMs(stages);
    const mirrorRatio = mirrorTotal / stages.floor;
    const javaScriptEncoderTotal = javaScriptEncoderMirrorMs(stages);
    console.log(`${fmt(events)} events in ${fmt(events / PAGE)} pages of ${PAGE} (${fmt(bytes / events)} bytes an event as served)`);
    console.log('mirror CPU per event (µs), after HTTP:');
    console.log(`  JSON.parse of the page bytes (floor)       ${fmt(perEvent(stages.floor), 2)}`);
    console.log(`  parse + list check                         ${fmt(perEvent(stages.list), 2)}`);
    console.log(`  each event's text sliced from the body     ${fmt(perEvent(stages.texts), 2)}`);
    console.log(`  event validation                           ${fmt(perEvent(stages.validate), 2)}`);
    console.log(`  COPY lines (WebAssembly), the bytes sent   ${fmt(perEvent(stages.copyLines), 2)}`);
    console.log(
      `  total                                      ${fmt(perEvent(mirrorTotal), 2)} = ${verdict(mirrorRatio, 'floor', 2, true)}`,
    );
    console.log(
      `  for comparison, the JavaScript encoder: row mapping ${fmt(perEvent(stages.rows), 2)} + COPY rows ${fmt(perEvent(stages.copyText), 2)}; ` +
        `the mirror with it ${fmt(perEvent(javaScriptEncoderTotal), 2)} = ${(javaScriptEncoderTotal / stages.floor).toFixed(3)} x floor; ` +
        `${fmt(stages.writtenInJavaScript)} events left to it by the WebAssembly encoder`,
    );
    console.log('PostgreSQL backend CPU per event (µs), and wall rows/s:');
    const line = (name: string, path: { cpu: number; wall: number }) =>
      `  ${name.padEnd(54)}${fmt((1e6 * path.cpu) / events, 1)} µs = ${(path.cpu / fresh.copy.cpu).toFixed(2)} x COPY; ${fmt(events / (path.wall / 1000))} rows/s`;
    console.log(line('COPY into an identical table (floor)', fresh.copy));
    console.log(line("new events: the mirror's page write (lookup + COPY)", fresh.mirror));
    console.log(line('new events: INSERT … ON CONFLICT statement alone', fresh.statement));
    console.log(line("present, unchanged: the mirror's page write", again.mirror));
    console.log(line('present, unchanged: the statement alone', again.statement));

    const pageWriteRatio = fresh.mirror.cpu / fresh.copy.cpu;
    console.log(`the mirror's page write, new events: ${verdict(pageWriteRatio, "COPY's CPU", 1.3, true)}`);
    const copyRate = events / (fresh.copy.wall / 1000);
    const endToEnd = await measureBackfill({ eventsPerScope: EVENTS, scopes: 1, days: 30, seed: 3 });
    const endToEndRatio = endToEnd.eventsPerSecond / copyRate;
    console.log(
      `end to end: backfill of ${fmt(endToEnd.events)} events in ${endToEnd.seconds.toFixed(1)} s = ${fmt(endToEnd.eventsPerSecond)} events/s ` +
        `= ${verdict(endToEndRatio, 'the COPY rate', 0.75, false)}; peak RSS ${endToEnd.peakRssMiB} MiB; ` +
        `CPU s: backfill ${endToEnd.cpu.backfill.toFixed(1)}, emulator ${endToEnd.cpu.emulator.toFixed(1)}, PostgreSQL ${endToEnd.cpu.postgres.toFixed(1)}`,
    );
    // The COPY floor again, right after the backfill and by the same method: this machine's speed
    // drifts from one minute to the next, and the ratio above divides rates taken minutes apart.
    await copyClient.query('truncate events_copy');
    const copyAfter = { cpu: 0, wall: 0 };
    for (let offset = 0; offset < EVENTS; offset += PAGE) {
      const text = copyRows(
        validEventsAt(offset).map((e) => eventRowValues(scope, e)),
        stamp.toISOString(),
      );
      await copyPage(text, copyAfter);
    }
    const copyRateAfter = events / (copyAfter.wall / 1000);
    console.log(
      `drift check: the same COPY right after the backfill ran at ${fmt(copyRateAfter)} rows/s (${(copyRateAfter / copyRate).toFixed(2)} x the rate above); ` +
        `the backfill against it: ${(endToEnd.eventsPerSecond / copyRateAfter).toFixed(3)} x`,
    );
    console.log(
      `FIGURE write-path: mirror ${mirrorRatio.toFixed(3)} x JSON floor (JavaScript encoder ${(javaScriptEncoderTotal / stages.floor).toFixed(3)} x); PostgreSQL page write ${pageWriteRatio.toFixed(3)} x COPY CPU ` +
        `(statement ${(fresh.statement.cpu / fresh.copy.cpu).toFixed(2)} x); end to end ${endToEndRatio.toFixed(3)} x COPY rate`,
    );
  } finally {
    await copyClient.end().catch(() => undefined);
    await mirror.close();
    await statement.close();
    await database.drop();
  }
}

await main();
