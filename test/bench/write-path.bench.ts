/**
 * The write path, stage by stage, on the same pages (1,000,000 emulator events by default,
 * WRITE_PATH_EVENTS to change): the mirror's CPU per event for each stage after HTTP (JSON parse and
 * list check, event validation, row mapping, serialisation to statement parameters) beside the bare
 * `JSON.parse` floor of the same bytes; and PostgreSQL's CPU per event (the backend's, from /proc)
 * for the mirror's upsert beside a `COPY` of the same rows into an identical table with the same
 * indexes (events only: the floor), and beside a candidate path (COPY into a temporary staging table,
 * then INSERT … SELECT … ON CONFLICT into events and into event_scopes, as the upsert writes both). Pages alternate between the three so load from elsewhere hits them alike.
 * 127.0.0.1 only. Run: npx tsx test/bench/write-path.bench.ts
 */
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { sql } from 'kysely';
import pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { parseListBody } from '../../src/api/validate.js';
import { Dataset } from '../../src/emulator/dataset.js';
import { validateEvents } from '../../src/events/validate-event.js';
import type { ValidEvent } from '../../src/events/types.js';
import { parseScope } from '../../src/scope.js';
import { createWarehouse } from '../../src/warehouse/database.js';
import { EVENT_ROW_COLUMNS, toColumnParameters, toEventRow } from '../../src/warehouse/event-row.js';
import { upsertEvents } from '../../src/warehouse/events.repository.js';
import { migrateToLatest } from '../../src/warehouse/migrator.js';
import { createTestDatabase } from '../helpers/database.js';
import { COPY_COLUMNS, copyText } from './copy-rows.js';
import { cpuSecondsOf } from './bench-emulator.js';

const EVENTS = Number(process.env.WRITE_PATH_EVENTS ?? 1_000_000);
const PAGE = 500;
const GROUP = '5f1a00000000000000000d0e';
const SCOPE = `group:${GROUP}`;
const SCHEMA = 'events_mirror';
const NOW = Date.UTC(2026, 10, 20);

const fmt = (value: number, digits = 0) => value.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });

/** CPU milliseconds of this thread's synchronous work. */
function cpuMs<T>(work: () => T): [T, number] {
  const before = process.cpuUsage();
  const result = work();
  const used = process.cpuUsage(before);
  return [result, (used.user + used.system) / 1000];
}

async function backendPid(client: pg.Client): Promise<number> {
  return (await client.query<{ pid: number }>('select pg_backend_pid() as pid')).rows[0]!.pid;
}

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
  const warehouse = await createWarehouse({ url: database.url, schema: SCHEMA, dataDir: 'unused', poolSize: 1 });
  const copyClient = new pg.Client({ connectionString: database.url });
  const stageClient = new pg.Client({ connectionString: database.url });
  try {
    await migrateToLatest(warehouse);
    for (const table of ['events_copy', 'events_staged'])
      await sql`create table ${sql.id(table)} (like events including all)`.execute(warehouse.db);
    await sql`create table event_scopes_staged (like event_scopes including all)`.execute(warehouse.db);
    await copyClient.connect();
    await stageClient.connect();
    for (const client of [copyClient, stageClient]) await client.query(`set search_path to ${SCHEMA}`);
    await stageClient.query('create temp table stage (like events_staged including defaults) on commit delete rows');
    const upsertPid = Number((await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(warehouse.db)).rows[0]!.pid);
    const copyPid = await backendPid(copyClient);
    const stagePid = await backendPid(stageClient);
    const updates = EVENT_ROW_COLUMNS.filter((c) => c.name !== 'id')
      .map((c) => `"${c.name}" = excluded."${c.name}"`)
      .join(', ');
    const stagedInsert = `insert into events_staged (${COPY_COLUMNS}) select ${COPY_COLUMNS} from stage
      on conflict (id) do update set ${updates}, updated_at = excluded.updated_at
      where events_staged.payload is distinct from excluded.payload
      returning (xmax = 0) as inserted`;

    const scope = parseScope(SCOPE);
    const mirror = { floor: 0, list: 0, validate: 0, map: 0, serialise: 0, copyText: 0 };
    const postgres = { upsert: 0, copy: 0, staged: 0 };
    const wall = { upsert: 0, copy: 0, staged: 0 };
    let events = 0;
    let bytes = 0;
    const stamp = new Date(NOW).toISOString();
    for (let offset = 0; offset < EVENTS; offset += PAGE) {
      const page = dataset.query(SCOPE, { offset, limit: PAGE, includeRaw: false });
      const body = JSON.stringify({ links: [], results: page.results, totalCount: page.totalCount });
      bytes += Buffer.byteLength(body);
      mirror.floor += cpuMs(() => JSON.parse(body) as unknown)[1];
      const [list, listMs] = cpuMs(() => {
        const parsed = parseListBody(JSON.parse(body));
        if (!parsed.ok) throw new Error(parsed.reason);
        return parsed.list;
      });
      mirror.list += listMs;
      const [checked, validateMs] = cpuMs(() => validateEvents(list.results));
      mirror.validate += validateMs;
      const valid: ValidEvent[] = checked.events;
      events += valid.length;
      const [rows, mapMs] = cpuMs(() => valid.map((e) => toEventRow(scope, e)));
      mirror.map += mapMs;
      mirror.serialise += cpuMs(() => toColumnParameters(rows))[1];
      const [text, textMs] = cpuMs(() => copyText(rows, stamp));
      mirror.copyText += textMs;

      let cpu = cpuSecondsOf(copyPid);
      let started = performance.now();
      await pipeline(Readable.from([text]), copyClient.query(copyFrom(`COPY events_copy (${COPY_COLUMNS}) FROM STDIN`)));
      wall.copy += performance.now() - started;
      postgres.copy += cpuSecondsOf(copyPid) - cpu;

      cpu = cpuSecondsOf(upsertPid);
      started = performance.now();
      await upsertEvents(warehouse.db, SCOPE, valid, new Date(NOW));
      wall.upsert += performance.now() - started;
      postgres.upsert += cpuSecondsOf(upsertPid) - cpu;

      cpu = cpuSecondsOf(stagePid);
      started = performance.now();
      await stageClient.query('begin');
      await pipeline(Readable.from([text]), stageClient.query(copyFrom(`COPY stage (${COPY_COLUMNS}) FROM STDIN`)));
      await stageClient.query(stagedInsert);
      // The upsert records each event's feed in event_scopes too; so must the candidate.
      await stageClient.query(
        'insert into event_scopes_staged (scope, event_id, created) select scope, id, created from stage on conflict do nothing',
      );
      await stageClient.query('commit');
      wall.staged += performance.now() - started;
      postgres.staged += cpuSecondsOf(stagePid) - cpu;
    }
    const counts = await sql<{ events: string; copied: string; staged: string }>`select
      (select count(*) from events) as events, (select count(*) from events_copy) as copied, (select count(*) from events_staged) as staged`.execute(
      warehouse.db,
    );
    const held = counts.rows[0]!;
    if ([held.events, held.copied, held.staged].some((n) => Number(n) !== events))
      throw new Error(`row counts differ: ${JSON.stringify(held)}`);

    const perEvent = (ms: number) => (1000 * ms) / events; // µs
    const mirrorTotal = mirror.list + mirror.validate + mirror.map + mirror.serialise;
    console.log(`${fmt(events)} events in ${fmt(events / PAGE)} pages of ${PAGE} (${fmt(bytes / events)} bytes an event as served)`);
    console.log('mirror CPU per event (µs), after HTTP:');
    console.log(`  JSON.parse of the page bytes (floor)       ${fmt(perEvent(mirror.floor), 2)}`);
    console.log(`  parse + list check                         ${fmt(perEvent(mirror.list), 2)}`);
    console.log(`  event validation                           ${fmt(perEvent(mirror.validate), 2)}`);
    console.log(`  row mapping                                ${fmt(perEvent(mirror.map), 2)}`);
    console.log(`  serialisation to statement parameters      ${fmt(perEvent(mirror.serialise), 2)}`);
    console.log(
      `  total                                      ${fmt(perEvent(mirrorTotal), 2)} = ${(mirrorTotal / mirror.floor).toFixed(2)} x floor (target <= 2)`,
    );
    console.log(`  (COPY text for the same rows, for reference ${fmt(perEvent(mirror.copyText), 2)})`);
    console.log('PostgreSQL backend CPU per event (µs), and wall rows/s:');
    const pgLine = (name: string, cpuSeconds: number, wallMs: number) =>
      `  ${name.padEnd(50)}${fmt((1e6 * cpuSeconds) / events, 1)} µs = ${(cpuSeconds / postgres.copy).toFixed(2)} x COPY; ${fmt(events / (wallMs / 1000))} rows/s`;
    console.log(pgLine('COPY into an identical table (floor)', postgres.copy, wall.copy));
    console.log(pgLine('upsert (unnest arrays, ON CONFLICT)', postgres.upsert, wall.upsert));
    console.log(pgLine('COPY to staging + INSERT … SELECT (+event_scopes)', postgres.staged, wall.staged));
    console.log(
      `FIGURE write-path: mirror ${(mirrorTotal / mirror.floor).toFixed(2)} x JSON floor; PostgreSQL upsert ${(postgres.upsert / postgres.copy).toFixed(2)} x COPY CPU, ` +
        `staged ${(postgres.staged / postgres.copy).toFixed(2)} x COPY CPU`,
    );
  } finally {
    await copyClient.end().catch(() => undefined);
    await stageClient.end().catch(() => undefined);
    await warehouse.close();
    await database.drop();
  }
}

await main();
