/**
 * An event's payload is stored from the text the API sent, not from the parsed object serialised
 * again: numbers keep every digit (JSON.stringify would round 12345678901234567890), and the API's
 * own whitespace, escapes and key order change nothing. Text holding a \u escape goes through the
 * serialiser, which makes a refused character storable. On PostgreSQL (COPY) and the embedded
 * warehouse (one statement), and a second read of the same page changes nothing.
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { markdownTables, readDoc } from '../helpers/markdown.js';
import { syncPageText, syncThroughStub, type StubFeedSync } from '../helpers/stub-feed.js';

const GROUP_ID = '6a0000000000000000000181';
const GROUP = `group:${GROUP_ID}`;
const created = (secondsAgo: number) => new Date(Math.floor(Date.now() / 1000 - secondsAgo) * 1000).toISOString().replace('.000Z', 'Z');

/** Each event's text exactly as the API sends it. */
const SENT = [
  `{\n\t"id": "64bb00000000000000000001",\n\t"created": "${created(600)}",\n\t"eventTypeName": "JOINED_GROUP",\n\t"groupId": "${GROUP_ID}",` +
    `\n\t"username": "tab\\there, quote \\" and backslash \\\\",\n\t"bigCount": 12345678901234567890,\n\t"ratio": 1.10\n}`,
  `{"id":"64bb00000000000000000002","created":"${created(601)}","eventTypeName":"JOINED_GROUP","groupId":"${GROUP_ID}",` +
    `"note":"emoji \\ud83d\\ude00, lone \\udc00, NUL \\u0000 and é"}`,
  `{ "id" : "64bb00000000000000000003" , "created" : "${created(602)}" , "eventTypeName" : "JOINED_GROUP" ,\r\n` +
    ` "nested" : { "results" : [ 1 , { "}" : "{\\\\" } ] } , "groupId" : "${GROUP_ID}" }`,
  // No backslash at all: the fields need no escaping, only the whitespace between tokens does.
  `{\n\t"id": "64bb00000000000000000004",\r\n\t"created": "${created(603)}",\n\t"eventTypeName": "JOINED_GROUP",\n\t"username": "plain é 😀",\n\t"groupId": "${GROUP_ID}"\n}`,
];
const BODY = `{\n  "links": [],\n  "results": [\n    ${SENT.join(',\n    ')}\n  ],\n  "totalCount": ${SENT.length}\n}`;

describe.each(['postgres', 'pglite'] as const)('payloads stored as the API sent them (%s)', (kind) => {
  let stub: StubFeedSync;

  beforeAll(async () => {
    stub = await syncPageText(kind, GROUP, BODY, SENT.length);
  });
  afterAll(async () => stub?.close());

  it('keeps every digit and equals the sent text as jsonb', async () => {
    const db = stub.runtime.warehouse.db;
    for (const text of [SENT[0]!, SENT[2]!, SENT[3]!]) {
      const { id } = JSON.parse(text) as { id: string };
      const row = await sql<{ same: boolean }>`select payload = ${text}::jsonb as same from events where id = ${id}`.execute(db);
      expect(row.rows[0]?.same, text).toBe(true);
    }
    const first = await db
      .selectFrom('events')
      .select([sql<string>`payload->>'bigCount'`.as('bigCount'), sql<string>`payload->>'ratio'`.as('ratio'), 'username'])
      .where('id', '=', '64bb00000000000000000001')
      .executeTakeFirstOrThrow();
    expect(first).toEqual({ bigCount: '12345678901234567890', ratio: '1.10', username: 'tab\there, quote " and backslash \\' });
  });

  it('makes the characters PostgreSQL refuses storable in text that holds \\u escapes', async () => {
    const row = await stub.runtime.warehouse.db
      .selectFrom('events')
      .select(sql<string>`payload->>'note'`.as('note'))
      .where('id', '=', '64bb00000000000000000002')
      .executeTakeFirstOrThrow();
    expect(row.note).toBe('emoji 😀, lone \ufffd, NUL \ufffd and é');
  });

  it('changes nothing when the same page is read again', async () => {
    const again = await syncThroughStub(stub, GROUP);
    expect(again.status, String(again.error)).toBe('succeeded');
    expect(again.totals.eventsSeen).toBeGreaterThan(0);
    expect({ inserted: again.totals.inserted, changed: again.totals.changed }).toEqual({ inserted: 0, changed: 0 });
  });
});

/** docs/warehouse.md's table of what `payload` keeps: each value as sent, and as stored. */
function documentedExamples(): Array<{ sent: string; stored: string }> {
  const table = markdownTables(readDoc('docs/warehouse.md')).find((t) => t.header[0] === 'sent' && t.header[1]?.startsWith('stored'));
  if (!table) throw new Error("docs/warehouse.md has no 'sent | stored' table");
  const code = (cell: string) => /^`(.*)`$/.exec(cell)?.[1] ?? cell;
  return table.rows.map(([sent, stored]) => ({ sent: code(sent!), stored: code(stored!) }));
}

describe.each(['postgres', 'pglite'] as const)('what the payload keeps, as docs/warehouse.md states it (%s)', (kind) => {
  const groupId = '6a0000000000000000000182';
  const examples = documentedExamples();
  const idOf = (i: number) => `64bc${String(i).padStart(20, '0')}`;
  let stub: StubFeedSync;

  beforeAll(async () => {
    // Each example is member `x` of one event, sent as the table spells it.
    const texts = examples.map(
      ({ sent }, i) =>
        `{"id": "${idOf(i)}", "created": "${created(700 + i)}", "eventTypeName": "JOINED_GROUP", "groupId": "${groupId}", "x": ${sent}}`,
    );
    const body = `{"links": [], "results": [${texts.join(', ')}], "totalCount": ${texts.length}}`;
    stub = await syncPageText(kind, `group:${groupId}`, body, texts.length);
  });
  afterAll(async () => stub?.close());

  it('stores each example as the table says, and equal as jsonb to the text sent', async () => {
    expect(examples.length).toBeGreaterThanOrEqual(8);
    const db = stub.runtime.warehouse.db;
    for (const [i, { sent, stored }] of examples.entries()) {
      const row = await sql<{ stored: string }>`select (payload->'x')::text as stored from events where id = ${idOf(i)}`.execute(db);
      expect(row.rows[0]?.stored, sent).toBe(stored);
      // PostgreSQL refuses the text of \u0000 itself: the one example stored changed, not as sent.
      if (sent.includes('\\u0000')) continue;
      const same = await sql<{ same: boolean }>`select payload->'x' = ${sent}::jsonb as same from events where id = ${idOf(i)}`.execute(db);
      expect(same.rows[0]?.same, sent).toBe(true);
    }
  });
});
