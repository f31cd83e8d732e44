/**
 * Pure window planning: no I/O, no clock of its own (the caller passes `now`).
 *
 * Windows are inclusive at both ends, as the API's minDate/maxDate are, and consecutive windows
 * share their boundary second: an event created on a boundary is read twice and deduplicated by
 * id, never missed (even if a payload ever carried fractional seconds).
 */

export interface TimeWindow {
  readonly minDate: Date;
  readonly maxDate: Date;
}

export interface SyncPlanInput {
  /** The scope's checkpoint: everything created up to it was read. */
  readonly watermark: Date | null;
  /** Where a scope with no checkpoint starts; defaults to `initialDays` before now. */
  readonly startDate?: Date;
  readonly initialDays: number;
  readonly lookbackSeconds: number;
  /** maxDate is frozen at now − settle, so events still being written do not shift pages. */
  readonly settleSeconds: number;
  readonly windowSeconds: number;
  readonly now: Date;
}

export interface SyncPlan {
  /** Frozen upper bound of the run. */
  readonly maxDate: Date;
  /** Oldest first; empty when there is nothing to read yet. */
  readonly windows: readonly TimeWindow[];
}

const SECOND = 1000;
const DAY = 86_400 * SECOND;

export function floorToSecond(ms: number): number {
  return Math.floor(ms / SECOND) * SECOND;
}

/** The windows a sync run reads, from the checkpoint (minus the lookback) to now − settle. */
export function planSync(input: SyncPlanInput): SyncPlan {
  const maxDate = floorToSecond(input.now.getTime() - input.settleSeconds * SECOND);
  const from =
    input.watermark !== null
      ? input.watermark.getTime() - input.lookbackSeconds * SECOND
      : (input.startDate?.getTime() ?? input.now.getTime() - input.initialDays * DAY);
  return { maxDate: new Date(maxDate), windows: splitRange(floorToSecond(from), maxDate, input.windowSeconds) };
}

/** A backfill's windows over [from, to], aligned to the window size so re-runs plan the same windows. */
export function planBackfill(from: Date, to: Date, windowSeconds: number): TimeWindow[] {
  return splitRange(floorToSecond(from.getTime()), floorToSecond(to.getTime()), windowSeconds);
}

/**
 * Splits [fromMs, toMs] into windows of at most `windowSeconds`, oldest first. Inner boundaries
 * fall on multiples of the window size (since the epoch), so two plans of overlapping ranges
 * share their windows.
 */
export function splitRange(fromMs: number, toMs: number, windowSeconds: number): TimeWindow[] {
  if (toMs < fromMs) return [];
  const size = windowSeconds * SECOND;
  const windows: TimeWindow[] = [];
  let start = fromMs;
  while (true) {
    const nextBoundary = Math.floor(start / size) * size + size;
    const end = Math.min(nextBoundary, toMs);
    windows.push({ minDate: new Date(start), maxDate: new Date(end) });
    if (end >= toMs) return windows;
    start = end;
  }
}

/**
 * Cuts a window into `parts` of equal length on whole seconds, oldest first, each sharing its
 * boundary second with the next. Fewer parts when the window has fewer seconds; undefined for a
 * window of one second or less, which cannot be split further (it is paged in full).
 */
export function splitWindowInto(window: TimeWindow, parts: number): TimeWindow[] | undefined {
  const min = window.minDate.getTime();
  const max = window.maxDate.getTime();
  if (max - min <= SECOND) return undefined;
  const count = Math.max(2, Math.min(parts, Math.floor((max - min) / SECOND)));
  const bounds = [min];
  for (let i = 1; i < count; i += 1) bounds.push(floorToSecond(min + ((max - min) * i) / count));
  bounds.push(max);
  const windows: TimeWindow[] = [];
  for (let i = 0; i < count; i += 1) {
    if (bounds[i + 1]! > bounds[i]!) windows.push({ minDate: new Date(bounds[i]!), maxDate: new Date(bounds[i + 1]!) });
  }
  return windows;
}

// Events are not spread evenly over time: parts sized for 1.5 times the count leave room for a
// busier stretch without another split (and another first page read twice).
const SPLIT_HEADROOM = 1.5;

/**
 * How to split a window whose first page reports `totalCount`: into as many parts as that count
 * needs at the allowed depth, at once, rather than halving level after level (each level reads its
 * windows' first pages again). Undefined when the window is not too deep or cannot be split.
 */
export function splitForDepth(window: TimeWindow, totalCount: number, itemsPerPage: number, maxPages: number): TimeWindow[] | undefined {
  if (!isTooDeep(totalCount, itemsPerPage, maxPages)) return undefined;
  return splitWindowInto(window, Math.ceil((SPLIT_HEADROOM * totalCount) / (itemsPerPage * maxPages)));
}

/**
 * Halves a window into two that share no second, [min, mid − 1 s] and [mid, max], so the count of
 * the right half is the parent's count minus the left's (created times are whole seconds).
 * Returns undefined for a window shorter than two seconds.
 */
export function splitWindowDisjoint(window: TimeWindow): [TimeWindow, TimeWindow] | undefined {
  const min = window.minDate.getTime();
  const max = window.maxDate.getTime();
  if (max - min < 2 * SECOND) return undefined;
  const mid = floorToSecond(min + (max - min) / 2 + SECOND / 2);
  return [
    { minDate: window.minDate, maxDate: new Date(mid - SECOND) },
    { minDate: new Date(mid), maxDate: window.maxDate },
  ];
}

/** Whether a window whose first page reports `totalCount` needs more pages than allowed. */
export function isTooDeep(totalCount: number, itemsPerPage: number, maxPages: number): boolean {
  return Math.ceil(totalCount / itemsPerPage) > maxPages;
}

export function formatWindow(window: TimeWindow): string {
  const fmt = (d: Date) => d.toISOString().replace('.000Z', 'Z');
  return `${fmt(window.minDate)}..${fmt(window.maxDate)}`;
}
