/**
 * What the scheduler must change so Redis holds exactly one job scheduler per configured scope.
 * Pure: compares the wanted schedulers with the ones found and lists upserts and removals.
 * A scheduler already right is left alone, so running the plan twice (or from two processes at
 * once) changes nothing the second time.
 */
import type { ScopeSettings } from '../config.js';
import { POLL_JOB, POLL_JOB_OPTIONS, pollJobData, schedulerIdFor, scopeOfSchedulerId, spreadOffsetMs, type PollJobData } from './queues.js';

export interface WantedScheduler {
  readonly id: string;
  readonly scope: string;
  readonly every: number;
  readonly offset: number;
  readonly data: PollJobData;
}

/** The parts of BullMQ's JobSchedulerJson the comparison reads. */
export interface FoundScheduler {
  readonly key: string;
  readonly name?: string;
  readonly every?: number | undefined;
  readonly offset?: number | undefined;
  readonly template?: { data?: unknown; opts?: unknown } | undefined;
}

export interface SchedulerPlan {
  readonly upsert: readonly WantedScheduler[];
  readonly remove: readonly string[];
  readonly unchanged: number;
}

export function wantedSchedulers(scopes: readonly ScopeSettings[], pollIntervalSeconds: number): WantedScheduler[] {
  const every = pollIntervalSeconds * 1000;
  return scopes.map((settings) => ({
    id: schedulerIdFor(settings.scope),
    scope: settings.scope.key,
    every,
    offset: spreadOffsetMs(settings.scope.key, every),
    data: pollJobData(settings),
  }));
}

export function planSchedulers(wanted: readonly WantedScheduler[], found: readonly FoundScheduler[]): SchedulerPlan {
  const foundById = new Map(found.map((s) => [s.key, s]));
  const wantedIds = new Set(wanted.map((w) => w.id));
  const upsert = wanted.filter((w) => {
    const existing = foundById.get(w.id);
    return !existing || !isSame(w, existing);
  });
  // Only schedulers of ours are removed: another application may share the queue's prefix.
  const remove = found.filter((s) => !wantedIds.has(s.key) && scopeOfSchedulerId(s.key) !== undefined).map((s) => s.key);
  return { upsert, remove, unchanged: wanted.length - upsert.length };
}

function isSame(wanted: WantedScheduler, found: FoundScheduler): boolean {
  return (
    found.name === POLL_JOB &&
    found.every === wanted.every &&
    found.offset === wanted.offset &&
    canonical(found.template?.data) === canonical(wanted.data) &&
    sameOptions(found.template?.opts)
  );
}

/** The template options we set are all present with our values (BullMQ may add its own). */
function sameOptions(opts: unknown): boolean {
  if (typeof opts !== 'object' || opts === null) return false;
  const record = opts as Record<string, unknown>;
  return Object.entries(POLL_JOB_OPTIONS).every(([key, value]) => canonical(record[key]) === canonical(value));
}

/** JSON with object keys sorted, so key order never reads as a difference. */
export function canonical(value: unknown): string {
  return (
    JSON.stringify(value, (_key, inner: unknown) =>
      typeof inner === 'object' && inner !== null && !Array.isArray(inner)
        ? Object.fromEntries(Object.entries(inner as Record<string, unknown>).sort(([a], [b]) => a.localeCompare(b)))
        : inner,
    ) ?? 'undefined'
  );
}
