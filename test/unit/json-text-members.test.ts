import { describe, expect, it } from 'vitest';
import { arrayElements, objectMembers } from '../../src/json-text.js';

describe('objectMembers and arrayElements', () => {
  it('list members and elements as written, numbers with every digit, repeated keys each time', () => {
    const text = ' { "a" : 12345678901234567890123 , "b\\u0073":{"x":[1,2]},"a":"y" } ';
    expect(objectMembers(text)).toEqual([
      { keyText: '"a"', key: 'a', valueText: '12345678901234567890123' },
      { keyText: '"b\\u0073"', key: 'bs', valueText: '{"x":[1,2]}' },
      { keyText: '"a"', key: 'a', valueText: '"y"' },
    ]);
    expect(objectMembers('{}')).toEqual([]);
    expect(arrayElements('[ {"a":1} , 2.50 ,"s",[]]')).toEqual(['{"a":1}', '2.50', '"s"', '[]']);
    expect(arrayElements('[]')).toEqual([]);
  });

  it('answer undefined for another kind of value', () => {
    expect(objectMembers('[1]')).toBeUndefined();
    expect(objectMembers('"{}"')).toBeUndefined();
    expect(arrayElements('{"a":1}')).toBeUndefined();
  });
});
