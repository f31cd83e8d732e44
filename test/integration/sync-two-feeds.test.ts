/**
 * One event listed by two feeds (an organization's and a project's, over real HTTP). The upsert
 * used to overwrite `scope` (and the payload) with whichever feed was read last, so the row flipped
 * between them on every read and each flip counted as a change. Now the row stays with the feed
 * that listed it first, both memberships are queryable in `event_scopes`, and re-reading either
 * feed changes nothing — on PostgreSQL and the embedded warehouse.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig, scopeSettings } from '../../src/config.js';
import { silentLogger } from '../../src/logger.js';
import { parseScope } from '../../src/scope.js';
import { openSyncRuntime, type SyncRuntime } from '../../src/sync/runtime.js';
import { syncScope } from '../../src/sync/sync-scope.js';
import { IN_MEMORY, createWarehouse } from '../../src/warehouse/database.js';
import { migrateToLatest } from '../../src/warehouse/migrator.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { daysAgo } from '../helpers/sync-fixture.js';

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
  let server: Server;
  let database: TestDatabase | undefined;
  let runtime: SyncRuntime;
  let config: ReturnType<typeof loadConfig>;

  beforeAll(async () => {
    server = createServer((req, res) => {
      const url = new URL(req.url!, 'http://x');
      const results = url.searchParams.get('pageNum') === '1' ? feed(url.pathname) : [];
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ links: [], results, totalCount: results.length }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    if (kind === 'postgres') {
      database = await createTestDatabase();
      const warehouse = await createWarehouse({ url: database.url, schema: 'events_mirror', dataDir: 'unused' });
      await migrateToLatest(warehouse);
      await warehouse.close();
    }
    config = loadConfig({
      env: {
        EVENTS_API_BASE_URL: `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/public/v1.0`,
        EVENTS_API_PUBLIC_KEY: 'public',
        EVENTS_API_PRIVATE_KEY: 'private',
        EVENTS_SCOPES: `${ORG},${GROUP}`,
        EVENTS_START_DATE: daysAgo(1).toISOString(),
        ...(database ? { DATABASE_URL: database.url } : {}),
      },
      overrides: { database: { dataDir: IN_MEMORY }, sync: { settleSeconds: 0, lookbackSeconds: 86_400 } },
    });
    runtime = await openSyncRuntime(config, silentLogger());
  });
  afterAll(async () => {
    await runtime?.close();
    await new Promise((resolve) => server?.close(resolve));
    await database?.drop();
  });

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
