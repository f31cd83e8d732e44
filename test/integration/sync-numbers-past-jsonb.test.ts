/**
 * Numbers that are valid JSON but past what PostgreSQL's jsonb holds (numeric: 16,383 digits after
 * the point, a leading digit up to 10^131071): the event holding one is set aside in
 * rejected_events with its text as sent (a JSON string holding it) and a reason naming the number,
 * and the page's other events land, on every run. Numbers just inside the limits land as events with
 * their exact value. A rejected event (no id) holding such a number is kept the same way. On
 * PostgreSQL (COPY) and the embedded warehouse.
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStubFeedSync, syncThroughStub, type StubFeedSync } from '../helpers/stub-feed.js';

const GROUP_ID = '6a0000000000000000000743';
const GROUP = `group:${GROUP_ID}`;
const created = (secondsAgo: number) => new Date(Math.floor(Date.now() / 1000 - secondsAgo) * 1000).toISOString();
const idOf = (n: number | string) => `64dd${'0'.repeat(18)}${String(n).padStart(2, '0')}`;
const event = (n: number, field: string) =>
  `{"id":"${idOf(n)}","created":"${created(600 + n)}","eventTypeName":"JOINED_GROUP",` + `"groupId":"${GROUP_ID}","metric":${field}}`;

/** Inside the limits: they land, every digit kept. */
const KEPT = { 1: '1e131071', 2: '1e-16383', 3: '0.1e131072', 4: '12.5' } as const;
/** Past them: set aside. */
const SET_ASIDE = { 5: '1e131072', 6: '1e-20000', 7: '10e131071', 8: '1.0e-16383', 9: '0e-16384' } as const;
const NO_ID = `{"created":"${created(700)}","metric":1e-20000}`;
const TEXT_OF = new Map(Object.entries({ ...KEPT, ...SET_ASIDE }).map(([n, value]) => [n, event(Number(n), value)]));
const TEXTS = [...TEXT_OF.values(), NO_ID];
const BODY = `{"links":[],"results":[${TEXTS.join(',')}],"totalCount":${TEXTS.length}}`;

describe.each(['postgres', 'pglite'] as const)('numbers past jsonb (%s)', (kind) => {
  let stub: StubFeedSync;
  beforeAll(async () => {
    stub = await startStubFeedSync(
      kind,
      [GROUP],
      () => TEXTS.map(() => ({})),
      {},
      () => BODY,
    );
  });
  afterAll(async () => stub?.close());

  it('lands the page, sets aside each event holding such a number with its text, and does so again on the next run', async () => {
    for (let run = 1; run <= 2; run += 1) {
      const result = await syncThroughStub(stub, GROUP);
      expect(result.status, `run ${run}: ${String(result.error)}`).toBe('succeeded');
    }
    const db = stub.runtime.warehouse.db;
    const events = await db
      .selectFrom('events')
      .select(['id', sql<string>`payload->>'metric'`.as('metric')])
      .orderBy('id')
      .execute();
    expect(events.map((row) => row.id)).toEqual(Object.keys(KEPT).map(idOf));
    // numeric prints a value by its digits: compare with PostgreSQL's own reading of the sent text.
    for (const row of events) {
      const sent = TEXTS.find((text) => text.includes(row.id))!;
      const same = await sql<{
        same: boolean;
      }>`select ${sent}::jsonb->'metric' = (payload->'metric') as same from events where id = ${row.id}`.execute(db);
      expect(same.rows[0]?.same, row.id).toBe(true);
    }
    const rejected = await db
      .selectFrom('rejected_events')
      .select(['reason', sql<string>`payload #>> '{}'`.as('text')])
      .orderBy('id')
      .execute();
    expect(rejected).toHaveLength(Object.keys(SET_ASIDE).length + 1);
    const texts = new Set(rejected.map((row) => row.text));
    for (const [n, value] of Object.entries(SET_ASIDE)) expect(texts.has(TEXT_OF.get(n)!), value).toBe(true);
    expect(texts.has(NO_ID)).toBe(true);
    for (const row of rejected) {
      expect(row.reason).toMatch(
        /^holds the number .*beyond what PostgreSQL's jsonb keeps.*; payload holds its text as sent, in a JSON string$/,
      );
    }
  });
});
