/**
 * `events-mirror sql` (issue 37) as a user runs it, a CLI child against the real PostgreSQL and an
 * embedded warehouse (a copy of the run's migrated one), both holding three events synced over
 * HTTP, one with an escape sequence in its type: a select prints a table (control characters
 * escaped), CSV and JSON; insert, update, delete, drop and a select followed by a delete are
 * refused with exit 2 and change nothing; a failing statement exits 1 with PostgreSQL's message;
 * on the embedded warehouse the example queries of docs/warehouse.md run unqualified. Issue 43's
 * corpus of write attempts (test/helpers/write-attempts.ts: READ WRITE spelled with comments and
 * Unicode escapes, COPY TO the events table's own file, ALTER SYSTEM, SET ROLE, set_config, lo_*,
 * data-modifying CTEs, PREPARE, DO…) is refused with exit 2 on both warehouses and changes nothing;
 * the warehouse opens afterwards with every event.
 */
import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, type CliResult } from '../helpers/cli.js';
import { readDoc } from '../helpers/markdown.js';
import { startStubFeedSync, syncThroughStub, type StubFeedSync } from '../helpers/stub-feed.js';
import { WAREHOUSE_FINGERPRINT_SQL, writeAttempts } from '../helpers/write-attempts.js';

const GROUP = 'group:6a0000000000000000000375';
const created = new Date(Math.floor(Date.now() / 1000 - 3600) * 1000).toISOString().replace('.000Z', 'Z');
const EVENTS = [
  { id: '64cc000000000000000003a1', created, eventTypeName: 'CLUSTER_CREATED', groupId: GROUP.slice(6) },
  { id: '64cc000000000000000003a2', created, eventTypeName: 'RED\u001b[31mTYPE', groupId: GROUP.slice(6) },
  { id: '64cc000000000000000003a3', created, eventTypeName: 'a,"quoted"\nline', groupId: GROUP.slice(6) },
];

/** The select … from events statements and views of docs/warehouse.md's SQL blocks. */
function documentedQueries(): string[] {
  const blocks = [...readDoc('docs/warehouse.md').matchAll(/```sql\n([\s\S]*?)```/g)].map((m) => m[1]!);
  return blocks
    .join('\n')
    .split(/;\s*\n/)
    .map((s) => s.trim())
    .filter((s) => /^select\b/i.test(s));
}

describe.each(['postgres', 'pglite'] as const)('sql on %s', { timeout: 300_000 }, (kind) => {
  let stub: StubFeedSync;
  let env: Record<string, string>;
  const sql = (...args: string[]): Promise<CliResult> => runCli(['sql', ...args], env);
  /** The warehouse's event types in id order: the three synced ones, each as sent, while nothing changed. */
  const typesNow = async () => {
    const result = await sql('--json', 'select event_type_name from events order by id');
    expect(result.code, result.stderr).toBe(0);
    return JSON.parse(result.stdout) as unknown;
  };
  const SYNCED_TYPES = EVENTS.map((e) => ({ event_type_name: e.eventTypeName }));

  beforeAll(async () => {
    stub = await startStubFeedSync(kind, [GROUP], () => EVENTS);
    const result = await syncThroughStub(stub, GROUP);
    expect(result.status).toBe('succeeded');
    // The embedded warehouse is one process's at a time: the CLI children need it.
    await stub.runtime.warehouse.close();
    env = kind === 'postgres' ? { DATABASE_URL: stub.config.database.url! } : { EVENTS_MIRROR_DATA_DIR: stub.config.database.dataDir };
  });

  afterAll(async () => {
    await stub?.close();
  });

  it('prints a table with control characters escaped, CSV and JSON', async () => {
    const query = 'select id, event_type_name, created from events order by id';
    const table = await sql(query);
    expect(table.code, table.stderr).toBe(0);
    const lines = table.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^id\s+event_type_name\s+created$/);
    expect(lines[2]).toContain('64cc000000000000000003a1  CLUSTER_CREATED');
    expect(table.stdout).toContain('RED\\x1b[31mTYPE');
    expect(table.stdout).toContain('a,"quoted"\\nline');
    expect(table.stdout).not.toContain('\u001b');
    expect(lines.at(-1)).toBe('(3 rows)');

    const csv = await sql('--csv', query);
    expect(csv.code, csv.stderr).toBe(0);
    expect(csv.stdout).toBe(
      'id,event_type_name,created\r\n' +
        `64cc000000000000000003a1,CLUSTER_CREATED,${created.replace('Z', '.000Z')}\r\n` +
        `64cc000000000000000003a2,RED\u001b[31mTYPE,${created.replace('Z', '.000Z')}\r\n` +
        `64cc000000000000000003a3,"a,""quoted""\nline",${created.replace('Z', '.000Z')}\r\n`,
    );

    const json = await sql('--json', query);
    expect(json.code, json.stderr).toBe(0);
    expect(JSON.parse(json.stdout)).toEqual(
      EVENTS.map((e) => ({ id: e.id, event_type_name: e.eventTypeName, created: created.replace('Z', '.000Z') })),
    );
  });

  // One check that nothing changed, after every refusal: each CLI child opening the warehouse is
  // most of this file's time, and a refused write that had changed something would still show.
  it('prints integers, numerics and the numbers inside json exactly, in the table, CSV and JSON', async () => {
    const query =
      "select 123456789012345678::bigint as big, 9007199254740993::int8 as past_double, '-9223372036854775808'::int8 as least, " +
      "12345678901234567890.123456789::numeric as num, 1.50::numeric as spelt, 'NaN'::numeric as nan, 42::bigint as small, " +
      '\'{"n": 9007199254740993}\'::jsonb as doc';
    const table = await sql(query);
    expect(table.code, table.stderr).toBe(0);
    for (const text of [
      '123456789012345678',
      '9007199254740993',
      '-9223372036854775808',
      '12345678901234567890.123456789',
      '1.50',
      'NaN',
    ]) {
      expect(table.stdout).toContain(text);
    }
    expect(table.stdout).toContain('{"n": 9007199254740993}');
    const csv = await sql('--csv', query);
    expect(csv.stdout.split('\r\n')[1]).toBe(
      '123456789012345678,9007199254740993,-9223372036854775808,12345678901234567890.123456789,1.50,NaN,42,"{""n"": 9007199254740993}"',
    );
    const json = await sql('--json', query);
    expect(json.code, json.stderr).toBe(0);
    // Exact number literals (JSON.parse would round them: the text is what a script reads).
    expect(json.stdout).toMatch(/"big": 123456789012345678,/);
    expect(json.stdout).toMatch(/"past_double": 9007199254740993,/);
    expect(json.stdout).toMatch(/"least": -9223372036854775808,/);
    expect(json.stdout).toMatch(/"num": 12345678901234567890\.123456789,/);
    expect(json.stdout).toMatch(/"spelt": 1\.50,/);
    expect(json.stdout).toMatch(/"nan": "NaN",/);
    expect(json.stdout).toMatch(/"doc": \{"n": 9007199254740993\}/);
    expect(JSON.parse(json.stdout)).toEqual([expect.objectContaining({ small: 42, nan: 'NaN', doc: { n: 9007199254740992 } })]);
  });

  it('refuses insert, update, delete, drop and several statements in one string, changing nothing', async () => {
    const writes = [
      `insert into events (id, scope, created, event_type_name, payload, raw) select 'x' || id, scope, created, event_type_name, payload, raw from events`,
      `update events set event_type_name = 'CHANGED'`,
      'delete from events',
      'drop table events cascade',
    ];
    for (const statement of writes) {
      const result = await sql(statement);
      expect(result.stderr, statement).toMatch(
        /^events-mirror: refused: (INSERT|UPDATE|DELETE|DROP) statements are refused: events-mirror sql only reads/,
      );
      expect(result.code, statement).toBe(2);
    }
    const several = await sql('select count(*) from events; delete from events');
    expect(several.stderr).toBe(
      "events-mirror: refused: events-mirror sql runs one statement, this text holds 2: run them one at a time, without a ';' between two\n",
    );
    expect(several.code).toBe(2);
    expect(await typesNow()).toEqual(SYNCED_TYPES);
  });

  it('refuses every write attempt of the corpus, changing nothing; the warehouse opens afterwards', async () => {
    const fingerprint = async () => {
      const result = await sql('--json', WAREHOUSE_FINGERPRINT_SQL);
      expect(result.code, result.stderr).toBe(0);
      return result.stdout;
    };
    const before = await fingerprint();
    // On the embedded warehouse, the events table's own file (issue 43 emptied the table so); on
    // PostgreSQL, a file on the database server.
    let target = `/tmp/events-mirror-sql-copy-${process.pid}`;
    if (kind === 'pglite') {
      const file = await sql(
        '--csv',
        `select current_setting('data_directory') || '/base/' || (select oid from pg_database where datname = current_database()) || '/' || relfilenode from pg_class where relname = 'events'`,
      );
      expect(file.code, file.stderr).toBe(0);
      target = file.stdout.split('\r\n')[1]!;
      expect(target).toMatch(/\/base\/\d+\/\d+$/);
    }
    for (const attempt of writeAttempts(target)) {
      const result = await sql(attempt.attack);
      expect(result.stderr, attempt.name).toMatch(/^events-mirror: refused: /);
      expect(result.code, attempt.name).toBe(2);
    }
    expect(existsSync(target) && kind === 'postgres').toBe(false);
    expect(await fingerprint()).toBe(before);
    expect(await typesNow()).toEqual(SYNCED_TYPES);
  });

  it("exits 1 with PostgreSQL's message for a failing statement", async () => {
    const result = await sql('select * from no_such_table');
    expect(result.stderr).toBe('events-mirror: SQL error 42P01: relation "no_such_table" does not exist\n');
    expect(result.code).toBe(1);
  });

  it('shows a value echoed in the error with its control characters escaped', async () => {
    // PostgreSQL quotes the value it could not read: a stored event type may hold escape sequences.
    const result = await sql(`select event_type_name::int from events where id = '${EVENTS[1]!.id}'`);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe('events-mirror: SQL error 22P02: invalid input syntax for type integer: "RED\\x1b[31mTYPE"\n');
  });

  it.runIf(kind === 'pglite')("runs docs/warehouse.md's example queries unqualified", async () => {
    const queries = documentedQueries();
    expect(queries.length).toBeGreaterThanOrEqual(8);
    // The events_per_day and sync_lag examples, the rejected_events and sync_runs ones: four children.
    const chosen = queries.filter((q) => /from (events_per_day|sync_lag|rejected_events|sync_runs)\b/.test(q));
    expect(chosen).toHaveLength(4);
    const rows = new Map<string, unknown>();
    for (const query of chosen) {
      const result = await sql('--json', query);
      expect(result.code, `${query}\n${result.stderr}`).toBe(0);
      rows.set(query, JSON.parse(result.stdout));
      expect(Array.isArray(rows.get(query))).toBe(true);
    }
    const perDay = rows.get(chosen.find((q) => q.includes('events_per_day'))!);
    expect(perDay).toContainEqual({ day: created.slice(0, 10), event_type_name: 'CLUSTER_CREATED', sum: 1 });
  });
});
