import { describe, expect, it } from 'vitest';
import { WarehouseError } from '../../src/errors.js';
import { assertPlainIdentifier, quoteIdentifier } from '../../src/warehouse/identifier.js';
import type { ValidEvent } from '../../src/events/types.js';
import { storableJsonText, storableRawJson, toStorableJson, toStorableText } from '../../src/warehouse/storable-json.js';

describe('toStorableJson', () => {
  it('leaves ordinary JSON untouched, escapes and astral characters included', () => {
    const value = { a: 'tab\tquote" back\\slash', emoji: '😀', nested: [1, null, true] };
    expect(toStorableJson(value)).toBe(JSON.stringify(value));
  });

  it('replaces NUL and lone surrogates, which PostgreSQL refuses, with U+FFFD', () => {
    const parsed = JSON.parse(toStorableJson({ nul: 'a\u0000b', lone: 'x\ud800y', low: '\udc00', pair: '\ud83d\ude00' }));
    expect(parsed).toEqual({ nul: 'a\ufffdb', lone: 'x\ufffdy', low: '\ufffd', pair: '😀' });
  });

  it('does not touch text that merely looks like an escape', () => {
    const value = { literal: '\\u0000 and \\ud800' };
    expect(JSON.parse(toStorableJson(value))).toEqual(value);
  });

  it('writes undefined as null', () => {
    expect(toStorableJson(undefined)).toBe('null');
  });
});

describe('storableJsonText', () => {
  it('rewrites only \\u0000 and lone surrogate escapes, keeping every other byte', () => {
    const text =
      '{ "n" : 12345678901234567890, "r":1e400, "z":-0, "t":0.10,\n "s":"caf\\u00e9 \\u0000 \\ud800 \\udc00 \\ud83d\\ude00 \\\\u0000 \\n\\/" }';
    expect(storableJsonText(text)).toBe(
      '{ "n" : 12345678901234567890, "r":1e400, "z":-0, "t":0.10,\n "s":"caf\\u00e9 \\ufffd \\ufffd \\ufffd \\ud83d\\ude00 \\\\u0000 \\n\\/" }',
    );
  });

  it('replaces a high surrogate followed by another high one, and keeps the pair that follows', () => {
    expect(storableJsonText('"\\uD800\\uD83D\\uDE00\\uDE00"')).toBe('"\\ufffd\\uD83D\\uDE00\\ufffd"');
  });

  it('returns text without an escape as it is', () => {
    const text = '{"a": 1.0}';
    expect(storableJsonText(text)).toBe(text);
  });
});

describe('storableRawJson', () => {
  const event = (json: string): ValidEvent => {
    const payload = JSON.parse(json) as ValidEvent['payload'];
    return { id: 'x', created: new Date(0), payload, json };
  };

  it('takes the raw document from the text, the last one as JSON.parse keeps', () => {
    expect(storableRawJson(event('{"raw":{"a":1},"id":"x","raw" : {"b":12345678901234567890, "c":"\\u0000"} }'))).toBe(
      '{"b":12345678901234567890, "c":"\\ufffd"}',
    );
  });

  it('has none for a null or absent raw document, and serialises when no text was kept', () => {
    expect(storableRawJson(event('{"raw":null}'))).toBeUndefined();
    expect(storableRawJson(event('{"id":"x"}'))).toBeUndefined();
    expect(storableRawJson({ id: 'x', created: new Date(0), payload: { raw: { a: 'b\u0000' } } })).toBe('{"a":"b\\ufffd"}');
  });
});

describe('toStorableText', () => {
  it('replaces NUL and lone surrogates', () => {
    expect(toStorableText('a\u0000b\ud800 😀')).toBe('a\ufffdb\ufffd 😀');
  });
});

describe('assertPlainIdentifier', () => {
  it('accepts plain lower-case identifiers', () => {
    expect(assertPlainIdentifier('events_mirror')).toBe('events_mirror');
    expect(quoteIdentifier('_x1')).toBe('"_x1"');
  });

  it.each(['Events', 'public; drop table x', 'a-b', '1abc', '', 'x"y', 'a'.repeat(64)])('refuses %j', (value) => {
    expect(() => assertPlainIdentifier(value)).toThrow(WarehouseError);
    expect(() => assertPlainIdentifier(value)).toThrow(/not a plain identifier.*WAREHOUSE_SCHEMA/);
  });
});
