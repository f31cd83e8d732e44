/**
 * Text that PostgreSQL refuses (NUL, lone UTF-16 surrogates) in the parts of an event the mirror
 * keeps beside the row: the event type name, a top-level key and the id of an event that is the
 * first of its type go into `event_types_seen` / `event_fields_seen` in the page's transaction; an
 * id is deduplicated and looked up before it is stored. Each used to fail its page on every run
 * (`invalid byte sequence for encoding "UTF8": 0x00`; unique_violation, then "ON CONFLICT DO
 * UPDATE command cannot affect row a second time" for two ids that become one stored id), the one-
 * by-one retry included, so the scope never moved on. Now they are stored as U+FFFD, the way the
 * rows store them, and every good event lands — on PostgreSQL and on the embedded warehouse.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startStubFeedSync, syncThroughStub, type StubFeedSync } from '../helpers/stub-feed.js';

const GROUP = 'group:6a0000000000000000000321';
const created = (secondsAgo: number) => new Date(Math.floor(Date.now() / 1000 - secondsAgo) * 1000).toISOString().replace('.000Z', 'Z');
const event = (id: string, secondsAgo: number, extra: Record<string, unknown> = {}) => ({
  id,
  created: created(secondsAgo),
  eventTypeName: 'JOINED_GROUP',
  groupId: GROUP.slice(6),
  ...extra,
});

describe.each(['postgres', 'pglite'] as const)('names and ids PostgreSQL refuses (%s)', { timeout: 240_000 }, (kind) => {
  let stub: StubFeedSync | undefined;
  afterEach(async () => stub?.close());

  /** Two runs over the same page (each re-reads it): both succeed and the checkpoint moves. */
  async function syncTwice(page: unknown[]) {
    stub = await startStubFeedSync(kind, [GROUP], () => page);
    for (let run = 1; run <= 2; run += 1) {
      const result = await syncThroughStub(stub, GROUP);
      expect(result.status, `run ${run}: ${String(result.error)}`).toBe('succeeded');
    }
    const db = stub.runtime.warehouse.db;
    const state = await db.selectFrom('sync_state').select('watermark').where('scope', '=', GROUP).executeTakeFirstOrThrow();
    expect(state.watermark).not.toBeNull();
    return db;
  }

  it('a NUL in an event type name, a top-level key or the first id of a new type: recorded as U+FFFD, the page lands', async () => {
    const db = await syncTwice([
      event('ok1', 600),
      event('t1', 601, { eventTypeName: 'T\u0000X' }),
      event('k1', 602, { 'a\u0000b': 1 }),
      event('i\u0000', 603, { eventTypeName: 'NEVER_SEEN' }),
      event('s1', 604, { eventTypeName: 'S\ud800', 'c\udc00d': true }),
      event('ok2', 605),
    ]);
    const rows = await db.selectFrom('events').select(['id', 'event_type_name']).orderBy('id').execute();
    expect(rows).toEqual([
      { id: 'i\ufffd', event_type_name: 'NEVER_SEEN' },
      { id: 'k1', event_type_name: 'JOINED_GROUP' },
      { id: 'ok1', event_type_name: 'JOINED_GROUP' },
      { id: 'ok2', event_type_name: 'JOINED_GROUP' },
      { id: 's1', event_type_name: 'S\ufffd' },
      { id: 't1', event_type_name: 'T\ufffdX' },
    ]);
    expect(await db.selectFrom('rejected_events').select('reason').execute()).toEqual([]);
    const types = await db
      .selectFrom('event_types_seen')
      .select(['event_type_name', 'first_event_id'])
      .orderBy('event_type_name')
      .execute();
    expect(types).toEqual([
      { event_type_name: 'JOINED_GROUP', first_event_id: 'ok1' },
      { event_type_name: 'NEVER_SEEN', first_event_id: 'i\ufffd' },
      { event_type_name: 'S\ufffd', first_event_id: 's1' },
      { event_type_name: 'T\ufffdX', first_event_id: 't1' },
    ]);
    const fields = await db.selectFrom('event_fields_seen').select(['event_type_name', 'field']).execute();
    expect(fields).toContainEqual({ event_type_name: 'JOINED_GROUP', field: 'a\ufffdb' });
    expect(fields).toContainEqual({ event_type_name: 'S\ufffd', field: 'c\ufffdd' });
    expect(fields.some((f) => f.field.includes('\u0000') || f.event_type_name.includes('\u0000'))).toBe(false);
  });

  it('two ids that become one stored id: kept once (the later one), and the rest of the page lands', async () => {
    const db = await syncTwice([
      event('ok1', 600),
      event('c\ud800', 601, { username: 'first' }),
      event('c\ufffd', 602, { username: 'second' }),
    ]);
    const rows = await db.selectFrom('events').select(['id', 'username']).orderBy('id').execute();
    expect(rows).toEqual([
      { id: 'c\ufffd', username: 'second' },
      { id: 'ok1', username: null },
    ]);
    expect(await db.selectFrom('rejected_events').select('reason').execute()).toEqual([]);
  });
});
