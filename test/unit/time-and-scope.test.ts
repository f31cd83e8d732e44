import { describe, expect, it } from 'vitest';
import { eventsPath, parseScope, tryParseScope } from '../../src/scope.js';
import { formatApiDate, isoTimestamp, parseIsoDate } from '../../src/time.js';

describe('formatApiDate', () => {
  it('sends whole seconds in UTC with a Z', () => {
    expect(formatApiDate(new Date('2026-11-22T10:11:12.999Z'))).toBe('2026-11-22T10:11:12Z');
    expect(formatApiDate(Date.UTC(2026, 0, 1))).toBe('2026-01-01T00:00:00Z');
  });
});

describe('isoTimestamp', () => {
  // Every day boundary, leap day and century rule of four centuries, then random instants across
  // the four-digit years; toISOString is the reference.
  const instants = [
    ...Array.from({ length: 146_097 }, (_, day) => Date.UTC(1800, 0, 1) + day * 86_400_000 - 1),
    ...Array.from({ length: 100_000 }, (_, i) => Math.floor(-62_167_219_200_000 + ((i * 2_654_435_761) % 100_000) * 3_155_695_200 + i)),
    -62_167_219_200_000, // 0000-01-01T00:00:00.000Z
    253_402_300_799_999, // 9999-12-31T23:59:59.999Z
    0,
    -1,
  ];

  it('writes exactly what toISOString writes', () => {
    const differing = instants.filter((ms) => isoTimestamp(ms) !== new Date(ms).toISOString());
    expect(differing.map((ms) => new Date(ms).toISOString())).toEqual([]);
  });

  it('leaves years outside 0000–9999 and invalid dates to toISOString', () => {
    for (const ms of [-62_167_219_200_001, 253_402_300_800_000, 8.64e15]) expect(isoTimestamp(ms)).toBe(new Date(ms).toISOString());
    expect(() => isoTimestamp(new Date(Number.NaN))).toThrow(RangeError);
  });

  it('truncates to whole seconds for the API, before 1970 too', () => {
    expect(formatApiDate(-500)).toBe('1969-12-31T23:59:59Z');
    expect(formatApiDate(Date.UTC(2028, 1, 29, 23, 59, 59, 999))).toBe('2028-02-29T23:59:59Z');
  });
});

describe('parseIsoDate', () => {
  it('reads the API form of every day of four centuries as Date does', () => {
    const differing: string[] = [];
    for (let day = 0; day < 146_097; day += 1) {
      const iso = new Date(Date.UTC(1800, 0, 1) + day * 86_400_000 + 45_296_789).toISOString();
      if (parseIsoDate(iso)?.toISOString() !== iso) differing.push(iso);
    }
    expect(differing).toEqual([]);
  });

  it.each([
    ['2026-11-01', '2026-11-01T00:00:00.000Z'],
    ['2026-11-01T10:00:00Z', '2026-11-01T10:00:00.000Z'],
    ['2026-11-01T10:00Z', '2026-11-01T10:00:00.000Z'],
    ['2026-11-01T10:00:00.250Z', '2026-11-01T10:00:00.250Z'],
    ['2026-11-01T12:00:00+02:00', '2026-11-01T10:00:00.000Z'],
    ['2028-02-29T23:59:59Z', '2028-02-29T23:59:59.000Z'],
    ['0099-12-31T00:00:00Z', '0099-12-31T00:00:00.000Z'],
    ['2000-02-29T00:00:00.5Z', '2000-02-29T00:00:00.500Z'],
    ['2026-11-01T10:00:00.25Z', '2026-11-01T10:00:00.250Z'],
    ['2026-11-01T10:00:00.007Z', '2026-11-01T10:00:00.007Z'],
  ])('accepts %s', (text, iso) => {
    expect(parseIsoDate(text)?.toISOString()).toBe(iso);
  });

  it.each([
    '',
    'yesterday',
    '2026-13-01',
    '2026-02-30',
    '2026-11-01T25:00:00Z',
    '2026-11-01T10:00:00',
    '1700000000',
    // The API's own form, whose fast path must refuse what Date would roll over.
    '2026-02-30T00:00:00Z',
    '2026-02-29T00:00:00Z',
    '1900-02-29T00:00:00Z',
    '2026-04-31T10:00:00Z',
    '2026-00-10T10:00:00Z',
    '2026-11-00T10:00:00Z',
    '2026-11-01T24:00:00Z',
    '2026-11-01T23:60:00Z',
    '2026-11-01T23:59:60Z',
  ])('refuses %s', (text) => {
    expect(parseIsoDate(text)).toBeUndefined();
  });
});

describe('scopes', () => {
  it('parses both forms and builds the endpoint path', () => {
    expect(eventsPath(parseScope('org:5f1a'))).toBe('/orgs/5f1a/events');
    expect(eventsPath(parseScope('group:abc_1'))).toBe('/groups/abc_1/events');
    expect(parseScope(' org:x ').key).toBe('org:x');
  });

  it('refuses other forms', () => {
    for (const text of ['project:1', 'org:', 'org', 'group:a/b', 'org:a:b']) expect(tryParseScope(text)).toBeUndefined();
    expect(() => parseScope('orgs:1')).toThrow(/expected `org:<orgId>` or `group:<groupId>`/);
  });
});
