/**
 * A project listing is the service's word, and one odd item must not stop discovery. A listed id
 * longer than a scope holds used to make `sync --once` exit 1 before any scope was synced (and was
 * kept in `scopes`, to be reused whenever a later listing failed); an id listed twice (offset paging
 * of a changing organization) failed the listing's upsert ("ON CONFLICT DO UPDATE command cannot
 * affect row a second time"), and so did a name holding NUL: no project mirrored. Now bad items are
 * skipped with a warning naming them, ids are kept once, names stored with U+FFFD; over real HTTP
 * (a stub feed) and real PostgreSQL.
 */
import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { scopeSettings } from '../../src/config.js';
import { createLogger } from '../../src/logger.js';
import { parseScope } from '../../src/scope.js';
import { discoverScopes, type Discovery } from '../../src/sync/discovery.js';
import { syncScope } from '../../src/sync/sync-scope.js';
import { startStubFeedSync, type StubFeedSync } from '../helpers/stub-feed.js';

const ORG_ID = '5f0000000000000000000326';
const ORG = `org:${ORG_ID}`;
const CONFIGURED = 'group:6a00000000000000000003c0';
const [P1, P2] = ['6a0000000000000000000326', '6a0000000000000000000327'];
const LONG = 'a'.repeat(65);
const created = () => new Date(Math.floor(Date.now() / 1000 - 600) * 1000).toISOString().replace('.000Z', 'Z');
const BROKEN: unknown[] = [];

interface Run {
  readonly stub: StubFeedSync;
  readonly logs: Array<{ level: number; msg: string }>;
  discover(): Promise<Discovery>;
  /** What `sync --once` does after discovery: every scope, each failing alone. */
  syncAll(discovery: Discovery): Promise<string[]>;
}

let stub: StubFeedSync | undefined;
afterEach(async () => stub?.close());

async function start(listing: () => unknown[]): Promise<Run> {
  const logs: Array<{ level: number; msg: string }> = [];
  const logger = createLogger({ level: 'info', stream: { write: (line: string) => void logs.push(JSON.parse(line)) } });
  stub = await startStubFeedSync(
    'postgres',
    [ORG, CONFIGURED],
    (path) => {
      if (path.endsWith(`/orgs/${ORG_ID}/groups`)) return listing();
      // One event per feed, named after it, so each synced scope shows in `events`.
      const feed = /\/(orgs|groups)\/([^/]+)\/events$/.exec(path)!;
      return [{ id: `ev-${feed[2]}`, created: created(), eventTypeName: 'JOINED_GROUP' }];
    },
    { sync: { discoverProjects: true }, api: { maxAttempts: 1 } },
    (results) => (results === BROKEN ? '{"results": "not a list"}' : JSON.stringify({ links: [], results, totalCount: results.length })),
  );
  const { runtime, config } = stub;
  const configured = [ORG, CONFIGURED].map((key) => scopeSettings(config, parseScope(key)));
  return {
    stub,
    logs,
    discover: () => discoverScopes({ clients: runtime.clients, db: runtime.warehouse.db, logger, now: () => new Date() }, configured),
    async syncAll(discovery) {
      for (const settings of discovery.scopes) {
        const result = await syncScope(runtime.ctx, settings, { mode: 'sync' });
        expect(result.status, `${settings.scope.key}: ${String(result.error)}`).toBe('succeeded');
      }
      const rows = await runtime.warehouse.db.selectFrom('events').select('id').orderBy('id').execute();
      return rows.map((r) => r.id);
    },
  };
}

describe('a project listing with items no scope can hold', () => {
  const payments = { id: P1, name: 'Payments', orgId: ORG_ID };
  const mobile = { id: P2, name: 'Mobile', orgId: ORG_ID };
  it.each<[string, Array<{ id: string; name: string; orgId?: string }>, { skipped?: number; duplicates?: number }]>([
    ['an id over 64 characters: skipped with a warning naming it', [payments, { id: LONG, name: 'Too long' }, mobile], { skipped: 1 }],
    ['an id listed twice: kept once', [payments, mobile, payments], { duplicates: 1 }],
    ['a name holding NUL: stored as U+FFFD', [payments, { ...mobile, name: 'Mob\u0000ile' }], {}],
  ])('%s; every project and configured scope is synced', async (_name, listing, counts) => {
    const run = await start(() => listing);
    const discovery = await run.discover();
    expect(discovery.orgs).toEqual([
      {
        org: ORG,
        outcome: 'listed',
        projects: 2,
        added: [`group:${P1}`, `group:${P2}`],
        removed: [],
        excluded: 0,
        skipped: 0,
        duplicates: 0,
        ...counts,
      },
    ]);
    expect(discovery.scopes.map((s) => s.scope.key)).toEqual([ORG, CONFIGURED, `group:${P1}`, `group:${P2}`]);
    const known = await run.stub.runtime.warehouse.db.selectFrom('scopes').select(['scope', 'name']).orderBy('scope').execute();
    expect(known).toEqual([
      { scope: `group:${P1}`, name: 'Payments' },
      { scope: `group:${P2}`, name: listing.some((p) => p.name === 'Mob\u0000ile') ? 'Mob\ufffdile' : 'Mobile' },
      { scope: CONFIGURED, name: null },
      { scope: ORG, name: null },
    ]);
    if (counts.skipped) {
      const warning = run.logs.find((line) => line.level === 40 && line.msg.includes(LONG));
      expect(warning?.msg).toBe(`project "${LONG}" of ${ORG} skipped: id is not a project id (1 to 64 letters, digits, - or _)`);
    }
    expect(await run.syncAll(discovery)).toEqual([`ev-${ORG_ID}`, `ev-${P1}`, `ev-${P2}`, `ev-${CONFIGURED.slice(6)}`].sort());
  });

  it('a bad id recorded before is not polled when a later listing fails: the projects found before and the configured scopes are', async () => {
    let broken = false;
    const run = await start(() => (broken ? BROKEN : [{ id: P1, name: 'Payments', orgId: ORG_ID }]));
    await run.discover();
    // What an earlier version recorded from a listing with a 65-character id.
    await sql`insert into scopes (scope, kind, scope_id, origin, discovered_by, first_seen_at, last_seen_at)
      values (${`group:${LONG}`}, 'group', ${LONG}, 'discovered', ${ORG}, now(), now())`.execute(run.stub.runtime.warehouse.db);
    broken = true;
    const discovery = await run.discover();
    expect(discovery.orgs).toMatchObject([{ org: ORG, outcome: 'failed' }]);
    expect(discovery.scopes.map((s) => s.scope.key)).toEqual([ORG, CONFIGURED, `group:${P1}`]);
    expect(run.logs.some((line) => line.level === 40 && line.msg === `${ORG}: discovered project group:${LONG} skipped: not a scope`)).toBe(
      true,
    );
    expect(await run.syncAll(discovery)).toEqual([`ev-${ORG_ID}`, `ev-${P1}`, `ev-${CONFIGURED.slice(6)}`].sort());
  });
});
