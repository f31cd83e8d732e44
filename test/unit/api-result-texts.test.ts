import { describe, expect, it } from 'vitest';
import { wasmResultTexts } from '../../src/api/result-spans.js';
import { resultTexts, scanResultTexts, textsPairWith } from '../../src/api/result-texts.js';
import { Dataset } from '../../src/emulator/dataset.js';

/** A small seeded generator, so a failure names a body that can be made again. */
function randomJson(seed: number): () => unknown {
  let state = seed >>> 0 || 1;
  const next = () => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) / 2 ** 32;
  };
  const pieces = ['a', '"', '\\', '{', '}', '[', ']', ',', ':', ' ', '\t', '\n', 'é', '😀', '\u0000', '\ud800', 'results', '\\"'];
  const text = () => Array.from({ length: Math.floor(next() * 6) }, () => pieces[Math.floor(next() * pieces.length)]).join('');
  const value = (depth: number): unknown => {
    const kind = Math.floor(next() * (depth > 3 ? 5 : 7));
    if (kind === 0) return null;
    if (kind === 1) return next() < 0.5;
    if (kind === 2) return Math.floor(next() * 1e6) / (next() < 0.5 ? 1 : 1000) - 500;
    if (kind === 3 || kind === 4) return text();
    if (kind === 5) return Array.from({ length: Math.floor(next() * 4) }, () => value(depth + 1));
    return Object.fromEntries(Array.from({ length: Math.floor(next() * 5) }, () => [text(), value(depth + 1)]));
  };
  return () => value(0);
}

// Both scans, each on its own: the WebAssembly one (resultTexts' first choice) and the JavaScript one.
describe.each([
  ['resultTexts', resultTexts],
  ['the WebAssembly scan', wasmResultTexts],
  ['the JavaScript scan', scanResultTexts],
])('%s', (_name, resultTexts) => {
  const parsedTexts = (body: string) => resultTexts(body)?.map((text) => JSON.parse(text) as unknown);

  it("slices an emulator page into each event's text", () => {
    const dataset = new Dataset({
      seed: 9,
      orgs: ['5f1a00000000000000000d00'],
      groups: ['5f1a00000000000000000d0e'],
      eventsPerScope: 300,
      days: 1,
      malformedRate: 0.05,
      now: () => Date.UTC(2026, 10, 20),
      baseUrl: 'http://127.0.0.1:1/api/public/v1.0',
    });
    const page = dataset.query('group:5f1a00000000000000000d0e', { offset: 0, limit: 300, includeRaw: true });
    const body = JSON.stringify({ links: [{ rel: 'self', href: 'x' }], results: page.results, totalCount: page.totalCount });
    const texts = resultTexts(body)!;
    expect(texts).toHaveLength(page.results.length);
    expect(texts.map((text) => JSON.parse(text) as unknown)).toEqual(JSON.parse(body).results);
    // Slices of the body, not serialisations: the bytes as sent.
    for (const text of texts) expect(body.includes(text)).toBe(true);
  });

  it('agrees with JSON.parse on random bodies, compact and pretty-printed', () => {
    for (let seed = 1; seed <= 400; seed += 1) {
      const generate = randomJson(seed);
      const results = Array.from({ length: seed % 7 }, generate);
      const envelope = { before: generate(), results, after: generate(), totalCount: results.length };
      for (const body of [JSON.stringify(envelope), JSON.stringify(envelope, null, seed % 2 === 0 ? 2 : '\t')]) {
        expect(parsedTexts(body), `seed ${seed}: ${body}`).toEqual(JSON.parse(body).results);
      }
    }
  });

  it('takes the top-level results only, and the last one as JSON.parse does', () => {
    const body = '{"links":[{"results":[1,2]}],"nested":{"results":[3]},"results":[{"a":"}"}, 4],"results" : [ "x" , {"b":[]} ] }';
    expect(parsedTexts(body)).toEqual(JSON.parse(body).results);
    expect(resultTexts('{"results":[]}')).toEqual([]);
    expect(resultTexts(' \n{ "totalCount": 0, "results": [ ] }\n')).toEqual([]);
  });

  it('slices events of any size: more strings and escapes than one native match takes, nested deep', () => {
    const strings = Array.from({ length: 1_000_000 }, (_, i) => `s${i}\\"}]`);
    const escapes = '\\"'.repeat(5_000);
    const deep = JSON.parse('['.repeat(1_000) + ']'.repeat(1_000)) as unknown;
    const results = [{ id: 'a', strings }, { id: 'b', escapes, deep }, 'x', 17];
    const body = JSON.stringify({ results });
    // A regular expression repeating once per string overflows its backtracking stack here.
    expect(resultTexts(body)).toEqual(results.map((result) => JSON.stringify(result)));
  });

  it('gives up, never guesses, when the body is not an object with a results array', () => {
    expect(resultTexts('{"results":[1,2],"results":3}')).toBeUndefined();
    expect(resultTexts('{"totalCount":3}')).toBeUndefined();
    expect(resultTexts('[{"results":[1]}]')).toBeUndefined();
    expect(resultTexts('{"results":[{"a":1}')).toBeUndefined();
    expect(resultTexts('{"results":[{"a":"1}]}')).toBeUndefined();
    expect(resultTexts('')).toBeUndefined();
  });

  it('slices bodies in any script: offsets in UTF-16 units, whatever the UTF-8 bytes', () => {
    const results = [{ u: 'é' }, { u: '😀😀', v: '日本語' }, 'ascii', { w: 'a "quoted" é, a \\ backslash', x: ['𝄞', { y: 'ß' }] }];
    const body = JSON.stringify({ links: [{ href: 'ü' }], results, totalCount: 4 });
    expect(resultTexts(body)).toEqual(results.map((result) => JSON.stringify(result)));
    // The only character beyond ASCII in the body's last, partial, sixteen bytes; before and after the results.
    expect(resultTexts('{"results":[1,2,"é",3]}')).toEqual(['1', '2', '"é"', '3']);
    expect(resultTexts('{"z":"é","results":[{"a":"x"},"y"]}')).toEqual(['{"a":"x"}', '"y"']);
    expect(resultTexts('{"results":[{"a":"x"},"y"],"z":"é"}')).toEqual(['{"a":"x"}', '"y"']);
  });
});

describe('a results key written with an escape', () => {
  const body = '{"results":[{"id":"A"}],"result\\u0073":[{"id":"B"}, 2],"totalCount":1}';

  it('is left by the WebAssembly scan to the JavaScript one, which decodes it as JSON.parse does', () => {
    expect(wasmResultTexts(body)).toBeUndefined();
    expect(scanResultTexts(body)).toEqual(['{"id":"B"}', '2']);
    expect(resultTexts(body)).toEqual(['{"id":"B"}', '2']);
  });
});

describe('textsPairWith', () => {
  it("pairs texts whose ids are their parsed results' ids, escapes decoded", () => {
    const texts = ['{"id":"a\\u00e9"}', '{ "x" : {"id":"nested"}, "id" : "b" }', '{"created":"t"}', '7'];
    expect(textsPairWith([{ id: 'aé' }, { x: { id: 'nested' }, id: 'b' }, { created: 't' }, 7], texts)).toBe(true);
  });

  it('refuses texts of other events, in another order, another count, or a text holding two ids', () => {
    expect(textsPairWith([{ id: 'b' }, { id: 'a' }], ['{"id":"a"}', '{"id":"b"}'])).toBe(false);
    expect(textsPairWith([{ id: 'a' }], ['{"id":"a"}', '{"id":"b"}'])).toBe(false);
    expect(textsPairWith([{ id: 'b' }], ['{"id":"a","id":"b"}'])).toBe(false);
    expect(textsPairWith([{ created: 't' }], ['{"id":"a"}'])).toBe(false);
    expect(textsPairWith([{ id: 5 }], ['{"id":"5"}'])).toBe(false);
  });
});
