/**
 * An event nested thousands of levels deep used to stop its scope: at 5,000 levels with one \u00e9
 * JSON.stringify overflowed its stack on every run ("Maximum call stack size exceeded"); at 100,000
 * PostgreSQL refused the row (54001) and setting it aside called JSON.stringify again. Now an event
 * nested deeper than MAX_EVENT_DEPTH is set aside in rejected_events with its reason and its text
 * as sent (in a JSON string, which jsonb can hold), the rest of the page lands, and the scope goes
 * on. Over HTTP, on PostgreSQL and the embedded warehouse.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStubFeedSync, syncThroughStub, type StubFeedSync } from '../helpers/stub-feed.js';

const GROUP_ID = '6a0000000000000000000324';
const GROUP = `group:${GROUP_ID}`;
const created = (secondsAgo: number) => new Date(Math.floor(Date.now() / 1000 - secondsAgo) * 1000).toISOString().replace('.000Z', 'Z');
const head = (id: string, secondsAgo: number) =>
  `"id":"${id}","created":"${created(secondsAgo)}","eventTypeName":"JOINED_GROUP","groupId":"${GROUP_ID}"`;
const deep = (levels: number) => `${'{"a":'.repeat(levels)}"caf\\u00e9"${'}'.repeat(levels)}`;

const SENT = [
  `{${head('64ff00000000000000000001', 600)},"username":"first"}`,
  `{${head('64ff00000000000000000002', 601)},"deep":${deep(5_000)}}`,
  `{${head('64ff00000000000000000003', 602)},"deep":${deep(100_000)}}`,
  `{${head('64ff00000000000000000004', 603)},"username":"last"}`,
];
const BODY = `{"links":[],"results":[${SENT.join(',')}],"totalCount":${SENT.length}}`;

describe.each(['postgres', 'pglite'] as const)('events nested thousands of levels deep (%s)', (kind) => {
  let stub: StubFeedSync;

  beforeAll(async () => {
    stub = await startStubFeedSync(
      kind,
      [GROUP],
      () => [{}, {}, {}, {}],
      {},
      () => BODY,
    );
  }, 300_000);
  afterAll(async () => stub?.close());

  it('sets them aside with their text as sent and lands the rest, run after run', async () => {
    for (let run = 0; run < 2; run += 1) {
      const result = await syncThroughStub(stub, GROUP);
      expect(result.status, String(result.error)).toBe('succeeded');
    }
    const db = stub.runtime.warehouse.db;
    const events = await db.selectFrom('events').select(['id', 'username']).orderBy('id').execute();
    expect(events).toEqual([
      { id: '64ff00000000000000000001', username: 'first' },
      { id: '64ff00000000000000000004', username: 'last' },
    ]);
    const rejected = await db.selectFrom('rejected_events').select(['reason', 'payload']).orderBy('reason').execute();
    expect(rejected.map((row) => row.reason)).toEqual([
      'nested 100001 levels deep, over the 1000 the warehouse keeps; payload holds its text as sent, in a JSON string',
      'nested 5001 levels deep, over the 1000 the warehouse keeps; payload holds its text as sent, in a JSON string',
    ]);
    expect(rejected.map((row) => row.payload)).toEqual([SENT[2], SENT[1]]);
    const state = await db.selectFrom('sync_state').select('watermark').where('scope', '=', GROUP).executeTakeFirstOrThrow();
    expect(state.watermark).not.toBeNull();
  });
});
