/**
 * A time axis for the report's period whose visible labels each carry the date and never repeat:
 * one tick a day (or every few days) labelled "Nov 27" over a long period, every few hours labelled
 * "Nov 27 06:00" over a short one; or, for one bar a day, each day's label under its bar. Pure.
 */
import { shortDay } from './units.js';

export interface Period {
  readonly since: Date;
  readonly until: Date;
}

/** At most this many labels across the chart's width. */
const MAX_LABELS = 12;
const HOUR_STEPS = [1, 2, 3, 6, 12];

export interface TimeAxis {
  readonly format: string;
  /** Vega's interval names (vega-time): 'day', 'hours'. */
  readonly tickCount: { readonly interval: 'day' | 'hours'; readonly step: number };
  /** A few words for the axis title, saying what a label means. */
  readonly title: string;
}

export function timeAxisFor(period: Period): TimeAxis {
  const hours = (period.until.getTime() - period.since.getTime()) / 3_600_000;
  if (hours > 72) {
    const step = Math.max(1, Math.ceil(hours / 24 / MAX_LABELS));
    return { format: '%b %d', tickCount: { interval: 'day', step }, title: step === 1 ? 'day (UTC)' : `day (UTC), every ${step} days` };
  }
  const step = HOUR_STEPS.find((s) => hours / s <= MAX_LABELS) ?? 24;
  return step === 24
    ? { format: '%b %d', tickCount: { interval: 'day', step: 1 }, title: 'day (UTC)' }
    : { format: '%b %d %H:%M', tickCount: { interval: 'hours', step }, title: 'time (UTC)' };
}

/** Every UTC day `period` touches, as `YYYY-MM-DD`, and its label ("Nov 21"; "Nov 21 2025" over a long period). */
export function daysOf(period: Period): Array<{ day: string; label: string }> {
  const dayMs = 86_400_000;
  const first = Math.floor(period.since.getTime() / dayMs);
  const last = Math.ceil(period.until.getTime() / dayMs) - 1;
  const withYear = last - first > 300;
  return Array.from({ length: Math.max(1, last - first + 1) }, (_, i) => {
    const date = new Date((first + i) * dayMs);
    return { day: date.toISOString().slice(0, 10), label: withYear ? `${shortDay(date)} ${date.getUTCFullYear()}` : shortDay(date) };
  });
}

/** The Vega-Lite axis and scale of a time field over `period`. */
export function timeEncoding(period: Period) {
  const axis = timeAxisFor(period);
  return {
    // As expressions: a list of values is also turned into expressions for the x2 channel, and Vega-Lite warns of the two.
    scale: {
      type: 'utc' as const,
      domain: [{ expr: `datetime(${period.since.getTime()})` }, { expr: `datetime(${period.until.getTime()})` }],
    },
    axis: {
      format: axis.format,
      // Vega-Lite's types call the hour interval 'hour', a name Vega 6 does not know ("cannot read
      // 'every'"); Vega's own name, 'hours', passes through.
      tickCount: { ...axis.tickCount } as { interval: 'day'; step: number },
      labelOverlap: true,
      labelFlush: true,
    },
    title: axis.title,
  };
}
