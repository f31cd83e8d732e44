/**
 * Sync one scope from its checkpoint to now: take the scope's lock, plan windows, read them oldest
 * first. Used by `sync --once` and by the worker's poll jobs. Never throws for the scope's own
 * failures: they are recorded in `sync_state` and returned, so other scopes go on.
 */
import type { ScopeSettings } from '../config.js';
import { PermanentError, errorCodeOf, errorMessage } from '../errors.js';
import { finishRun, startRun } from '../warehouse/runs.repository.js';
import { getSyncState, recordAttempt, recordCheckpointSettings, recordFailure, recordRunEnd } from '../warehouse/state.repository.js';
import { checkpointSettingsOf, sameSettings, widening } from './checkpoint-settings.js';
import { planSync } from './planner.js';
import { landedAny, runWindow, type SyncContext } from './run-window.js';
import { addTotals, emptyTotals, type SyncTotals } from './totals.js';
import { parseIsoDate } from '../time.js';

export type ScopeRunStatus = 'succeeded' | 'failed' | 'skipped';

export interface ScopeRunResult {
  readonly scope: string;
  readonly status: ScopeRunStatus;
  readonly totals: SyncTotals;
  /** The checkpoint after the run (unchanged on failure). */
  readonly watermark: Date | null;
  readonly error?: unknown;
  /** True when retrying cannot help (401, 403, 404, bad request). */
  readonly permanent: boolean;
}

export interface SyncScopeOptions {
  readonly mode: 'sync' | 'poll';
  readonly jobId?: string;
  /** The caller reports a failure itself (`sync --once`'s problems): it is recorded, not logged. */
  readonly reportsFailures?: boolean;
}

export async function syncScope(ctx: SyncContext, scope: ScopeSettings, options: SyncScopeOptions): Promise<ScopeRunResult> {
  const key = scope.scope.key;
  const db = ctx.warehouse.db;
  const release = await ctx.lock.tryAcquire(key, ctx.signal);
  if (!release) {
    await recordSkipped(ctx, key, options);
    ctx.logger.info({ scope: key }, `${key} is already being synced by another runner: skipped`);
    const state = await getSyncState(db, key);
    return { scope: key, status: 'skipped', totals: emptyTotals(), watermark: state?.watermark ?? null, permanent: false };
  }
  const totals = emptyTotals();
  let watermark: Date | null = null;
  try {
    const state = await getSyncState(db, key);
    watermark = state?.watermark ?? null;
    await recordAttempt(db, key, ctx.now());
    const startDate = scope.startDate ? parseIsoDate(scope.startDate) : undefined;
    const settings = checkpointSettingsOf(scope);
    // Settings that read more than the checkpoint covered (more types, raw, an earlier start):
    // the newly included history is read from the start, not only what is newer than the checkpoint.
    const widened = state?.settings && watermark ? widening(state.settings, settings) : undefined;
    if (widened) {
      ctx.logger.info(
        { scope: key, widened },
        `${key}: ${widened} since its checkpoint was made: reading its history again from the start date`,
      );
    }
    const plan = planSync({ ...ctx.settings, watermark: widened ? null : watermark, ...(startDate ? { startDate } : {}), now: ctx.now() });
    for (const window of plan.windows) {
      addTotals(
        totals,
        await runWindow(ctx, scope, window, {
          mode: options.mode,
          advanceCheckpoint: true,
          ...(options.jobId ? { jobId: options.jobId } : {}),
        }),
      );
      watermark = window.maxDate > (watermark ?? new Date(0)) ? window.maxDate : watermark;
    }
    if (!state?.settings || !sameSettings(state.settings, settings)) await recordCheckpointSettings(db, key, settings);
    await recordRunEnd(db, key, { poll: options.mode === 'poll', landed: landedAny(totals) }, ctx.now());
    return { scope: key, status: 'succeeded', totals, watermark, permanent: false };
  } catch (error) {
    const permanent = error instanceof PermanentError;
    await recordFailure(db, key, errorMessage(error), ctx.now(), errorCodeOf(error)).catch(() => undefined);
    if (!options.reportsFailures) logFailure(ctx, key, error, permanent);
    return { scope: key, status: 'failed', totals, watermark, error, permanent };
  } finally {
    await release();
  }
}

function logFailure(ctx: SyncContext, key: string, error: unknown, permanent: boolean): void {
  ctx.logger.error(
    { scope: key, err: error, permanent },
    permanent
      ? `${key} failed and will keep failing until fixed: ${errorMessage(error)}`
      : `${key} failed (transient; the next run retries from the checkpoint): ${errorMessage(error)}`,
  );
}

async function recordSkipped(ctx: SyncContext, key: string, options: SyncScopeOptions): Promise<void> {
  const now = ctx.now();
  const runId = await startRun(ctx.warehouse.db, {
    scope: key,
    mode: options.mode,
    windowStart: now,
    windowEnd: now,
    ...(options.jobId ? { jobId: options.jobId } : {}),
  });
  await finishRun(ctx.warehouse.db, runId, { ...emptyTotals(), status: 'skipped', durationMs: 0 });
}
