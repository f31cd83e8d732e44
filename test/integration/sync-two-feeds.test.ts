/**
 * One event listed by two feeds (an organization's and a project's, over real HTTP). The upsert
 * used to overwrite `scope` (and the payload) with whichever feed was read last, so the row flipped
 * between them on every read and each flip counted as a change. Now the row stays with the feed
 * that listed it first, both memberships are queryable in `event_scopes`, and re-reading either
 * feed changes nothing — on PostgreSQL and the embedded warehouse.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scopeSettings, type Config } from '../../src/config.js';
import { parseScope } from '../../src/scope.js';
import type { SyncRuntime } from '../../src/sync/runtime.js';
import { startStubFeedSync, type StubFeedSync } from '../helpers/stub-feed.js';
import { syncScope } from '../../src/sync/sync-scope.js';

const ORG = 'org:5f0000000000000000000211';
const GROUP = 'group:6a0000000000000000000211';
const SHARED = '64bb00000000000000000001';
const created = new Date(Math.floor(Date.now() / 1000 - 3600) * 1000).toISOString().replace('.000Z', 'Z');

/** The org feed and the project feed each list the shared event, with different payloads. */
function feed(path: string): unknown[] {
  const own = path.includes('/orgs/')
    ? { id: '64bb000000000000000000aa', created, eventTypeName: 'ORG_EVENT', orgId: ORG.slice(4) }
    : { id: '64bb000000000000000000bb', created, eventTypeName: 'GROUP_EVENT', groupId: GROUP.slice(6) };
  const shared = path.includes('/orgs/')
    ? { id: SHARED, created, eventTypeName: 'JOINED_GROUP', orgId: ORG.slice(4), username: 'a@example.com' }
    : { id: SHARED, created, eventTypeName: 'JOINED_GROUP', groupId: GROUP.slice(6), username: 'a@example.com' };
  return [own, shared];
}

describe.each(['postgres', 'pglite'] as const)('an event two feeds list (%s)', (kind) => {
  let stub: StubFeedSync;
  let runtime: SyncRuntime;
  let config: Config;

  beforeAll(async () => {
    stub = await startStubFeedSync(kind, [ORG, GROUP], feed, { sync: { lookbackSeconds: 86_400 } });
    ({ runtime, config } = stub);
  });
  afterAll(async () => stub?.close());

  const sync = (key: string) => syncScope(runtime.ctx, scopeSettings(config, parseScope(key)), { mode: 'sync' });

  it('keeps the row with the first feed, both memberships, and no churn on re-reads', async () => {
    for (const key of [ORG, GROUP]) expect((await sync(key)).status).toBe('succeeded');
    const db = runtime.warehouse.db;
    const rows = await db.selectFrom('events').select(['id', 'scope', 'org_id', 'group_id']).where('id', '=', SHARED).execute();
    expect(rows).toEqual([{ id: SHARED, scope: ORG, org_id: ORG.slice(4), group_id: null }]);
    const memberships = await db.selectFrom('event_scopes').select('scope').where('event_id', '=', SHARED).orderBy('scope').execute();
    expect(memberships.map((m) => m.scope)).toEqual([GROUP, ORG]);

    // Each feed read again, in turn: nothing changes, nothing flips.
    for (let round = 0; round < 2; round++) {
      for (const key of [GROUP, ORG]) {
        const result = await sync(key);
        expect(result.totals.changed, `${key} round ${round}`).toBe(0);
        expect(result.totals.inserted).toBe(0);
      }
    }
    expect((await db.selectFrom('events').select('scope').where('id', '=', SHARED).executeTakeFirstOrThrow()).scope).toBe(ORG);
    expect(await db.selectFrom('event_scopes').select('scope').where('event_id', '=', SHARED).execute()).toHaveLength(2);
  });
});
