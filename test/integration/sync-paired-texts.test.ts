/**
 * Each event is stored from its own text. A body whose top-level `results` key is written with an
 * escape (`"result\u0073"`) holds two arrays JSON.parse reads as one key, keeping the last; the
 * scans used to match only the literal `"results"` and pair texts with parsed events by count, so
 * the row was A's id and payload with B's created time, and B was lost. The JavaScript scan now
 * decodes such keys (the WebAssembly one leaves the body to it), and texts whose `id` is not their
 * parsed event's are not used at all: the page is stored from the parsed events and counted in
 * events_mirror_api_unpaired_texts_total. Over HTTP, on PostgreSQL and the embedded warehouse.
 */
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiMetrics } from '../../src/api/metrics.js';
import { startStubFeedSync, syncThroughStub, type StubFeedSync } from '../helpers/stub-feed.js';

const GROUP_ID = '6a0000000000000000000322';
const GROUP = `group:${GROUP_ID}`;
const created = (secondsAgo: number) => new Date(Math.floor(Date.now() / 1000 - secondsAgo) * 1000).toISOString().replace('.000Z', 'Z');
const A = { id: '64dd000000000000000000a1', created: created(900), username: 'alice', groupId: GROUP_ID };
const B = { id: '64dd000000000000000000b2', created: created(600), username: 'bob', groupId: GROUP_ID };
/** The body: `results` twice, the second spelled with an escape. */
const ESCAPED_KEY_BODY = `{"results":[${JSON.stringify(A)}],"result\\u0073":[${JSON.stringify(B)}],"totalCount":1,"links":[]}`;
/** An event whose text holds its id twice: JSON.parse keeps the second, the text's first is another. */
const C_TEXT = `{"id":"64dd000000000000000000c3","created":"${created(700)}","groupId":"${GROUP_ID}","big":12345678901234567890,"id":"64dd000000000000000000c4"}`;
const DUPLICATE_ID_BODY = `{"results":[${C_TEXT}],"totalCount":1,"links":[]}`;

describe.each(['postgres', 'pglite'] as const)('texts paired with their own events (%s)', (kind) => {
  let stub: StubFeedSync;
  const registry = new Registry();
  const metrics = createApiMetrics(registry);
  let body = ESCAPED_KEY_BODY;

  beforeAll(async () => {
    stub = await startStubFeedSync(
      kind,
      [GROUP],
      () => [{}],
      {},
      // Every window gets the page; it has one result, shorter than a page, so each window ends there.
      () => body,
      { metrics },
    );
    // The embedded warehouse's migrations take tens of seconds on a busy machine.
  }, 300_000);
  afterAll(async () => stub?.close());

  const unpaired = async () => (await registry.getSingleMetric('events_mirror_api_unpaired_texts_total')!.get()).values[0]?.value ?? 0;

  it('stores the event JSON.parse keeps, from its own text, and loses none', async () => {
    const result = await syncThroughStub(stub, GROUP);
    expect(result.status, String(result.error)).toBe('succeeded');
    const rows = await stub.runtime.warehouse.db.selectFrom('events').select(['id', 'created', 'username', 'payload']).execute();
    expect(rows.map((row) => ({ ...row, created: row.created.toISOString().replace('.000Z', 'Z') }))).toEqual([
      { id: B.id, created: B.created, username: 'bob', payload: B },
    ]);
    expect(await unpaired()).toBe(0);
  });

  it('stores from the parsed event, and counts the page, when a text holds another id', async () => {
    body = DUPLICATE_ID_BODY;
    const result = await syncThroughStub(stub, GROUP);
    expect(result.status, String(result.error)).toBe('succeeded');
    const row = await stub.runtime.warehouse.db
      .selectFrom('events')
      .select(['id', 'payload'])
      .where('id', 'like', '64dd000000000000000000c%')
      .executeTakeFirstOrThrow();
    expect(row.id).toBe('64dd000000000000000000c4');
    expect((row.payload as { id: string }).id).toBe('64dd000000000000000000c4');
    expect(await unpaired()).toBeGreaterThan(0);
  });
});
