import { describe, expect, it } from 'vitest';
import {
  formatWindow,
  isTooDeep,
  planBackfill,
  planSync,
  splitForDepth,
  splitRange,
  splitWindowInto,
  splitWindowDisjoint,
} from '../../src/sync/planner.js';

const NOW = new Date('2026-11-22T12:00:30.750Z');
const base = { initialDays: 30, lookbackSeconds: 900, settleSeconds: 5, windowSeconds: 86_400, now: NOW };

describe('planSync', () => {
  it('freezes maxDate at now − settle, truncated to the second', () => {
    expect(planSync({ ...base, watermark: null }).maxDate.toISOString()).toBe('2026-11-22T12:00:25.000Z');
  });

  it('starts a scope with no checkpoint initialDays back, or at its start date', () => {
    const fresh = planSync({ ...base, watermark: null });
    expect(fresh.windows[0]!.minDate.toISOString()).toBe('2026-10-23T12:00:30.000Z');
    const dated = planSync({ ...base, watermark: null, startDate: new Date('2026-11-20T00:00:00Z') });
    expect(dated.windows.map(formatWindow)).toEqual([
      '2026-11-20T00:00:00Z..2026-11-21T00:00:00Z',
      '2026-11-21T00:00:00Z..2026-11-22T00:00:00Z',
      '2026-11-22T00:00:00Z..2026-11-22T12:00:25Z',
    ]);
  });

  it('re-reads the lookback before the watermark', () => {
    const plan = planSync({ ...base, watermark: new Date('2026-11-22T11:59:00Z') });
    expect(plan.windows.map(formatWindow)).toEqual(['2026-11-22T11:44:00Z..2026-11-22T12:00:25Z']);
  });

  it('plans nothing when the range is empty', () => {
    const plan = planSync({ ...base, lookbackSeconds: 0, watermark: new Date('2026-11-22T13:00:00Z') });
    expect(plan.windows).toEqual([]);
  });

  it('covers the whole range with windows that share their boundaries, oldest first', () => {
    const plan = planSync({ ...base, watermark: null, windowSeconds: 3600 });
    const windows = plan.windows;
    expect(windows[0]!.minDate.getTime()).toBe(Date.parse('2026-10-23T12:00:30Z'));
    expect(windows.at(-1)!.maxDate.getTime()).toBe(plan.maxDate.getTime());
    for (let i = 1; i < windows.length; i++) {
      expect(windows[i]!.minDate.getTime()).toBe(windows[i - 1]!.maxDate.getTime());
      expect(windows[i]!.maxDate.getTime() - windows[i]!.minDate.getTime()).toBeLessThanOrEqual(3_600_000);
    }
  });
});

describe('planBackfill', () => {
  it('aligns windows to the window size so re-runs plan the same windows', () => {
    const a = planBackfill(new Date('2026-11-01T06:00:00Z'), new Date('2026-11-03T00:00:00Z'), 86_400).map(formatWindow);
    const b = planBackfill(new Date('2026-11-02T00:00:00Z'), new Date('2026-11-03T00:00:00Z'), 86_400).map(formatWindow);
    expect(a).toEqual(['2026-11-01T06:00:00Z..2026-11-02T00:00:00Z', '2026-11-02T00:00:00Z..2026-11-03T00:00:00Z']);
    expect(a).toContain(b[0]);
  });

  it('gives a one-instant window for from = to and none for from > to', () => {
    const t = new Date('2026-11-01T00:00:00Z');
    expect(planBackfill(t, t, 60)).toHaveLength(1);
    expect(splitRange(2000, 1000, 60)).toEqual([]);
  });
});

describe('splitWindowInto', () => {
  it('halves a window at a whole second, sharing the middle', () => {
    const [older, newer] = splitWindowInto({ minDate: new Date('2026-11-01T00:00:00Z'), maxDate: new Date('2026-11-01T00:00:11Z') }, 2)!;
    expect(formatWindow(older!)).toBe('2026-11-01T00:00:00Z..2026-11-01T00:00:05Z');
    expect(formatWindow(newer!)).toBe('2026-11-01T00:00:05Z..2026-11-01T00:00:11Z');
  });

  it('stops at one second', () => {
    expect(splitWindowInto({ minDate: new Date(0), maxDate: new Date(1000) }, 2)).toBeUndefined();
    expect(splitWindowInto({ minDate: new Date(0), maxDate: new Date(2000) }, 2)).toHaveLength(2);
  });
});

describe('splitForDepth', () => {
  const day = { minDate: new Date('2026-11-01T00:00:00Z'), maxDate: new Date('2026-11-02T00:00:00Z') };

  it('leaves a window the allowed depth can page', () => {
    expect(splitForDepth(day, 10_000, 500, 20)).toBeUndefined();
  });

  it('cuts a deep window at once into the parts its count needs, with headroom, covering it end to end', () => {
    // 100,000 events at 10,000 a window: 10 parts, 15 with the 1.5x headroom.
    const parts = splitForDepth(day, 100_000, 500, 20)!;
    expect(parts).toHaveLength(15);
    expect(parts[0]!.minDate).toEqual(day.minDate);
    expect(parts.at(-1)!.maxDate).toEqual(day.maxDate);
    for (let i = 1; i < parts.length; i += 1) {
      expect(parts[i]!.minDate).toEqual(parts[i - 1]!.maxDate);
      expect(parts[i]!.minDate.getTime() % 1000).toBe(0);
    }
  });

  it('a barely deep window still splits in two; never below one second', () => {
    expect(splitForDepth(day, 10_001, 500, 20)).toHaveLength(2);
    expect(splitForDepth({ minDate: new Date(0), maxDate: new Date(3000) }, 1e6, 500, 20)).toHaveLength(3);
    expect(splitForDepth({ minDate: new Date(0), maxDate: new Date(1000) }, 1e6, 500, 20)).toBeUndefined();
  });
});

describe('splitWindowDisjoint', () => {
  it('halves a window into two that share no second and cover every second', () => {
    const [left, right] = splitWindowDisjoint({ minDate: new Date('2026-11-01T00:00:00Z'), maxDate: new Date('2026-11-01T00:00:11Z') })!;
    expect(formatWindow(left)).toBe('2026-11-01T00:00:00Z..2026-11-01T00:00:05Z');
    expect(formatWindow(right)).toBe('2026-11-01T00:00:06Z..2026-11-01T00:00:11Z');
  });

  it('splits down to two seconds, one each', () => {
    const [left, right] = splitWindowDisjoint({ minDate: new Date(0), maxDate: new Date(2000) })!;
    expect([left.minDate.getTime(), left.maxDate.getTime(), right.minDate.getTime(), right.maxDate.getTime()]).toEqual([0, 0, 1000, 2000]);
    expect(splitWindowDisjoint({ minDate: new Date(0), maxDate: new Date(1000) })).toBeUndefined();
  });
});

describe('isTooDeep', () => {
  it('compares the pages a totalCount needs with the allowed depth', () => {
    expect(isTooDeep(10_000, 500, 20)).toBe(false);
    expect(isTooDeep(10_001, 500, 20)).toBe(true);
    expect(isTooDeep(0, 500, 20)).toBe(false);
  });
});
