/**
 * What the scheduler must change so Redis holds exactly one job scheduler per configured scope.
 * Pure: compares the wanted schedulers with the ones found and lists upserts and removals.
 * A scheduler already right is left alone, so running the plan twice (or from two processes at
 * once) changes nothing the second time.
 */
import type { ScopeSettings } from '../config.js';
import {
  POLL_JOB,
  POLL_JOB_OPTIONS,
  RECONCILE_JOB,
  RECONCILE_JOB_OPTIONS,
  pollJobData,
  reconcileJobData,
  schedulerIdFor,
  scopeOfSchedulerId,
  spreadOffsetMs,
  type PollJobData,
  type ReconcileJobData,
  type ScheduledJobName,
} from './queues.js';

export interface WantedScheduler {
  readonly id: string;
  readonly scope: string;
  readonly name: ScheduledJobName;
  readonly every: number;
  readonly offset: number;
  readonly data: PollJobData | ReconcileJobData;
  readonly opts: Readonly<Record<string, unknown>>;
}

export interface ReconcileSchedule {
  /** 0 keeps no reconcile schedulers. */
  readonly intervalSeconds: number;
  readonly days: number;
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

/**
 * One poll scheduler per scope, and one reconcile scheduler per scope unless reconcile is off. A
 * scope the event export feeds (`pushed`) is polled every `pushedPollIntervalSeconds` instead: its
 * events arrive by push, and the rare poll (with the reconcile) proves the push complete.
 */
export function wantedSchedulers(
  scopes: readonly ScopeSettings[],
  pollIntervalSeconds: number,
  reconcile?: ReconcileSchedule,
  pushedPollIntervalSeconds: number = pollIntervalSeconds,
): WantedScheduler[] {
  const polls = scopes.map((settings): WantedScheduler => {
    const every = (settings.pushed ? pushedPollIntervalSeconds : pollIntervalSeconds) * 1000;
    return {
      id: schedulerIdFor(settings.scope, POLL_JOB),
      scope: settings.scope.key,
      name: POLL_JOB,
      every,
      offset: spreadOffsetMs(settings.scope.key, every),
      data: pollJobData(settings),
      opts: POLL_JOB_OPTIONS,
    };
  });
  if (!reconcile || reconcile.intervalSeconds === 0) return polls;
  const reconcileEvery = reconcile.intervalSeconds * 1000;
  const reconciles = scopes.map((settings): WantedScheduler => ({
    id: schedulerIdFor(settings.scope, RECONCILE_JOB),
    scope: settings.scope.key,
    name: RECONCILE_JOB,
    every: reconcileEvery,
    offset: spreadOffsetMs(`reconcile ${settings.scope.key}`, reconcileEvery),
    data: reconcileJobData(settings, reconcile.days),
    opts: RECONCILE_JOB_OPTIONS,
  }));
  return [...polls, ...reconciles];
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
    found.name === wanted.name &&
    found.every === wanted.every &&
    found.offset === wanted.offset &&
    canonical(found.template?.data) === canonical(wanted.data) &&
    sameOptions(found.template?.opts, wanted.opts)
  );
}

/** The template options we set are all present with our values (BullMQ may add its own). */
function sameOptions(opts: unknown, wanted: Readonly<Record<string, unknown>>): boolean {
  if (typeof opts !== 'object' || opts === null) return false;
  const record = opts as Record<string, unknown>;
  return Object.entries(wanted).every(([key, value]) => canonical(record[key]) === canonical(value));
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
