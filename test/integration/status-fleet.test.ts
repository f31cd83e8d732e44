/**
 * `status` for a fleet: 2,000 scopes written into `scopes` and `sync_state` with SQL (1,983 ok,
 * 5 failing, 7 lagging, 4 never synced, 1 removed), read by the CLI against PostgreSQL. The summary
 * counts them, the plain `status` stays within 40 lines of 80 columns, and `--failing`,
 * `--lagging`, `--lagging=2h`, `--all` and `--json` select exactly the right scopes; every JSON
 * document passes the schema docs/commands.md describes.
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commandJsonSchema, type CommandJson } from '../../src/report/json-output.js';
import { createWarehouse, type Warehouse } from '../../src/warehouse/database.js';
import { runCli } from '../helpers/cli.js';
import { createMigratedTestDatabase, type TestDatabase } from '../helpers/database.js';

const SCOPES = 2_000;
const ORG = 'org:5f0000000000000000000342';
const scopeOf = (i: number) => `group:6b${i.toString(16).padStart(22, '0')}`;
/** Scope numbers by what the test makes of them. */
const FAILING = [11, 222, 333, 1_444, 1_999];
const LAGGING_HOURS = new Map([
  [7, 0.5],
  [70, 1.5],
  [700, 2.5],
  [701, 3.5],
  [1_500, 4.5],
  [1_501, 5.5],
  [1_502, 6.5],
]);
const NEVER_SYNCED = [3, 4, 1_800, 1_801];
const REMOVED = 900;

describe('status for a fleet of 2,000 scopes', () => {
  let database: TestDatabase;
  let warehouse: Warehouse;
  let env: Record<string, string>;

  beforeAll(async () => {
    database = await createMigratedTestDatabase();
    warehouse = await createWarehouse({ url: database.url, schema: 'events_mirror', dataDir: 'unused' });
    env = { DATABASE_URL: database.url };
    const db = warehouse.db;
    // Every scope a discovered project with a name; all but two of the never-synced ones have state.
    await sql`
      insert into scopes (scope, kind, scope_id, name, org_id, origin, discovered_by)
      select 'group:6b' || lpad(to_hex(i), 22, '0'), 'group', '6b' || lpad(to_hex(i), 22, '0'),
             'project ' || i, '5f0000000000000000000342', 'discovered', ${ORG}
      from generate_series(0, ${SCOPES - 1}) as i`.execute(db);
    await sql`
      insert into sync_state (scope, watermark, last_success_at, last_attempt_at, last_polled_at, polls, updated_at)
      select 'group:6b' || lpad(to_hex(i), 22, '0'), now() - interval '30 seconds', now() - interval '20 seconds',
             now() - interval '20 seconds', now() - interval '20 seconds', 100, now()
      from generate_series(0, ${SCOPES - 1}) as i
      where i not in (${sql.join(NEVER_SYNCED.slice(2))})`.execute(db);
    await db
      .updateTable('sync_state')
      .set({ watermark: null, last_success_at: null, last_polled_at: null })
      .where('scope', 'in', NEVER_SYNCED.slice(0, 2).map(scopeOf))
      .execute();
    for (const [i, hours] of LAGGING_HOURS) {
      await db
        .updateTable('sync_state')
        .set({ watermark: sql`now() - make_interval(secs => ${hours * 3600})` })
        .where('scope', '=', scopeOf(i))
        .execute();
    }
    for (const [n, i] of FAILING.entries()) {
      const notFound = n < 3;
      await db
        .updateTable('sync_state')
        .set({
          watermark: sql`now() - interval '10 minutes'`,
          consecutive_failures: n + 1,
          last_error: notFound
            ? `GET /groups/${scopeOf(i).slice(6)}/events?pageNum=1 for ${scopeOf(i)} failed: 404 GROUP_NOT_FOUND: No group with ID ${scopeOf(i).slice(6)} exists. (no project has this id: fix the scope in EVENTS_SCOPES or --scope)`
            : `GET /groups/${scopeOf(i).slice(6)}/events?pageNum=1 for ${scopeOf(i)} failed: 503: Service Unavailable (gave up after 5 attempts in 61000 ms)`,
          last_error_code: notFound ? 'API_GROUP_NOT_FOUND' : 'HTTP_503',
        })
        .where('scope', '=', scopeOf(i))
        .execute();
    }
    await db
      .updateTable('scopes')
      .set({ removed_at: sql`now() - interval '3 days'` })
      .where('scope', '=', scopeOf(REMOVED))
      .execute();
    await db
      .updateTable('sync_state')
      .set({ watermark: sql`now() - interval '3 days'` })
      .where('scope', '=', scopeOf(REMOVED))
      .execute();
  }, 60_000);
  afterAll(async () => {
    await warehouse?.close();
    await database?.drop();
  });

  const status = async (...args: string[]) => {
    const result = await runCli(['status', ...args], env);
    // The fleet has failing and lagging scopes, and --failing, --lagging and --json change the
    // report, not what is judged: the exit code says a scope needs attention.
    expect(result.code, result.stderr).toBe(1);
    expect(result.stderr).toBe('');
    return result.stdout;
  };
  const json = async (...args: string[]): Promise<CommandJson> => commandJsonSchema.parse(JSON.parse(await status(...args, '--json')));
  /** The scopes a table lists: its rows after the `----` rule, up to the first blank line. */
  const tableScopes = (text: string) => {
    const lines = text.split('\n');
    const start = lines.findIndex((l) => /^-{5,} /.test(l)) + 1;
    const end = lines.findIndex((l, i) => i >= start && !/^(group|org):/.test(l));
    return lines.slice(start, end).map((l) => l.split(' ')[0]!);
  };
  const lagging = [...LAGGING_HOURS.keys()].map(scopeOf);

  it('prints the summary first and stays within 40 lines of 80 columns', async () => {
    const text = await status();
    const lines = text.trimEnd().split('\n');
    expect(lines[0]).toBe('2,000 scopes: 1,983 ok, 5 failing, 7 lagging, 4 never synced, 1 removed');
    expect(lines[1]).toBe('(lagging: checkpoint more than 3m 5s behind; --lagging=<duration> to choose)');
    expect(lines[2]).toBe('failing by error code: API_GROUP_NOT_FOUND 3, HTTP_503 2');
    expect(lines[3]).toBe('worst lags (top 5):');
    expect(lines.slice(4, 9).map((l) => l.trim().split(/\s+/)[0])).toEqual([1_502, 1_501, 1_500, 701, 700].map(scopeOf));
    expect(lines[4]).toMatch(/^ {2}group:\S+ {2}6h 30m {2}lagging$/);
    expect(lines.length, text).toBeLessThanOrEqual(40);
    // The schema changes' line (unchanged here) is 81 columns with no changes at all.
    for (const line of lines.filter((l) => !l.startsWith('schema changes'))) expect(line.length, line).toBeLessThanOrEqual(80);
    // The table: its worst rows, failing first (most failures in a row first), then lagging.
    expect(tableScopes(text)).toEqual([...[...FAILING].reverse().map(scopeOf), ...[...lagging].reverse()]);
    expect(text).toMatch(/^… 1,988 more scopes: --failing, --lagging, --all or --json list them$/m);
    expect(text).toContain('failing scopes with their errors: npx events-mirror status --failing');
    expect(text).toMatch(/^scope +name +state +lag +last polled$/m);
    expect(text).toMatch(new RegExp(`^${scopeOf(1_999)}  project 1999  failing  10m( \\d+s)?\\s+\\d+s ago$`, 'm'));
  });

  it('--failing lists exactly the failing scopes with their errors, cut to 80 columns', async () => {
    const text = await status('--failing');
    expect(tableScopes(text).sort()).toEqual(FAILING.map(scopeOf).sort());
    expect(text).toMatch(/^scope +name +failed +last error$/m);
    const row = text.split('\n').find((l) => l.startsWith(scopeOf(11)))!;
    expect(row).toMatch(/ 1 {2}404 GROUP_NOT_FOUND: .*…$/);
    for (const line of text.trimEnd().split('\n')) expect(line.length, line).toBeLessThanOrEqual(80);
    expect(text).toContain(`whole error: npx events-mirror status --scope `);
    const doc = await json('--failing');
    expect(doc.scopes.map((s) => s.scope).sort()).toEqual(FAILING.map(scopeOf).sort());
    expect(doc.scopes.every((s) => s.state === 'failing' && s.lastError !== null)).toBe(true);
    expect(doc.scopes.find((s) => s.scope === scopeOf(1_999))!.lastError).toEqual({
      code: 'HTTP_503',
      message: expect.stringContaining('503: Service Unavailable') as string,
    });
  });

  it('--lagging lists the scopes behind the default threshold; --lagging=2h those behind 2 hours', async () => {
    expect(tableScopes(await status('--lagging')).sort()).toEqual([...lagging].sort());
    expect((await json('--lagging')).scopes.map((s) => s.scope).sort()).toEqual([...lagging].sort());
    const twoHours = [700, 701, 1_500, 1_501, 1_502].map(scopeOf).sort();
    expect(tableScopes(await status('--lagging=2h')).sort()).toEqual(twoHours);
    const doc = await json('--lagging', '2h');
    expect(doc.scopes.map((s) => s.scope).sort()).toEqual(twoHours);
    expect(doc.summary.lagThresholdSeconds).toBe(7200);
    expect(doc.summary.byState).toEqual({ ok: 1_985, failing: 5, lagging: 5, 'never-synced': 4, removed: 1 });
  });

  it('--all lists every scope; --json holds every scope and the summary, to the schema', async () => {
    expect(tableScopes(await status('--all'))).toHaveLength(SCOPES);
    const doc = await json();
    expect(doc.command).toBe('status');
    expect(doc.scopes).toHaveLength(SCOPES);
    expect(doc.summary).toEqual({
      scopes: SCOPES,
      byState: { ok: 1_983, failing: 5, lagging: 7, 'never-synced': 4, removed: 1 },
      lagThresholdSeconds: 185,
      failingByCode: [
        { code: 'API_GROUP_NOT_FOUND', scopes: 3 },
        { code: 'HTTP_503', scopes: 2 },
      ],
      worstLags: [1_502, 1_501, 1_500, 701, 700].map((i) => ({ scope: scopeOf(i), lagSeconds: expect.any(Number) as number })),
    });
    const byState = (state: string) =>
      doc.scopes
        .filter((s) => s.state === state)
        .map((s) => s.scope)
        .sort();
    expect(byState('never-synced')).toEqual(NEVER_SYNCED.map(scopeOf).sort());
    expect(byState('removed')).toEqual([scopeOf(REMOVED)]);
    const ok = doc.scopes.find((s) => s.scope === scopeOf(0))!;
    expect(ok).toMatchObject({ name: 'project 0', origin: 'discovered', discoveredBy: ORG, state: 'ok', polls: 100, events: 0 });
    expect(ok.lastPolledAt).not.toBeNull();
    expect(ok.lagSeconds).toBeGreaterThanOrEqual(30);
  });

  it('--failing with --lagging is refused', async () => {
    const result = await runCli(['status', '--failing', '--lagging'], env);
    expect(result.code).toBe(2);
    expect(result.stderr.split('\n')[0]).toBe(
      'events-mirror: --failing and --lagging both given: choose one (a failing scope is not counted as lagging)',
    );
  });
});
