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

/** The room a label takes on the axis, in pixels: "Nov 27", "Nov 27 06:00". */
const DAY_LABEL_PX = 64;
const TIME_LABEL_PX = 100;
const HOUR_STEPS = [1, 2, 3, 6, 12];

export interface TimeAxis {
  readonly format: string;
  /** Vega's interval names (vega-time): 'hours', 'day', 'week' (Sundays), 'month'. */
  readonly tickCount: { readonly interval: 'hours' | 'day' | 'week' | 'month'; readonly step: number };
  /** A few words for the axis title, saying what a label means. */
  readonly title: string;
}

/**
 * Ticks on calendar boundaries (hours, days, Sundays, months) as many as fit `widthPx` without
 * overlapping, so none is hidden and none repeats.
 */
export function timeAxisFor(period: Period, widthPx: number): TimeAxis {
  const hours = (period.until.getTime() - period.since.getTime()) / 3_600_000;
  const fitDays = Math.max(2, Math.floor(widthPx / DAY_LABEL_PX));
  if (hours > 48) {
    const days = hours / 24;
    if (days <= fitDays) return { format: '%b %d', tickCount: { interval: 'day', step: 1 }, title: 'day (UTC)' };
    // Every other day of the month (a label next to the 31st may be hidden, never repeated).
    if (days / 2 <= fitDays) return { format: '%b %d', tickCount: { interval: 'day', step: 2 }, title: 'day (UTC)' };
    if (days / 7 <= fitDays) return { format: '%b %d', tickCount: { interval: 'week', step: 1 }, title: 'day (UTC), ticks on Sundays' };
    return { format: '%b %Y', tickCount: { interval: 'month', step: Math.ceil(days / 30 / fitDays) }, title: 'month (UTC)' };
  }
  const fitTimes = Math.max(2, Math.floor(widthPx / TIME_LABEL_PX));
  const step = HOUR_STEPS.find((s) => hours / s <= fitTimes) ?? 24;
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
export function timeEncoding(period: Period, widthPx: number) {
  const axis = timeAxisFor(period, widthPx);
  return {
    // The period's ends as domainMin and domainMax rather than a domain: with an x2 channel, Vega-Lite
    // 6.4 writes a domain twice in two forms and warns on stderr that they conflict, whatever the form.
    scale: { type: 'utc' as const, domainMin: period.since.getTime(), domainMax: period.until.getTime() },
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
