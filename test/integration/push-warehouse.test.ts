/**
 * One row per event whichever path brings it: a pushed event lands provisional under its own id,
 * with the record kept as received; the pull path replaces it with the API's representation; a
 * later push changes nothing; duplicates and retries change nothing twice; a record that cannot be
 * mapped is set aside while the rest lands. PostgreSQL (the pull's COPY path) and the embedded warehouse.
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mapExportRecord } from '../../src/events/export-record.js';
import type { ValidEvent } from '../../src/events/types.js';
import { validateEvent } from '../../src/events/validate-event.js';
import { upsertEvents } from '../../src/warehouse/events.repository.js';
import { PUSH_UNKNOWN_SCOPE, writePushed, type PushedEvent, type PushedRejection } from '../../src/warehouse/pushed-events.repository.js';
import { openMigratedWarehouse, type TestWarehouse } from '../helpers/database.js';

const GROUP_ID = '62abb98d95a82610b74debc5';
const GROUP = `group:${GROUP_ID}`;

function exportRecord(id: string, createdMs: number, payload: Record<string, unknown> | string = { username: 'ana' }): string {
  const body = {
    _id: id,
    eventType: '/events/mms/groups/joined_group',
    projectId: GROUP_ID,
    createdDate: createdMs,
    eventPayload: typeof payload === 'string' ? payload : JSON.stringify(payload),
  };
  return JSON.stringify({
    timeUnixNano: `${createdMs}000000`,
    severityNumber: 'SEVERITY_NUMBER_INFO',
    body: { stringValue: JSON.stringify(body) },
    attributes: [{ key: 'mongodb.event.id', value: { stringValue: id } }],
  });
}

function mapBatch(records: string[]): { events: PushedEvent[]; rejected: PushedRejection[] } {
  const events: PushedEvent[] = [];
  const rejected: PushedRejection[] = [];
  for (const record of records) {
    const mapped = mapExportRecord(record);
    if (mapped.ok) events.push({ scope: mapped.scope, event: mapped.event, original: mapped.original });
    else rejected.push({ scopeKey: mapped.scope?.key ?? PUSH_UNKNOWN_SCOPE, reason: mapped.reason, original: mapped.original });
  }
  return { events, rejected };
}

/** The API's representation of the same event (what a page of the pull path holds). */
function apiEvent(id: string, createdMs: number, extra: Record<string, unknown> = {}): ValidEvent {
  const json = JSON.stringify({
    id,
    created: new Date(createdMs).toISOString().replace(/\.\d{3}Z$/, 'Z'),
    eventTypeName: 'JOINED_GROUP',
    groupId: GROUP_ID,
    username: 'ana',
    ...extra,
  });
  const check = validateEvent(JSON.parse(json), json);
  if (!check.ok) throw new Error(check.rejected.reason);
  return check.event;
}

const T0 = Date.UTC(2026, 10, 20, 12, 0, 0);

describe.each(['postgres', 'pglite'] as const)('pushed events in the warehouse (%s)', (kind) => {
  let test: TestWarehouse;
  const db = () => test.warehouse.db;
  const write = (records: string[], now = new Date()) => {
    const { events, rejected } = mapBatch(records);
    return test.warehouse.transaction((trx) => writePushed(trx, events, rejected, now));
  };
  const row = (id: string) =>
    db()
      .selectFrom('events')
      .select(['source', 'provisional', 'scope', 'event_type_name', 'username', 'payload', 'pushed', 'pushed_at', 'updated_at'])
      .where('id', '=', id)
      .executeTakeFirst();

  beforeAll(async () => {
    test = await openMigratedWarehouse(kind);
  });
  afterAll(async () => test?.close());

  it('lands a pushed event provisional, mapped, with the record as received', async () => {
    const record = exportRecord('a0000000000000000000000a', T0, `{"username":"ana","bigCount":12345678901234567890123}`);
    const counts = await write([record]);
    expect(counts).toEqual({ inserted: 1, held: 0, rejected: 0 });
    const landed = await row('a0000000000000000000000a');
    expect(landed).toMatchObject({ source: 'push', provisional: true, scope: GROUP, event_type_name: 'JOINED_GROUP', username: 'ana' });
    expect(landed?.pushed).toEqual(JSON.parse(record));
    const big = await sql<{ n: string }>`select payload->>'bigCount' as n from events where id = 'a0000000000000000000000a'`.execute(db());
    expect(big.rows[0]?.n).toBe('12345678901234567890123');
  });

  it('changes nothing on a duplicate, a retry or an older batch after a newer one', async () => {
    const records = [exportRecord('a0000000000000000000000b', T0 + 2000), exportRecord('a0000000000000000000000c', T0 + 1000)];
    await write([records[0]!], new Date(T0 + 10_000));
    const first = await row('a0000000000000000000000b');
    // The retried batch holds the first again, out of order and twice.
    const again = await write([records[1]!, records[0]!, records[0]!], new Date(T0 + 20_000));
    expect(again).toEqual({ inserted: 1, held: 2, rejected: 0 });
    expect(await row('a0000000000000000000000b')).toEqual(first);
    const count = await db()
      .selectFrom('events')
      .select(sql<number>`count(*)::int`.as('n'))
      .where('id', 'like', 'a%')
      .executeTakeFirstOrThrow();
    expect(count.n).toBe(3);
  });

  it("is replaced by the API's representation when the pull reads the same event, even one mapped identically", async () => {
    const id = 'a0000000000000000000000d';
    const record = exportRecord(id, T0 + 3000);
    await write([record]);
    const pushed = await row(id);
    // The mapping equals the API's event here: the pull must still take the row over.
    expect(pushed?.payload).toEqual(JSON.parse(apiEvent(id, T0 + 3000).json!));
    const counts = await upsertEvents(db(), GROUP, [apiEvent(id, T0 + 3000)]);
    expect(counts.inserted).toBe(0);
    const pulled = await row(id);
    expect(pulled).toMatchObject({ source: 'pull', provisional: false, scope: GROUP });
    expect(pulled?.pushed).toEqual(JSON.parse(record));
    // A different API representation too, and from another feed (the organization's).
    const other = 'a0000000000000000000000e';
    await write([exportRecord(other, T0 + 4000)]);
    await upsertEvents(db(), 'org:o1', [apiEvent(other, T0 + 4000, { username: 'bob' })]);
    expect(await row(other)).toMatchObject({ source: 'pull', scope: 'org:o1', username: 'bob' });
    const scopes = await db().selectFrom('event_scopes').select('scope').where('event_id', '=', other).execute();
    expect(scopes).toEqual([{ scope: 'org:o1' }]);
    const perDay = await sql<{
      n: number;
    }>`select sum(events)::int as n from events_per_day where day = '2026-11-20' and event_type_name = 'JOINED_GROUP'`.execute(db());
    const rows = await sql<{
      n: number;
    }>`select count(*)::int as n from events where created::date = '2026-11-20' and event_type_name = 'JOINED_GROUP'`.execute(db());
    expect(perDay.rows[0]?.n).toBe(rows.rows[0]?.n);
  });

  it('never overwrites a pulled event with a later push; the push only adds the record it lacked, once', async () => {
    const id = 'a0000000000000000000000f';
    await upsertEvents(db(), GROUP, [apiEvent(id, T0 + 5000, { hostname: 'from-the-api' })]);
    const pulled = await row(id);
    expect(pulled).toMatchObject({ source: 'pull', pushed: null });
    const record = exportRecord(id, T0 + 5000, { username: 'someone-else' });
    expect(await write([record])).toEqual({ inserted: 0, held: 1, rejected: 0 });
    const after = await row(id);
    expect(after).toMatchObject({ source: 'pull', username: 'ana', payload: pulled?.payload, updated_at: pulled?.updated_at });
    expect(after?.pushed).toEqual(JSON.parse(record));
    const stamp = after?.pushed_at;
    await write([exportRecord(id, T0 + 5000, { username: 'a-third-copy' })]);
    expect((await row(id))?.pushed_at).toEqual(stamp);
    expect((await row(id))?.pushed).toEqual(JSON.parse(record));
  });

  it('sets aside a record that cannot be mapped, with its reason, and lands the rest of its batch', async () => {
    const bad = exportRecord('a00000000000000000000010', 1788896817); // seconds, not milliseconds
    const counts = await write([bad, exportRecord('a00000000000000000000011', T0 + 6000)]);
    expect(counts).toEqual({ inserted: 1, held: 0, rejected: 1 });
    expect(await row('a00000000000000000000011')).toMatchObject({ source: 'push' });
    const rejected = await db().selectFrom('rejected_events').select(['scope', 'reason', 'payload', 'source', 'seen_count']).execute();
    expect(rejected).toEqual([
      { scope: GROUP, reason: expect.stringContaining('outside years 2000–9999'), payload: JSON.parse(bad), source: 'push', seen_count: 1 },
    ]);
  });
});
