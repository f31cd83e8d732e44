/**
 * The queue's contract: its name, job names, payloads and ids. Pure; no I/O.
 *
 * One queue carries both kinds of job. Payloads hold a scope's public settings only (never a key
 * or a URL with credentials), so a worker needs no scope list of its own. BullMQ refuses custom job
 * ids holding ':' (other than its own three-part form), and scope keys and dates hold colons, so ids
 * here use '.' between parts: scope ids are letters, digits, '-' and '_' only.
 */
import { z } from 'zod';
import type { ScopeSettings } from '../config.js';
import { tryParseScope, type Scope } from '../scope.js';
import type { TimeWindow } from '../sync/planner.js';
import { parseIsoDate } from '../time.js';

export const SYNC_QUEUE = 'sync';
export const POLL_JOB = 'poll';
export const BACKFILL_JOB = 'backfill-window';
export const RECONCILE_JOB = 'reconcile';
export type SyncJobName = typeof POLL_JOB | typeof BACKFILL_JOB | typeof RECONCILE_JOB;

const scopeKey = z.string().refine((v) => tryParseScope(v) !== undefined, { message: 'expected org:<id> or group:<id>' });
const isoDate = z.string().refine((v) => parseIsoDate(v) !== undefined, { message: 'expected an ISO 8601 date' });

const scopePayload = {
  scope: scopeKey,
  eventTypes: z.array(z.string().min(1)),
  includeRaw: z.boolean(),
  /** The name of the credential to read it with (never the secret); absent: the default key pair. */
  credential: z.string().min(1).optional(),
  /** Atlas v2 project feeds' server-side filters; absent: none. */
  excludeEventTypes: z.array(z.string().min(1)).optional(),
  clusterNames: z.array(z.string().min(1)).optional(),
};

export const pollJobSchema = z.object({ ...scopePayload, startDate: isoDate.optional() }).strict();
export const backfillJobSchema = z.object({ ...scopePayload, minDate: isoDate, maxDate: isoDate, force: z.boolean().optional() }).strict();
export const reconcileJobSchema = z.object({ ...scopePayload, days: z.number().int().positive() }).strict();

/** Sync one scope from its checkpoint to now. */
export type PollJobData = z.infer<typeof pollJobSchema>;
/** Re-read one backfill window of one scope, checkpoint untouched. */
export type BackfillJobData = z.infer<typeof backfillJobSchema>;
/** Reconcile one scope over its last `days` days up to its checkpoint. */
export type ReconcileJobData = z.infer<typeof reconcileJobSchema>;
export type SyncJobData = PollJobData | BackfillJobData | ReconcileJobData;

export function pollJobData(settings: ScopeSettings): PollJobData {
  return {
    scope: settings.scope.key,
    eventTypes: [...settings.eventTypes],
    includeRaw: settings.includeRaw,
    ...(settings.startDate ? { startDate: settings.startDate } : {}),
    ...credentialOf(settings),
  };
}

/** The credential and the server-side filters, each only when set (jobs of scopes without them keep their data). */
function credentialOf(settings: ScopeSettings): { credential?: string; excludeEventTypes?: string[]; clusterNames?: string[] } {
  return {
    ...(settings.credential ? { credential: settings.credential } : {}),
    ...(settings.excludeEventTypes?.length ? { excludeEventTypes: [...settings.excludeEventTypes] } : {}),
    ...(settings.clusterNames?.length ? { clusterNames: [...settings.clusterNames] } : {}),
  };
}

export function reconcileJobData(settings: ScopeSettings, days: number): ReconcileJobData {
  return {
    scope: settings.scope.key,
    eventTypes: [...settings.eventTypes],
    includeRaw: settings.includeRaw,
    days,
    ...credentialOf(settings),
  };
}

export function backfillJobData(settings: ScopeSettings, window: TimeWindow, force = false): BackfillJobData {
  return {
    ...(force ? { force: true } : {}),
    scope: settings.scope.key,
    eventTypes: [...settings.eventTypes],
    includeRaw: settings.includeRaw,
    minDate: window.minDate.toISOString(),
    maxDate: window.maxDate.toISOString(),
    ...credentialOf(settings),
  };
}

/** The scope settings a job carries, as the sync engine takes them. */
export function settingsFromJob(data: SyncJobData): ScopeSettings {
  return {
    scope: tryParseScope(data.scope)!,
    eventTypes: data.eventTypes,
    includeRaw: data.includeRaw,
    startDate: 'startDate' in data ? data.startDate : undefined,
    ...(data.credential ? { credential: data.credential } : {}),
    ...(data.excludeEventTypes?.length ? { excludeEventTypes: data.excludeEventTypes } : {}),
    ...(data.clusterNames?.length ? { clusterNames: data.clusterNames } : {}),
  };
}

export function windowFromJob(data: BackfillJobData): TimeWindow {
  return { minDate: parseIsoDate(data.minDate)!, maxDate: parseIsoDate(data.maxDate)! };
}

const SCHEDULER_PREFIXES = { [POLL_JOB]: 'poll.', [RECONCILE_JOB]: 'reconcile.' } as const;
export type ScheduledJobName = keyof typeof SCHEDULER_PREFIXES;

/** `poll.group.<id>` / `reconcile.group.<id>`: one job scheduler per scope and kind of job. */
export function schedulerIdFor(scope: Scope, job: ScheduledJobName = POLL_JOB): string {
  return `${SCHEDULER_PREFIXES[job]}${scope.kind}.${scope.id}`;
}

/** The scope a scheduler id of ours names, or undefined for a scheduler that is not ours. */
export function scopeOfSchedulerId(id: string): Scope | undefined {
  const prefix = Object.values(SCHEDULER_PREFIXES).find((p) => id.startsWith(p));
  if (!prefix) return undefined;
  const rest = id.slice(prefix.length);
  const dot = rest.indexOf('.');
  return dot < 0 ? undefined : tryParseScope(`${rest.slice(0, dot)}:${rest.slice(dot + 1)}`);
}

/** `backfill.group.<id>.20261101T000000Z.20261101T060000Z`: a repeated enqueue of a window is a no-op. */
export function backfillJobId(scope: Scope, window: TimeWindow): string {
  return ['backfill', scope.kind, scope.id, compactDate(window.minDate), compactDate(window.maxDate)].join('.');
}

function compactDate(date: Date): string {
  return date
    .toISOString()
    .replace(/\.\d{3}Z$/, 'Z')
    .replace(/[-:]/g, '');
}

/**
 * Where in each period a scope's poll fires, in milliseconds: a stable hash of the scope key, so
 * a thousand scopes spread over the interval and every scheduler process computes the same value.
 * Never 0, which BullMQ reads as "fire now and align to the start time".
 */
export function spreadOffsetMs(scopeKeyText: string, everyMs: number): number {
  let hash = 2166136261;
  for (let i = 0; i < scopeKeyText.length; i++) {
    hash ^= scopeKeyText.charCodeAt(i);
    hash = Math.imul(hash, 16777619) >>> 0;
  }
  return everyMs <= 1 ? 1 : 1 + (hash % (everyMs - 1));
}

const HOUR_SECONDS = 3600;
const DAY_SECONDS = 86_400;

/**
 * A failed poll is retried a few times with backoff (the next scheduled poll comes anyway); a
 * permanent failure is not retried at all (the processor throws UnrecoverableError). Finished poll
 * jobs are kept an hour for inspection, bounded in number.
 */
export const POLL_JOB_OPTIONS = {
  attempts: 3,
  backoff: { type: 'exponential', delay: 2_000 },
  removeOnComplete: { age: HOUR_SECONDS, count: 1_000 },
  removeOnFail: { age: 7 * DAY_SECONDS, count: 10_000 },
} as const;

/**
 * A reconcile is retried a couple of times with backoff (the next one comes a period later anyway),
 * and waits behind polls like a backfill window.
 */
export const RECONCILE_JOB_OPTIONS = {
  priority: 5,
  attempts: 3,
  backoff: { type: 'exponential', delay: 10_000 },
  removeOnComplete: { age: DAY_SECONDS, count: 1_000 },
  removeOnFail: { age: 7 * DAY_SECONDS, count: 10_000 },
} as const;

/**
 * Backfill windows wait behind polls (a job without priority runs before any prioritized one) and
 * are kept for 30 days once done, so enqueueing the same range again within that time adds nothing
 * (a failed window, or any with `--force`, is replaced: see enqueue-backfill.ts).
 */
export const BACKFILL_JOB_OPTIONS = {
  priority: 10,
  attempts: 8,
  backoff: { type: 'exponential', delay: 5_000 },
  removeOnComplete: { age: 30 * DAY_SECONDS },
  removeOnFail: { age: 30 * DAY_SECONDS },
} as const;
