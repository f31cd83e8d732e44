import { describe, expect, it } from 'vitest';
import { buildEventsTarget } from '../../src/api/events-query.js';
import { parseScope } from '../../src/scope.js';

describe('buildEventsTarget', () => {
  const group = parseScope('group:abc');
  it('sends whole-second UTC dates, eventType repeated, includeRaw only when true', () => {
    const target = buildEventsTarget(
      group,
      {
        minDate: new Date('2026-11-01T00:00:00.900Z'),
        maxDate: new Date('2026-11-02T00:00:00Z'),
        eventTypes: ['DATA_EXPLORER', 'A&B'],
        includeRaw: true,
        pageNum: 2,
      },
      500,
    );
    expect(target).toBe(
      '/groups/abc/events?pageNum=2&itemsPerPage=500&minDate=2026-11-01T00:00:00Z&maxDate=2026-11-02T00:00:00Z&eventType=DATA_EXPLORER&eventType=A%26B&includeRaw=true',
    );
    expect(buildEventsTarget(parseScope('org:o1'), { includeRaw: false, itemsPerPage: 10, envelope: true }, 500)).toBe(
      '/orgs/o1/events?pageNum=1&itemsPerPage=10&envelope=true',
    );
  });

  it('refuses bad dates and page sizes instead of dropping them', () => {
    expect(() => buildEventsTarget(group, { minDate: new Date('nope') }, 500)).toThrow(/minDate for group:abc is not a valid date/);
    expect(() => buildEventsTarget(group, { itemsPerPage: 501 }, 500)).toThrow(/1 to 500/);
    expect(() => buildEventsTarget(group, { pageNum: 0 }, 500)).toThrow(/pageNum/);
  });
});
