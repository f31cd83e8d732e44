/**
 * One event must never stop a scope. Text a user can type into the service (a username, a cluster
 * name, even an id) may hold a NUL character, which PostgreSQL refuses in text columns; and a value
 * can be refused for other reasons (an event type name too long for an index entry). Such a page used to fail
 * with SQLSTATE 22021 or 54000, be retried forever and stall the scope. Now the text is made
 * storable, and an event the warehouse still refuses is set aside with the reason while the rest
 * of the page lands — on PostgreSQL and on the embedded warehouse.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scopeSettings } from '../../src/config.js';
import { parseScope } from '../../src/scope.js';
import type { SyncRuntime } from '../../src/sync/runtime.js';
import { syncScope } from '../../src/sync/sync-scope.js';
import { expectMirrorEqualsEmulator } from '../helpers/mirror.js';
import { startStubFeedSync, type StubFeedSync } from '../helpers/stub-feed.js';
import { daysAgo, startSyncFixture, type SyncFixture } from '../helpers/sync-fixture.js';

const GROUP = 'group:6a0000000000000000000171';
const LONG_TYPE = randomBytes(30_000).toString('hex');
const created = (secondsAgo: number) => new Date(Math.floor(Date.now() / 1000 - secondsAgo) * 1000).toISOString().replace('.000Z', 'Z');

/** A page as a user could make the service send it: poison text, a value out of range, good events. */
function poisonPage(): unknown[] {
  const good = Array.from({ length: 5 }, (_, i) => ({
    id: `64aa00000000000000000${String(i).padStart(3, '0')}`,
    created: created(600 + i),
    eventTypeName: 'JOINED_GROUP',
    groupId: GROUP.slice(6),
    username: `user${i}@example.com`,
  }));
  return [
    ...good.slice(0, 2),
    {
      id: '64aa0000000000000000a\u0000b',
      created: created(700),
      eventTypeName: 'JOINED_GROUP',
      groupId: GROUP.slice(6),
      username: 'a\u0000b',
    },
    // An event type name too long for a btree index entry (the service's names are open-ended).
    { id: '64aa000000000000000000ff', created: created(701), eventTypeName: LONG_TYPE, groupId: GROUP.slice(6), hostname: 'h\u0000st' },
    ...good.slice(2),
  ];
}

describe.each(['postgres', 'pglite'] as const)('a page with text the warehouse refuses (%s)', (kind) => {
  let stub: StubFeedSync;
  let runtime: SyncRuntime;

  beforeAll(async () => {
    // One page for every window the sync reads: the same events each time (created times fixed).
    const page = poisonPage();
    stub = await startStubFeedSync(kind, [GROUP], () => page);
    runtime = stub.runtime;
    const result = await syncScope(runtime.ctx, scopeSettings(stub.config, parseScope(GROUP)), { mode: 'sync' });
    expect(result.status, String(result.error)).toBe('succeeded');
  });
  afterAll(async () => stub?.close());

  it('stores NUL-bearing text (id included) as U+FFFD and moves the checkpoint', async () => {
    const db = runtime.warehouse.db;
    const rows = await db.selectFrom('events').select(['id', 'username']).where('scope', '=', GROUP).orderBy('id').execute();
    expect(rows.map((r) => r.id)).toContain('64aa0000000000000000a\ufffdb');
    expect(rows.find((r) => r.id === '64aa0000000000000000a\ufffdb')?.username).toBe('a\ufffdb');
    expect(rows).toHaveLength(6);
    const state = await db.selectFrom('sync_state').select('watermark').where('scope', '=', GROUP).executeTakeFirstOrThrow();
    expect(state.watermark).not.toBeNull();
  });

  it('sets aside the event whose values an index cannot hold, with the reason, and lands the rest', async () => {
    const rejected = await runtime.warehouse.db
      .selectFrom('rejected_events')
      .select(['reason', 'payload'])
      .where('scope', '=', GROUP)
      .execute();
    expect(rejected).toHaveLength(1);
    expect(rejected[0]!.reason).toMatch(/^the warehouse refused it: index row .*maximum size.* \(SQLSTATE 54000\)$/);
    expect((rejected[0]!.payload as { id: string }).id).toBe('64aa000000000000000000ff');
  });
});

describe('the emulator poisoning text fields', () => {
  let fixture: SyncFixture;
  beforeAll(async () => {
    fixture = await startSyncFixture(
      {
        seed: 172,
        orgs: ['5f0000000000000000000172'],
        groups: ['6a0000000000000000000172'],
        eventsPerScope: 800,
        days: 1,
        faults: { poisonTextRate: 0.2 },
      },
      { EVENTS_START_DATE: daysAgo(2).toISOString() },
    );
  });
  afterAll(async () => fixture?.close());

  it('is mirrored whole: every event once, the poisoned text stored as U+FFFD', async () => {
    const runtime = await fixture.runtime();
    const config = fixture.config();
    for (const key of fixture.emulator.dataset.scopes()) {
      const result = await syncScope(runtime.ctx, scopeSettings(config, parseScope(key)), { mode: 'sync' });
      expect(result.status, String(result.error)).toBe('succeeded');
    }
    await expectMirrorEqualsEmulator(runtime.warehouse.db, fixture.emulator.dataset, fixture.emulator.dataset.scopes());
    const poisoned = await runtime.warehouse.db
      .selectFrom('events')
      .select('id')
      .where((eb) =>
        eb.or([eb('username', 'like', '%\ufffd%'), eb('hostname', 'like', '%\ufffd%'), eb('cluster_name', 'like', '%\ufffd%')]),
      )
      .execute();
    expect(poisoned.length).toBeGreaterThan(0);
  });
});
