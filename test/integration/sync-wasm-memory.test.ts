/**
 * WebAssembly memory is given back after a page far larger than usual (issue 32, item 12): a
 * module's memory only grows, so one 40 MB page through the text scan and the COPY encoder used to
 * leave both holding hundreds of MiB for the life of the process. Synced over HTTP into PostgreSQL:
 * a 40 MB page of 500 events, then two usual pages; afterwards each module's memory is at most
 * WASM_MEMORY_KEPT_BYTES (each was instantiated again for the usual pages), and every event is
 * stored as sent, compared as jsonb text as the fuzz test does.
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WASM_MEMORY_KEPT_BYTES, wasmMemoryBytes } from '../../src/wasm-modules.js';
import { startStubFeedSync, syncThroughStub, type StubFeedSync } from '../helpers/stub-feed.js';

const GROUP_ID = '6a0000000000000000003212';
const GROUP = `group:${GROUP_ID}`;
const PAGE = 500;
/** Bytes of each event's large field on the first page: 500 of them make a 40 MB body. */
const LARGE_FIELD = 80_000;

const createdAt = (secondsAgo: number) => new Date(Math.floor(Date.now() / 1000 - secondsAgo) * 1000).toISOString().replace('.000Z', 'Z');

/** An event's text: on the first page with a large field of words, no backslash (the modules' fast path). */
function eventText(index: number): string {
  const id = `64f3${String(index).padStart(20, '0')}`;
  const head = `{"id":"${id}","created":"${createdAt(600 + index)}","eventTypeName":"JOINED_GROUP","groupId":"${GROUP_ID}","username":"user${index}@example.com"`;
  if (index >= PAGE) return `${head},"remoteAddress":"10.0.${index % 250}.${index % 199}"}`;
  const words = `event ${index} café 😀 notes: `;
  return `${head},\n  "notes": "${words.repeat(Math.ceil(LARGE_FIELD / words.length)).slice(0, LARGE_FIELD)}",\n  "count": ${index}}`;
}

describe('WebAssembly memory after a 40 MB page (postgres)', () => {
  let stub: StubFeedSync;
  // Newest first, as the API lists them: a 40 MB page, a usual one, a short one that ends the window.
  const texts = Array.from({ length: 2 * PAGE + 100 }, (_, i) => eventText(i));
  const firstPageBytes = Buffer.byteLength(texts.slice(0, PAGE).join(','));

  beforeAll(async () => {
    stub = await startStubFeedSync(
      'postgres',
      [GROUP],
      (_path, pageNum) => texts.slice((pageNum - 1) * PAGE, pageNum * PAGE),
      {},
      (page) => `{"links":[],"results":[${page.join(',')}],"totalCount":${texts.length}}`,
    );
    const result = await syncThroughStub(stub, GROUP);
    expect(result.status, String(result.error)).toBe('succeeded');
    expect(result.totals.inserted).toBe(texts.length);
  }, 240_000);
  afterAll(async () => stub?.close());

  it('gives the memory back: each module is at most WASM_MEMORY_KEPT_BYTES afterwards', () => {
    expect(firstPageBytes).toBeGreaterThan(40_000_000);
    const memory = wasmMemoryBytes();
    // Both modules ran on the usual pages after the large one.
    expect(Object.keys(memory).sort()).toEqual(['copy-lines.wasm', 'result-spans.wasm']);
    const over = Object.entries(memory)
      .filter(([, bytes]) => bytes > WASM_MEMORY_KEPT_BYTES)
      .map(([name, bytes]) => `${name} holds ${(bytes / 2 ** 20).toFixed(1)} MiB`);
    expect(over, `at most ${WASM_MEMORY_KEPT_BYTES / 2 ** 20} MiB each`).toEqual([]);
  });

  it('stores every event as sent, on the large page and on those after it', async () => {
    const ids = texts.map((text) => (JSON.parse(text) as { id: string }).id);
    const differing = await sql<{ id: string }>`
      select x.id
      from unnest(${ids}::text[], ${texts}::text[]) as x(id, sent)
      left join events e on e.id = x.id
      where e.id is null or e.payload::text is distinct from x.sent::jsonb::text`.execute(stub.runtime.warehouse.db);
    expect(
      differing.rows.map((row) => row.id).slice(0, 5),
      `${differing.rows.length} of ${texts.length} events stored differently`,
    ).toEqual([]);
  });
});
