import { describe, expect, it } from 'vitest';
import { formatDuration, renderTable, terminalSafe } from '../../src/report/table.js';
import { formatTimestamp } from '../../src/time.js';
import { mapWithConcurrency } from '../../src/sync/concurrency.js';
import { addTotals, emptyTotals, formatCompletion } from '../../src/sync/totals.js';

describe('formatCompletion', () => {
  it('reads like graphile-worker’s completion lines', () => {
    const totals = { ...emptyTotals(), pages: 3, eventsSeen: 1204, inserted: 1180, changed: 0, rejected: 2 };
    const window = { minDate: new Date('2026-11-01T00:00:00Z'), maxDate: new Date('2026-11-02T00:00:00Z') };
    expect(formatCompletion('group:abc', window, totals, 812)).toBe(
      'synced group:abc 2026-11-01T00:00:00Z..2026-11-02T00:00:00Z: 3 pages, 1,204 events (1,180 new, 0 changed, 2 rejected) in 812 ms',
    );
    expect(formatCompletion('org:x', window, { ...emptyTotals(), pages: 1 }, 5)).toContain(': 1 page, 0 events');
  });

  it('adds totals field by field', () => {
    const sum = addTotals({ ...emptyTotals(), pages: 1, inserted: 2 }, { ...emptyTotals(), pages: 2, rejected: 1 });
    expect(sum).toMatchObject({ pages: 3, inserted: 2, rejected: 1 });
  });
});

describe('renderTable', () => {
  it('pads columns, right-aligns numbers and formats them', () => {
    const text = renderTable(
      ['scope', 'events'],
      [
        ['org:a', 1234],
        ['group:long-name', 5],
      ],
    );
    expect(text.split('\n')).toEqual([
      'scope            events',
      '---------------  ------',
      'org:a             1,234',
      'group:long-name       5',
      '',
    ]);
  });

  it('shows control characters as escapes, keeping each row on one line and the columns aligned', () => {
    expect(terminalSafe('a\u001b[2Jb\r\n\tc\u007f\u0085\u2028\u202e\\x')).toBe('a\\x1b[2Jb\\r\\n\\tc\\x7f\\x85\\u2028\\u202e\\x');
    expect(renderTable(['name', 'n'], [['T\u0007\nforged', 1]]).split('\n')).toEqual([
      'name           n',
      '-------------  -',
      'T\\x07\\nforged  1',
      '',
    ]);
  });
});

describe('formatDuration and formatTimestamp', () => {
  it.each([
    [0, '0s'],
    [40_000, '40s'],
    [725_000, '12m 5s'],
    [3 * 86_400_000 + 4 * 3_600_000 + 5_000, '3d 4h'],
  ])('%d ms is %s', (ms, text) => expect(formatDuration(ms)).toBe(text));

  it('prints missing values as a dash', () => {
    expect(formatDuration(undefined)).toBe('-');
    expect(formatTimestamp(null)).toBe('-');
    expect(formatTimestamp(new Date('2026-11-01T00:00:00.500Z'))).toBe('2026-11-01T00:00:00Z');
  });
});

describe('mapWithConcurrency', () => {
  it('keeps order and never runs more than the limit at once', async () => {
    let running = 0;
    let peak = 0;
    const results = await mapWithConcurrency([5, 1, 4, 2, 3], 2, async (n) => {
      running += 1;
      peak = Math.max(peak, running);
      await new Promise((resolve) => setTimeout(resolve, n));
      running -= 1;
      return n * 10;
    });
    expect(results).toEqual([50, 10, 40, 20, 30]);
    expect(peak).toBe(2);
  });
});
