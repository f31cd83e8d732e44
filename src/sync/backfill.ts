/**
 * Re-read a date range for one scope without touching its live checkpoint. Windows are aligned to
 * the window size, and a window a previous backfill finished is skipped, so an interrupted
 * backfill resumes where it stopped. The scope's lock is taken per window, so continuous sync of
 * the same scope interleaves with a long backfill instead of waiting for all of it.
 */
import type { ScopeSettings } from '../config.js';
import { findSucceededWindows } from '../warehouse/runs.repository.js';
import { planBackfill, type TimeWindow } from './planner.js';
import { runWindow, type SyncContext } from './run-window.js';
import { addTotals, emptyTotals, type SyncTotals } from './totals.js';

export interface BackfillProgress {
  readonly windowsTotal: number;
  readonly windowsDone: number;
  readonly windowsSkipped: number;
  readonly totals: SyncTotals;
}

export interface BackfillOptions {
  readonly onWindow?: (progress: BackfillProgress) => void;
  /** How often to try again for the scope's lock while another runner holds it. */
  readonly lockRetryMs?: number;
  readonly jobId?: string;
  /** Re-read windows a previous backfill finished too (`backfill --force`). */
  readonly force?: boolean;
}

export async function backfillScope(
  ctx: SyncContext,
  scope: ScopeSettings,
  from: Date,
  to: Date,
  options: BackfillOptions = {},
): Promise<BackfillProgress> {
  const windows = planBackfill(from, to, ctx.settings.windowSeconds);
  const finished = options.force ? [] : await findSucceededWindows(ctx.warehouse.db, scope.scope.key, 'backfill', from, to);
  const done = new Set(finished.map((w) => windowKey(w.windowStart, w.windowEnd)));
  const totals = emptyTotals();
  let windowsDone = 0;
  let windowsSkipped = 0;
  for (const window of windows) {
    if (done.has(windowKey(window.minDate, window.maxDate))) {
      windowsSkipped += 1;
    } else {
      addTotals(totals, await backfillWindow(ctx, scope, window, options));
    }
    windowsDone += 1;
    options.onWindow?.({ windowsTotal: windows.length, windowsDone, windowsSkipped, totals });
  }
  return { windowsTotal: windows.length, windowsDone, windowsSkipped, totals };
}

/**
 * One window re-read under the scope's lock, checkpoint untouched; waits for the lock while another
 * runner has it. Backfills and reconcile's re-reads both come through here.
 */
export async function backfillWindow(
  ctx: SyncContext,
  scope: ScopeSettings,
  window: TimeWindow,
  options: Pick<BackfillOptions, 'lockRetryMs' | 'jobId'> & { readonly mode?: 'backfill' | 'reconcile' } = {},
): Promise<SyncTotals> {
  const release = await waitForLock(ctx, scope.scope.key, options.lockRetryMs ?? 1000);
  return runLocked(ctx, scope, window, release, options);
}

/**
 * The same, unless another runner holds the scope's lock: then `undefined` at once, nothing read.
 * A worker uses it to take other scopes' jobs meanwhile instead of holding a slot while it waits.
 */
export async function backfillWindowIfFree(
  ctx: SyncContext,
  scope: ScopeSettings,
  window: TimeWindow,
  options: Pick<BackfillOptions, 'jobId'> = {},
): Promise<SyncTotals | undefined> {
  const release = await ctx.lock.tryAcquire(scope.scope.key, ctx.signal);
  return release ? runLocked(ctx, scope, window, release, options) : undefined;
}

async function runLocked(
  ctx: SyncContext,
  scope: ScopeSettings,
  window: TimeWindow,
  release: () => Promise<void>,
  options: Pick<BackfillOptions, 'jobId'> & { readonly mode?: 'backfill' | 'reconcile' },
): Promise<SyncTotals> {
  try {
    return await runWindow(ctx, scope, window, {
      mode: options.mode ?? 'backfill',
      advanceCheckpoint: false,
      ...(options.jobId ? { jobId: options.jobId } : {}),
    });
  } finally {
    await release();
  }
}

async function waitForLock(ctx: SyncContext, key: string, retryMs: number) {
  for (;;) {
    const release = await ctx.lock.tryAcquire(key, ctx.signal);
    if (release) return release;
    ctx.signal?.throwIfAborted();
    ctx.logger.debug({ scope: key }, 'scope busy with another runner: waiting for it');
    await new Promise((resolve) => setTimeout(resolve, retryMs));
  }
}

function windowKey(start: Date, end: Date): string {
  return `${start.getTime()}|${end.getTime()}`;
}
