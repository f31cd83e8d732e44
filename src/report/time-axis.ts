/**
 * A time axis for the report's period whose visible labels each carry the date and never repeat:
 * one tick a day (or every few days) labelled "Nov 27" over a long period, every few hours labelled
 * "Nov 27 06:00" over a short one. Pure.
 */

export interface Period {
  readonly since: Date;
  readonly until: Date;
}

/** At most this many labels across the chart's width. */
const MAX_LABELS = 12;
const HOUR_STEPS = [1, 2, 3, 6, 12];

export interface TimeAxis {
  readonly format: string;
  readonly tickCount: { readonly interval: 'day' | 'hour'; readonly step: number };
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
    : { format: '%b %d %H:%M', tickCount: { interval: 'hour', step }, title: 'time (UTC)' };
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
    axis: { format: axis.format, tickCount: { ...axis.tickCount }, labelOverlap: true, labelFlush: true },
    title: axis.title,
  };
}
