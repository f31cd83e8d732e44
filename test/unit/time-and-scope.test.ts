import { describe, expect, it } from 'vitest';
import { eventsPath, parseScope, tryParseScope } from '../../src/scope.js';
import { formatApiDate, parseIsoDate } from '../../src/time.js';

describe('formatApiDate', () => {
  it('sends whole seconds in UTC with a Z', () => {
    expect(formatApiDate(new Date('2026-11-22T10:11:12.999Z'))).toBe('2026-11-22T10:11:12Z');
    expect(formatApiDate(Date.UTC(2026, 0, 1))).toBe('2026-01-01T00:00:00Z');
  });
});

describe('parseIsoDate', () => {
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
