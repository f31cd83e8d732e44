/**
 * The payload as received, fuzzed: thousands of random events whose texts hold escapes (\u00e9,
 * \u0000, lone surrogates, valid pairs, \n, \", \\, \/), big integers (past 2^53, 30 digits),
 * extreme numbers (1e400, -0, 1E-7, 0.10) and nested `raw` documents, served over HTTP and synced
 * into PostgreSQL. Each stored `payload` and `raw` must be the text sent, after only the documented
 * U+FFFD replacements (which the generator writes down beside each text, token by token), compared
 * as jsonb text: jsonb keeps every digit and a number's written scale, so a rounded integer, a
 * 1e400 become null or a 0.10 become 0.1 all differ.
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStubFeedSync, syncThroughStub, type StubFeedSync } from '../helpers/stub-feed.js';

const GROUP_ID = '6a0000000000000000000323';
const GROUP = `group:${GROUP_ID}`;
const EVENTS = 3_000;
const PAGE = 500;
const SEED = 3232;

/** A text as sent beside the text the warehouse must hold. */
interface Pair {
  sent: string;
  stored: string;
}

function generator(seed: number) {
  let state = seed >>> 0 || 1;
  const next = () => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) / 2 ** 32;
  };
  const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!;
  const same = (text: string): Pair => ({ sent: text, stored: text });
  // String pieces: [as sent, as stored]. A lone high surrogate is followed by a plain letter, so the
  // next piece never makes a pair of it.
  const PIECES: readonly Pair[] = [
    same('a'),
    same('caf\\u00e9'),
    same('\\u00E9'),
    same('é'),
    same('😀'),
    same('\\ud83d\\ude00'),
    same('\\uD83D\\uDE00'),
    same('\\n'),
    same('\\"'),
    same('\\\\'),
    same('\\/'),
    same('\\t'),
    same('\\\\u0000'),
    same('\\\\ud800'),
    same('{}[],:'),
    { sent: '\\u0000', stored: '\\ufffd' },
    { sent: '\\ud800x', stored: '\\ufffdx' },
    { sent: '\\uDBFFx', stored: '\\ufffdx' },
    { sent: '\\udc00', stored: '\\ufffd' },
    { sent: '\\uDFFF', stored: '\\ufffd' },
  ];
  const NUMBERS = [
    '0',
    '-0',
    '1e400',
    '-1E400',
    '1E-7',
    '0.10',
    '1.5e-300',
    '9007199254740993',
    '-9007199254740993',
    '123456789012345678901234567890',
    '18446744073709551616',
    '3.14159265358979323846264338327950288',
  ];
  const SPACES = ['', '', '', ' ', '\n  ', '\t', '\r\n'];
  const join = (pairs: readonly Pair[], sep: Pair): Pair => ({
    sent: pairs.map((p) => p.sent).join(sep.sent),
    stored: pairs.map((p) => p.stored).join(sep.stored),
  });
  const string = (): Pair => {
    const pieces = Array.from({ length: Math.floor(next() * 6) }, () => pick(PIECES));
    const body = join(pieces, same(''));
    return { sent: `"${body.sent}"`, stored: `"${body.stored}"` };
  };
  const value = (depth: number): Pair => {
    const kind = Math.floor(next() * (depth > 2 ? 4 : 6));
    if (kind === 0) return same(pick(['null', 'true', 'false']));
    if (kind === 1) return same(pick(NUMBERS));
    if (kind === 2 || kind === 3) return string();
    if (kind === 4) return array(depth + 1);
    return object(depth + 1, []);
  };
  const array = (depth: number): Pair => {
    const items = join(
      Array.from({ length: Math.floor(next() * 4) }, () => value(depth)),
      same(`,${pick(SPACES)}`),
    );
    return { sent: `[${items.sent}]`, stored: `[${items.stored}]` };
  };
  const member = (key: Pair, item: Pair): Pair => {
    const space = pick(SPACES);
    return { sent: `${key.sent}${space}:${space}${item.sent}`, stored: `${key.stored}${space}:${space}${item.stored}` };
  };
  // Top-level keys are recorded in the schema tables; they hold no escape PostgreSQL refuses here.
  const topKey = (): Pair => same(`"${pick(['note', 'x\\u00e9', 'a\\nb', 'q\\"', 'big', 'ratio', '😀'])}"`);
  const object = (depth: number, fixed: readonly Pair[]): Pair => {
    const key = depth === 0 ? topKey : string;
    const members = [...fixed, ...Array.from({ length: Math.floor(next() * 5) }, () => member(key(), value(depth)))];
    // The fixed members (id, created) first and never repeated, so the event keeps its id.
    const body = join(members, same(`,${pick(SPACES)}`));
    return { sent: `{${pick(SPACES)}${body.sent}${pick(SPACES)}}`, stored: `{${pick(SPACES)}${body.stored}${pick(SPACES)}}` };
  };
  return (index: number, created: string): { event: Pair; raw?: Pair; id: string } => {
    const id = `64ee${String(index).padStart(20, '0')}`;
    const fixed = [member(same('"id"'), same(`"${id}"`)), member(same('"created"'), same(`"${created}"`))];
    fixed.push(member(same('"groupId"'), same(`"${GROUP_ID}"`)));
    fixed.push(member(same('"eventTypeName"'), same('"FUZZED"')));
    fixed.push(member(same('"username"'), string()));
    fixed.push(member(same('"bytes"'), same(pick(NUMBERS))));
    let raw: Pair | undefined;
    if (next() < 0.5) {
      raw = object(1, [member(same('"bytes"'), same(pick(NUMBERS))), member(same('"note"'), string())]);
      fixed.push(member(same('"raw"'), raw));
    }
    return { event: object(0, fixed), id, ...(raw ? { raw } : {}) };
  };
}

const createdAt = (secondsAgo: number) => new Date(Math.floor(Date.now() / 1000 - secondsAgo) * 1000).toISOString().replace('.000Z', 'Z');

describe('random events with escapes, big integers and extreme numbers, stored as sent (postgres)', () => {
  let stub: StubFeedSync;
  const make = generator(SEED);
  // Newest first, as the API lists them.
  const events = Array.from({ length: EVENTS }, (_, i) => make(i, createdAt(600 + i)));

  beforeAll(async () => {
    stub = await startStubFeedSync(
      'postgres',
      [GROUP],
      (_path, pageNum) => events.slice((pageNum - 1) * PAGE, pageNum * PAGE).map((e) => e.event.sent),
      { sync: { windowSeconds: 3 * 86_400 } },
      (texts) => `{"links":[],"results":[${texts.join(',')}],"totalCount":${EVENTS}}`,
    );
    const result = await syncThroughStub(stub, GROUP);
    expect(result.status, String(result.error)).toBe('succeeded');
    expect(result.totals.inserted).toBe(EVENTS);
  }, 300_000);
  afterAll(async () => stub?.close());

  it('finds no difference between the stored payload and raw and the text sent', async () => {
    const ids = events.map((e) => e.id);
    const payloads = events.map((e) => e.event.stored);
    const raws = events.map((e) => e.raw?.stored ?? null);
    const differing = await sql<{ id: string; stored: string | null; sent: string; raw: string | null; sentRaw: string | null }>`
      select x.id, e.payload::text as stored, x.payload as sent, e.raw::text as raw, x.raw as "sentRaw"
      from unnest(${ids}::text[], ${payloads}::text[], ${raws}::text[]) as x(id, payload, raw)
      left join events e on e.id = x.id
      where e.id is null
         or e.payload::text is distinct from x.payload::jsonb::text
         or e.raw::text is distinct from x.raw::jsonb::text`.execute(stub.runtime.warehouse.db);
    expect(differing.rows.slice(0, 3), `${differing.rows.length} of ${EVENTS} events stored differently`).toEqual([]);
  });
});
