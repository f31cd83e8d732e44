import { describe, expect, it } from 'vitest';
import { WarehouseError } from '../../src/errors.js';
import { assertPlainIdentifier, quoteIdentifier } from '../../src/warehouse/identifier.js';
import { toStorableJson, toStorableText } from '../../src/warehouse/storable-json.js';

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
