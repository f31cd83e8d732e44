/**
 * An event whose text holds a \u escape is stored from that text too, never from the parsed object
 * serialised again: only the escapes PostgreSQL cannot store (\u0000, a lone surrogate) become
 * \ufffd, and big integers, 1e400 and the `raw` document keep every digit. It used to go through
 * JSON.stringify, which stored 9007199254740993 as 9007199254740992, 1e400 as null, and the `raw`
 * column from the parsed value always. On PostgreSQL (COPY) and the embedded warehouse.
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { syncPageText, syncThroughStub, type StubFeedSync } from '../helpers/stub-feed.js';

const GROUP_ID = '6a0000000000000000000321';
const GROUP = `group:${GROUP_ID}`;
const created = (secondsAgo: number) => new Date(Math.floor(Date.now() / 1000 - secondsAgo) * 1000).toISOString().replace('.000Z', 'Z');
const head = (n: number) =>
  `"id":"64cc0000000000000000000${n}","created":"${created(600 + n)}","eventTypeName":"JOINED_GROUP","groupId":"${GROUP_ID}"`;

/** Each event's text as the API sends it, and the text the warehouse must hold (as jsonb). */
const SENT: ReadonlyArray<{ text: string; stored: string; raw?: string }> = [
  { text: `{${head(1)},"bytes":9007199254740993,"note":"caf\\u00e9"}`, stored: '' },
  { text: `{${head(2)},"big":123456789012345678901234567890,"note":"\\u00e9"}`, stored: '' },
  { text: `{${head(3)},"ratio":1e400,"tiny":1E-7,"zero":-0,"tenth":0.10,"note":"\\u00e9"}`, stored: '' },
  {
    text: `{${head(4)},"raw":{"bytes":12345678901234567890,"ratio":1e400,"note":"NUL \\u0000, lone \\ud800"},"note":"\\u00e9"}`,
    stored: `{${head(4)},"raw":{"bytes":12345678901234567890,"ratio":1e400,"note":"NUL \\ufffd, lone \\ufffd"},"note":"\\u00e9"}`,
    raw: '{"bytes":12345678901234567890,"ratio":1e400,"note":"NUL \\ufffd, lone \\ufffd"}',
  },
  // A raw document without any backslash: the raw column from its text as well.
  {
    text: `{${head(5)},"raw":{"bytes":12345678901234567890,"ratio":1e400}}`,
    stored: '',
    raw: '{"bytes":12345678901234567890,"ratio":1e400}',
  },
  {
    text: `{${head(6)},"pair":"\\ud83d\\ude00","escaped":"\\\\u0000 stays","nul":"\\u0000","big":-98765432109876543210}`,
    stored: `{${head(6)},"pair":"\\ud83d\\ude00","escaped":"\\\\u0000 stays","nul":"\\ufffd","big":-98765432109876543210}`,
  },
].map((event) => ({ ...event, stored: event.stored || event.text }));

const BODY = `{"links":[],"results":[${SENT.map((event) => event.text).join(',')}],"totalCount":${SENT.length}}`;

describe.each(['postgres', 'pglite'] as const)('payloads with \\u escapes stored from their text (%s)', (kind) => {
  let stub: StubFeedSync;

  beforeAll(async () => {
    stub = await syncPageText(kind, GROUP, BODY, SENT.length);
    // The embedded warehouse's migrations take tens of seconds on a busy machine.
  }, 300_000);
  afterAll(async () => stub?.close());

  it('keeps every number as sent, in payload and in raw', async () => {
    const db = stub.runtime.warehouse.db;
    for (const { text, stored, raw } of SENT) {
      const { id } = JSON.parse(text) as { id: string };
      const row = await sql<{ payload: boolean; raw: boolean | null; rawNull: boolean }>`
        select payload = ${stored}::jsonb as payload, raw = ${raw ?? null}::jsonb as raw, raw is null as "rawNull"
        from events where id = ${id}`.execute(db);
      expect(row.rows[0], text).toEqual({ payload: true, raw: raw === undefined ? null : true, rawNull: raw === undefined });
    }
    const exact = await sql<{ bytes: string; big: string }>`
      select (select payload->>'bytes' from events where id = '64cc00000000000000000001') as bytes,
             (select payload->>'big' from events where id = '64cc00000000000000000002') as big`.execute(db);
    expect(exact.rows[0]).toEqual({ bytes: '9007199254740993', big: '123456789012345678901234567890' });
  });

  it('changes nothing when the same page is read again', async () => {
    const again = await syncThroughStub(stub, GROUP);
    expect(again.status, String(again.error)).toBe('succeeded');
    expect({ inserted: again.totals.inserted, changed: again.totals.changed }).toEqual({ inserted: 0, changed: 0 });
  });
});
