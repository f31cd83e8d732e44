/**
 * What a worker does with one job: the sync engine's own entry points, and the mapping of their
 * outcomes onto BullMQ's. A skipped overlap completes normally; a permanent failure (401, 403,
 * 404, a malformed payload) throws UnrecoverableError so BullMQ does not retry it; anything else
 * throws a plain error and BullMQ retries it with backoff. A job interrupted by shutdown goes back
 * to the waiting list untouched (no attempt spent), for another worker to take.
 *
 * Every job has a deadline (`worker.jobTimeoutMs`): past it the job is interrupted (its requests
 * aborted, its scope lock released) and fails as a transient error, so BullMQ retries it. A job
 * whose work does not unwind within a short grace is abandoned all the same: a worker slot is
 * never held forever by a wait that ignores its signal.
 */
import { DelayedError, UnrecoverableError, WaitingError, type Job } from 'bullmq';
import type { z } from 'zod';
import { PermanentError, errorMessage } from '../errors.js';
import type { Logger } from '../logger.js';
import { tryParseScope } from '../scope.js';
import { backfillWindowIfFree } from '../sync/backfill.js';
import { formatWindow } from '../sync/planner.js';
import type { SyncContext } from '../sync/run-window.js';
import { reconcileScope } from '../sync/reconcile-scope.js';
import { syncScope } from '../sync/sync-scope.js';
import { emptyTotals, type SyncTotals } from '../sync/totals.js';
import { findSucceededWindows } from '../warehouse/runs.repository.js';
import type { JobOutcome, SyncMetrics } from './metrics.js';
import {
  BACKFILL_JOB,
  POLL_JOB,
  RECONCILE_JOB,
  backfillJobSchema,
  pollJobSchema,
  reconcileJobSchema,
  settingsFromJob,
  windowFromJob,
  type SyncJobName,
} from './queues.js';

export interface JobSummary {
  readonly status: 'succeeded' | 'skipped' | 'already-done';
  /** Reconcile jobs: how the scope ended against the API. */
  readonly reconcile?: { readonly outcome: string; readonly recovered: number; readonly missing: number; readonly extra: number };
  readonly windows: number;
  readonly pages: number;
  readonly inserted: number;
  readonly changed: number;
  readonly rejected: number;
}

export interface ProcessorDeps {
  readonly ctx: SyncContext;
  readonly logger: Logger;
  readonly metrics?: SyncMetrics;
  /**
   * How soon a backfill window whose scope another runner holds (a poll, another of its windows)
   * is tried again; the job waits in the delayed set, not in a worker slot. Also reconcile's wait.
   */
  readonly lockRetryMs?: number;
  /** A differing window at most this many pages deep is re-read by reconcile (config reconcile.reReadPages). */
  readonly reconcileReReadPages?: number;
  /** A job running longer is interrupted and retried (config worker.jobTimeoutMs). */
  readonly jobTimeoutMs?: number;
}

export const DEFAULT_JOB_TIMEOUT_MS = 15 * 60_000;
/** How long an interrupted job's work gets to unwind (record its run, release its lock) before it is abandoned. */
const UNWIND_GRACE_MS = 5_000;

export type SyncJobProcessor = (job: Job, token?: string) => Promise<JobSummary>;

export function createJobProcessor(deps: ProcessorDeps): SyncJobProcessor {
  const timeoutMs = deps.jobTimeoutMs ?? DEFAULT_JOB_TIMEOUT_MS;
  return async (job, token) => {
    const started = performance.now();
    const name = job.name as SyncJobName;
    const record = (outcome: JobOutcome) => deps.metrics?.recordJob(name, outcome, (performance.now() - started) / 1000, scopeOf(job));
    const shutdown = deps.ctx.signal;
    const deadline = AbortSignal.timeout(timeoutMs);
    const jobDeps: ProcessorDeps = { ...deps, ctx: { ...deps.ctx, signal: shutdown ? AbortSignal.any([shutdown, deadline]) : deadline } };
    try {
      const summary = await abandonedAfter(runJob(jobDeps, job, token), jobDeps.ctx.signal!, UNWIND_GRACE_MS);
      record(summary.status === 'skipped' ? 'skipped' : 'succeeded');
      return summary;
    } catch (error) {
      if (error instanceof DelayedError) {
        record('scope_busy');
        throw error;
      }
      if (shutdown?.aborted && !(error instanceof UnrecoverableError) && token) {
        await job.moveToWait(token);
        record('handed_back');
        deps.logger.info({ jobId: job.id, job: job.name }, `job ${job.id} interrupted by shutdown: handed back to the queue`);
        throw new WaitingError();
      }
      if (deadline.aborted) {
        record('failed_transient');
        throw new JobDeadlineError(job, timeoutMs, error);
      }
      record(error instanceof UnrecoverableError ? 'failed_permanent' : 'failed_transient');
      throw error;
    }
  };
}

function runJob(deps: ProcessorDeps, job: Job, token: string | undefined): Promise<JobSummary> {
  if (job.name === POLL_JOB) return runPoll(deps, job);
  if (job.name === BACKFILL_JOB) return runBackfillWindow(deps, job, token);
  if (job.name === RECONCILE_JOB) return runReconcile(deps, job);
  return Promise.resolve().then(() => unknownJob(job));
}

/** `work`, or a rejection once `signal` has been aborted for `graceMs` and the work still runs. */
async function abandonedAfter<T>(work: Promise<T>, signal: AbortSignal, graceMs: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const onAbort = () => (timer = setTimeout(() => abandon(signal.reason), graceMs));
  let abandon!: (reason: unknown) => void;
  const abandoned = new Promise<never>((_, reject) => (abandon = reject));
  if (signal.aborted) onAbort();
  else signal.addEventListener('abort', onAbort, { once: true });
  try {
    return await Promise.race([work, abandoned]);
  } finally {
    signal.removeEventListener('abort', onAbort);
    clearTimeout(timer);
  }
}

export class JobDeadlineError extends Error {
  override readonly name = 'JobDeadlineError';
  constructor(job: Job, timeoutMs: number, cause: unknown) {
    const scope = scopeOf(job);
    super(
      `job ${job.id} (${job.name}${scope ? ` for ${scope}` : ''}) ran past its deadline of ${timeoutMs} ms (worker.jobTimeoutMs): ` +
        `interrupted, its scope lock released, and retried with backoff; raise worker.jobTimeoutMs if such jobs are expected to take longer`,
      { cause },
    );
  }
}

async function runPoll(deps: ProcessorDeps, job: Job): Promise<JobSummary> {
  const data = parsePayload(pollJobSchema, job);
  const settings = settingsFromJob(data);
  const result = await syncScope(deps.ctx, settings, { mode: 'poll', ...(job.id ? { jobId: job.id } : {}) });
  deps.metrics?.recordWindows(POLL_JOB, result.totals.windows);
  deps.metrics?.recordLag(result.scope, result.watermark, deps.ctx.now());
  if (result.status === 'failed') {
    const message = `${result.scope}: ${errorMessage(result.error)}`;
    throw result.permanent ? new UnrecoverableError(message) : new Error(message, { cause: result.error });
  }
  return summarize(result.status, result.totals);
}

async function runBackfillWindow(deps: ProcessorDeps, job: Job, token: string | undefined): Promise<JobSummary> {
  const data = parsePayload(backfillJobSchema, job);
  const settings = settingsFromJob(data);
  const window = windowFromJob(data);
  const finished = await findSucceededWindows(deps.ctx.warehouse.db, data.scope, 'backfill', window.minDate, window.maxDate);
  const sameWindow = (w: { windowStart: Date; windowEnd: Date }) =>
    w.windowStart.getTime() === window.minDate.getTime() && w.windowEnd.getTime() === window.maxDate.getTime();
  if (!data.force && finished.some(sameWindow)) return summarize('already-done', emptyTotals());
  try {
    const totals = await backfillWindowIfFree(deps.ctx, settings, window, job.id ? { jobId: job.id } : {});
    if (!totals) {
      // Another runner holds the scope (its poll, or its previous window on another slot): the
      // window waits in the delayed set rather than in this slot, which takes other scopes' jobs.
      const retryMs = deps.lockRetryMs ?? 1000;
      if (token) {
        await job.moveToDelayed(Date.now() + retryMs, token);
        throw new DelayedError();
      }
      throw new Error(`${data.scope} is busy with another runner: window ${formatWindow(window)} is tried again later`);
    }
    deps.metrics?.recordWindows(BACKFILL_JOB, totals.windows);
    return summarize('succeeded', totals);
  } catch (error) {
    if (error instanceof PermanentError) {
      throw new UnrecoverableError(`${data.scope} ${formatWindow(window)}: ${errorMessage(error)}`);
    }
    throw error;
  }
}

async function runReconcile(deps: ProcessorDeps, job: Job): Promise<JobSummary> {
  const data = parsePayload(reconcileJobSchema, job);
  const result = await reconcileScope(deps.ctx, settingsFromJob(data), {
    days: data.days,
    reReadPages: deps.reconcileReReadPages ?? 4,
    lockRetryMs: deps.lockRetryMs ?? 1000,
    ...(job.id ? { jobId: job.id } : {}),
  });
  deps.metrics?.recordReconcile(result, deps.ctx.now());
  if (result.outcome === 'failed') {
    const message = `${result.scope}: reconcile failed: ${errorMessage(result.error)}`;
    throw result.permanent ? new UnrecoverableError(message) : new Error(message, { cause: result.error });
  }
  // A scope that still differs is reported (log, metrics, reconcile_runs), not retried at once:
  // the next scheduled reconcile looks again.
  return {
    ...summarize('succeeded', emptyTotals()),
    reconcile: { outcome: result.outcome, recovered: result.eventsRecovered, missing: result.eventsMissing, extra: result.eventsExtra },
  };
}

function parsePayload<T>(schema: z.ZodType<T>, job: Job): T {
  const parsed = schema.safeParse(job.data);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ');
    throw new UnrecoverableError(`job ${job.id} (${job.name}) has a malformed payload: ${issues}`);
  }
  return parsed.data;
}

/** The scope a job's payload names, when it names a valid one (a malformed payload names none). */
function scopeOf(job: Job): string | undefined {
  const scope: unknown = (job.data as { scope?: unknown } | undefined)?.scope;
  return typeof scope === 'string' ? tryParseScope(scope)?.key : undefined;
}

function unknownJob(job: Job): never {
  throw new UnrecoverableError(
    `job ${job.id} has an unknown name "${job.name}": expected ${POLL_JOB}, ${BACKFILL_JOB} or ${RECONCILE_JOB}`,
  );
}

function summarize(status: JobSummary['status'], totals: SyncTotals): JobSummary {
  return {
    status,
    windows: totals.windows,
    pages: totals.pages,
    inserted: totals.inserted,
    changed: totals.changed,
    rejected: totals.rejected,
  };
}
