/** Counters of a run, and the completion line in graphile-worker's shape. */
import { formatWindow, type TimeWindow } from './planner.js';

export interface SyncTotals {
  windows: number;
  pages: number;
  requests: number;
  bytes: number;
  eventsSeen: number;
  inserted: number;
  changed: number;
  rejected: number;
  /** Event types, and fields of known types, no earlier page had brought to the warehouse. */
  newEventTypes: number;
  newFields: number;
}

export function emptyTotals(): SyncTotals {
  return {
    windows: 0,
    pages: 0,
    requests: 0,
    bytes: 0,
    eventsSeen: 0,
    inserted: 0,
    changed: 0,
    rejected: 0,
    newEventTypes: 0,
    newFields: 0,
  };
}

export function addTotals(into: SyncTotals, from: SyncTotals): SyncTotals {
  for (const key of Object.keys(into) as Array<keyof SyncTotals>) into[key] += from[key];
  return into;
}

const count = new Intl.NumberFormat('en-US');

/** `synced group:abc 2026-11-01..2026-11-02: 3 pages, 1,204 events (1,180 new, 0 changed, 2 rejected) in 812 ms` */
export function formatCompletion(scopeKey: string, window: TimeWindow, totals: SyncTotals, durationMs: number): string {
  const pages = `${count.format(totals.pages)} ${totals.pages === 1 ? 'page' : 'pages'}`;
  const events = `${count.format(totals.eventsSeen)} events (${count.format(totals.inserted)} new, ${count.format(totals.changed)} changed, ${count.format(totals.rejected)} rejected)`;
  return `synced ${scopeKey} ${formatWindow(window)}: ${pages}, ${events} in ${count.format(durationMs)} ms`;
}
