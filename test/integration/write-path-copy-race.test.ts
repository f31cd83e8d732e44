/**
 * On PostgreSQL a page's events new to the warehouse are COPied into `events`. An organization's
 * feed and a project's may list the same event, and the other feed's transaction can insert it
 * between this page's lookup and its COPY: the COPY then waits for that transaction and fails on the
 * unique key. The page must land anyway (through the INSERT … ON CONFLICT statement), nothing lost,
 * nothing doubled, the row staying with the feed that committed it first. And the lookup made for
 * the next page while the current one lands cannot see the current page's rows: an event shifted
 * across a page boundary must land once, counted once.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { scopeSettings, type Config } from '../../src/config.js';
import { parseScope } from '../../src/scope.js';
import { syncScope } from '../../src/sync/sync-scope.js';
import type { SyncRuntime } from '../../src/sync/runtime.js';
import { waitFor } from '../helpers/queue-processes.js';
import { startStubFeedSync, type StubFeedSync } from '../helpers/stub-feed.js';

const ORG = 'org:5f0000000000000000000311';
const GROUP = 'group:6a0000000000000000000311';
const SHARED = '64cc00000000000000000001';
const OWN = '64cc000000000000000000bb';
const created = new Date(Math.floor(Date.now() / 1000 - 3600) * 1000).toISOString().replace('.000Z', 'Z');
const shared = { id: SHARED, created, eventTypeName: 'JOINED_GROUP', username: 'a@example.com' };

describe('a page COPied in while another feed inserts one of its events', () => {
  let stub: StubFeedSync;
  let runtime: SyncRuntime;
  let config: Config;
  let other: pg.Client;

  beforeAll(async () => {
    stub = await startStubFeedSync('postgres', [ORG, GROUP], () => [
      { id: OWN, created, eventTypeName: 'GROUP_EVENT', groupId: GROUP.slice(6) },
      { ...shared, groupId: GROUP.slice(6) },
    ]);
    ({ runtime, config } = stub);
    other = new pg.Client({ connectionString: config.database.url });
    await other.connect();
    await other.query('set search_path to events_mirror');
  });
  afterAll(async () => {
    await other?.end();
    await stub?.close();
  });

  it('waits for the other transaction, then lands the page through the statement path', async () => {
    await other.query('begin');
    await other.query(`insert into events (id, scope, org_id, created, event_type_name, payload) values ($1, $2, $3, $4, $5, $6)`, [
      SHARED,
      ORG,
      ORG.slice(4),
      created,
      shared.eventTypeName,
      JSON.stringify({ ...shared, orgId: ORG.slice(4) }),
    ]);
    const syncing = syncScope(runtime.ctx, scopeSettings(config, parseScope(GROUP)), { mode: 'sync' });
    // The race as it happens: the page's COPY is blocked on the key the other transaction holds.
    await waitFor('the COPY to wait on the uncommitted row', async () => {
      // pg_stat_activity is read once per transaction, and `other` is in one: clear its snapshot.
      const { rows } = await other.query<{ n: number }>(
        `select pg_stat_clear_snapshot(), count(*)::int as n from pg_stat_activity where wait_event_type = 'Lock' and query like 'COPY %events%'`,
      );
      return rows[0]!.n > 0;
    });
    await other.query('commit');

    const result = await syncing;
    expect(result.status).toBe('succeeded');
    expect(result.totals).toMatchObject({ inserted: 1, changed: 0, rejected: 0 });
    const db = runtime.warehouse.db;
    const rows = await db.selectFrom('events').select(['id', 'scope']).orderBy('id').execute();
    expect(rows).toEqual([
      { id: SHARED, scope: ORG },
      { id: OWN, scope: GROUP },
    ]);
    const memberships = await db.selectFrom('event_scopes').select(['event_id', 'scope']).orderBy('event_id').orderBy('scope').execute();
    expect(memberships).toEqual([
      { event_id: SHARED, scope: GROUP },
      { event_id: SHARED, scope: ORG },
      { event_id: OWN, scope: GROUP },
    ]);
  });
});

describe('pages of one window that overlap (an event shifted across the page boundary)', () => {
  const at = (secondsAgo: number) => new Date(Math.floor(Date.now() / 1000 - secondsAgo) * 1000).toISOString().replace('.000Z', 'Z');
  const event = (n: number) => ({
    id: `64cd0000000000000000000${n}`,
    created: at(3600 + n),
    eventTypeName: 'JOINED_GROUP',
    groupId: GROUP.slice(6),
  });
  // Three to a page: e3 and e5 are listed again at the top of the next page, as when newer events
  // arrive while a window is read.
  const PAGES = [[event(1), event(2), event(3)], [event(3), event(4), event(5)], [event(5)]];
  let stub: StubFeedSync;

  beforeAll(async () => {
    stub = await startStubFeedSync('postgres', [GROUP], (_path, pageNum) => PAGES[pageNum - 1] ?? [], { api: { itemsPerPage: 3 } });
  });
  afterAll(async () => stub?.close());

  it('lands each event once, counted once, whichever page saw it first', async () => {
    const settings = scopeSettings(stub.config, parseScope(GROUP));
    const result = await syncScope(stub.runtime.ctx, settings, { mode: 'sync' });
    expect(result.status, String(result.error)).toBe('succeeded');
    expect(result.totals).toMatchObject({ inserted: 5, changed: 0, rejected: 0 });
    const rows = await stub.runtime.warehouse.db.selectFrom('events').select(['id', 'scope']).orderBy('id').execute();
    expect(rows).toEqual([1, 2, 3, 4, 5].map((n) => ({ id: event(n).id, scope: GROUP })));
  });
});
