/**
 * A window's pages are fetched ahead of the one handed out, and two pages' transactions run at once.
 * Whatever the database's speed, every page must land (a read-ahead that waits for room must still
 * hand out every page); the checkpoint must never commit before every earlier page has, so a
 * commit that fails can never leave the checkpoint past events it did not land; and of two pages
 * listing the same event, the later read must be the one that stays, with no deadlock. Slow and
 * failing commits are made the way a real database makes them: in PostgreSQL, at COMMIT (deferred
 * constraint triggers), and a slow write by a trigger on insert.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { scopeSettings } from '../../src/config.js';
import { parseScope } from '../../src/scope.js';
import { syncScope } from '../../src/sync/sync-scope.js';
import { getSyncState } from '../../src/warehouse/state.repository.js';
import { startStubFeedSync, syncThroughStub, type StubFeedSync } from '../helpers/stub-feed.js';

const GROUP = 'group:6a0000000000000000000312';
const PER_PAGE = 5;
const at = (secondsAgo: number) => new Date(Math.floor(Date.now() / 1000 - secondsAgo) * 1000).toISOString().replace('.000Z', 'Z');
const event = (n: number) => ({
  id: `64ce${String(n).padStart(20, '0')}`,
  created: at(3600 + n),
  eventTypeName: 'JOINED_GROUP',
  groupId: GROUP.slice(6),
});
/** Eleven full pages and a short last one, newest first. */
const EVENTS = Array.from({ length: 11 * PER_PAGE + 3 }, (_, i) => event(i + 1));
const idsOf = (events: ReadonlyArray<{ id: string }>) => events.map((e) => e.id).sort();
const pageOf = (pageNum: number) => EVENTS.slice((pageNum - 1) * PER_PAGE, pageNum * PER_PAGE);

describe('pages landing while the next ones are read and written', () => {
  let stub: StubFeedSync;
  let admin: pg.Client;
  let serve = pageOf;

  beforeAll(async () => {
    stub = await startStubFeedSync('postgres', [GROUP], (_path, pageNum) => serve(pageNum), {
      api: { itemsPerPage: PER_PAGE, requestsPerMinute: { group: 1_000_000, org: 1_000_000 } },
      sync: { windowSeconds: 30 * 86_400 },
    });
    admin = new pg.Client({ connectionString: stub.config.database.url });
    await admin.connect();
  });
  afterEach(async () => {
    serve = pageOf;
    await admin.query('drop trigger if exists at_commit on events_mirror.events');
    await admin.query('drop trigger if exists on_insert on events_mirror.events');
    await admin.query('truncate events_mirror.events, events_mirror.sync_state, events_mirror.sync_runs cascade');
  });
  afterAll(async () => {
    await admin?.end();
    await stub?.close();
  });

  /** A trigger run for each row written, at COMMIT. */
  async function atCommit(body: string): Promise<void> {
    await admin.query(
      `create or replace function events_mirror.at_commit() returns trigger language plpgsql as $$ begin ${body}; return null; end $$`,
    );
    await admin.query(
      `create constraint trigger at_commit after insert or update on events_mirror.events deferrable initially deferred
       for each row execute function events_mirror.at_commit()`,
    );
  }

  const heldIds = async () =>
    (await stub.runtime.warehouse.db.selectFrom('events').select('id').orderBy('id').execute()).map((row) => row.id);

  it('lands every page when commits are slower than the API', async () => {
    // 100 ms a commit: the pages read ahead fill up while each one lands.
    await atCommit('perform pg_sleep(0.02)');
    const result = await syncThroughStub(stub, GROUP);
    expect(result.status, String(result.error)).toBe('succeeded');
    expect(result.totals).toMatchObject({ inserted: EVENTS.length, rejected: 0 });
    expect(await heldIds()).toEqual(idsOf(EVENTS));
  });

  it('moves no checkpoint past a page whose commit failed, and the next run lands it all', async () => {
    // Page 10's commit fails late, while page 11 lands beside it and page 12 (the last, which
    // carries the checkpoint) waits for both.
    const failing = pageOf(10)[0]!.id;
    await atCommit(
      `if new.id = '${failing}' then perform pg_sleep(0.3); raise exception 'could not write to file: No space left on device'; end if`,
    );
    const settings = scopeSettings(stub.config, parseScope(GROUP));
    const result = await syncScope(stub.runtime.ctx, settings, { mode: 'sync' });
    expect(result.status).toBe('failed');
    expect(String(result.error)).toContain('No space left on device');
    const held = new Set(await heldIds());
    expect(EVENTS.slice(0, 9 * PER_PAGE).filter((e) => !held.has(e.id))).toEqual([]);
    expect([...pageOf(10), ...pageOf(12)].filter((e) => held.has(e.id))).toEqual([]);
    expect((await getSyncState(stub.runtime.warehouse.db, GROUP))?.watermark ?? null).toBeNull();

    await admin.query('drop trigger at_commit on events_mirror.events');
    const again = await syncScope(stub.runtime.ctx, settings, { mode: 'sync' });
    expect(again.status, String(again.error)).toBe('succeeded');
    expect(await heldIds()).toEqual(idsOf(EVENTS));
    expect((await getSyncState(stub.runtime.warehouse.db, GROUP))?.watermark).not.toBeNull();
  });

  it('keeps the later read of an event listed again at the top of the next page, while the page before is still writing it', async () => {
    // e5 ends page 1 and starts page 2, changed in between (as a re-read can see it). Page 1's
    // COPY is slow to reach it. Page 2 must wait for page 1 before it begins: written beside it,
    // its e5 would land first and page 1's older e5 would then overwrite it.
    const changed = { ...EVENTS[4]!, username: 'renamed@example.com' };
    const pages = [EVENTS.slice(0, 5), [changed, ...EVENTS.slice(5, 9)], EVENTS.slice(9, 10)];
    serve = (pageNum) => pages[pageNum - 1] ?? [];
    await admin.query(
      `create or replace function events_mirror.on_insert() returns trigger language plpgsql as $$
       begin if new.id = '${EVENTS[0]!.id}' then perform pg_sleep(0.3); end if; return new; end $$`,
    );
    await admin.query(
      'create trigger on_insert before insert on events_mirror.events for each row execute function events_mirror.on_insert()',
    );
    const result = await syncThroughStub(stub, GROUP);
    expect(result.status, String(result.error)).toBe('succeeded');
    expect(result.totals).toMatchObject({ inserted: 10, changed: 1, rejected: 0 });
    expect(await heldIds()).toEqual(idsOf(EVENTS.slice(0, 10)));
    const row = await stub.runtime.warehouse.db.selectFrom('events').select('username').where('id', '=', changed.id).executeTakeFirst();
    expect(row?.username).toBe('renamed@example.com');
  });

  it('lands a page whose commit was refused once through the statement, the page listing its event again waiting for it', async () => {
    // A refusal at COMMIT (a deferred check: the warehouse has none of its own) sends page 1 to the
    // statement path; page 2, which lists e5 too, begins only after page 1 has landed.
    const pages = [EVENTS.slice(0, 5), EVENTS.slice(4, 9), EVENTS.slice(9, 10)];
    serve = (pageNum) => pages[pageNum - 1] ?? [];
    // A sequence, not a table: it counts the commits refused even though each is rolled back.
    await admin.query('create sequence events_mirror.refusals');
    await atCommit(
      `if new.id = '${EVENTS[0]!.id}' then
         if nextval('events_mirror.refusals') = 1 then
           perform pg_sleep(0.2);
           raise exception 'refused at commit' using errcode = '23514';
         end if;
       end if`,
    );
    const result = await syncThroughStub(stub, GROUP);
    expect(result.status, String(result.error)).toBe('succeeded');
    expect(result.totals).toMatchObject({ inserted: 10, changed: 0, rejected: 0 });
    expect(await heldIds()).toEqual(idsOf(EVENTS.slice(0, 10)));
  });
});
