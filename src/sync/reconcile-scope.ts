/**
 * Reconcile one scope: hold the warehouse against the API's own count of events per window, and
 * re-read only what differs. Each aligned window costs one request (a one-item page's
 * `totalCount`); a window that differs is halved until a part is shallow enough to re-read, and
 * the parts re-read go through the same window runner, lock, budget and upsert as every sync,
 * with the live checkpoint untouched. The warehouse holding more than the API lists is reported,
 * never deleted.
 */
import { serverFiltersOf } from './checkpoint-settings.js';
import type { ScopeSettings } from '../config.js';
import { PermanentError, RetryableError, errorMessage } from '../errors.js';
import {
  countKnownEvents,
  finishReconcileRun,
  startReconcileRun,
  type KnownEvents,
  type ReconcileRunStats,
} from '../warehouse/reconcile.repository.js';
import { getSyncState } from '../warehouse/state.repository.js';
import { backfillWindow } from './backfill.js';
import { formatWindow, planBackfill, splitWindowDisjoint, type TimeWindow } from './planner.js';
import type { SyncContext } from './run-window.js';

export type ReconcileOutcome = 'consistent' | 'recovered' | 'differs' | 'failed' | 'no-checkpoint';

export interface ReconcileScopeResult extends ReconcileRunStats {
  readonly scope: string;
  readonly outcome: ReconcileOutcome;
  readonly from?: Date;
  readonly to?: Date;
  readonly error?: unknown;
  readonly permanent: boolean;
}

export interface ReconcileScopeOptions {
  /** Range start; default `days` before `to`. */
  readonly from?: Date;
  /** Range end; default the scope's checkpoint. */
  readonly to?: Date;
  readonly days: number;
  /** A differing window at most this many pages deep is re-read rather than split. */
  readonly reReadPages: number;
  readonly lockRetryMs?: number;
  readonly jobId?: string;
}

const DAY_MS = 86_400_000;

/** Whether a reconcile left the scope consistent with the API (the command's exit code). */
export function isReconciled(outcome: ReconcileOutcome): boolean {
  return outcome === 'consistent' || outcome === 'recovered' || outcome === 'no-checkpoint';
}

export async function reconcileScope(
  ctx: SyncContext,
  scope: ScopeSettings,
  options: ReconcileScopeOptions,
): Promise<ReconcileScopeResult> {
  const key = scope.scope.key;
  const stats = {
    windowsChecked: 0,
    windowsDiffering: 0,
    windowsReread: 0,
    eventsRecovered: 0,
    eventsMissing: 0,
    eventsExtra: 0,
    requests: 0,
  };
  const to = options.to ?? (await getSyncState(ctx.warehouse.db, key))?.watermark ?? undefined;
  if (!to) return { scope: key, outcome: 'no-checkpoint', permanent: false, ...stats };
  const from = options.from ?? new Date(to.getTime() - options.days * DAY_MS);
  const runId = await startReconcileRun(ctx.warehouse.db, key, from, to);
  const log = ctx.logger.child({ scope: key });

  const apiCount = async (window: TimeWindow): Promise<number> => {
    const page = await ctx.clients
      .for(scope.credential)
      .listEvents(
        scope.scope,
        { minDate: window.minDate, maxDate: window.maxDate, eventTypes: scope.eventTypes, ...serverFiltersOf(scope), itemsPerPage: 1 },
        ctx.signal,
      );
    stats.requests += page.requests;
    if (page.totalCount === undefined) {
      throw new RetryableError('COUNT_MISSING', `${key}: the API gave no count for ${formatWindow(window)}: trying again later`);
    }
    return page.totalCount;
  };
  const knownCount = (window: TimeWindow) => countKnownEvents(ctx.warehouse.db, key, window, scope.eventTypes, scope);
  const total = (known: KnownEvents) => known.held + known.setAside;
  const shallow = (count: number) => Math.ceil(count / ctx.settings.itemsPerPage) <= options.reReadPages;

  /**
   * Compares one window and repairs what it can. `derived` is the API's count when it is known
   * without asking (a right half: its parent's count minus the left half's).
   */
  const check = async (window: TimeWindow, derived?: number): Promise<{ differs: boolean; listed: number }> => {
    // The warehouse first: an event sync lands between the two counts then reads as missing (and
    // is re-read), never as extra.
    const knownBefore = await knownCount(window);
    const known = total(knownBefore);
    let listed = derived ?? (await apiCount(window));
    // A derived count predates this warehouse count: ask before calling anything extra.
    if (derived !== undefined && known > listed) listed = await apiCount(window);
    if (listed === known) return { differs: false, listed };
    if (known > listed) {
      stats.eventsExtra += known - listed;
      log.warn(
        { window: formatWindow(window), listed, known },
        `${key} ${formatWindow(window)}: the warehouse holds ${known - listed} more events than the API lists (retention or deletion?); nothing deleted`,
      );
      return { differs: true, listed };
    }
    const halves = shallow(listed) ? undefined : splitWindowDisjoint(window);
    if (halves) {
      const left = await check(halves[0]);
      await check(halves[1], listed - left.listed);
      return { differs: true, listed };
    }
    await backfillWindow(ctx, scope, window, {
      mode: 'reconcile',
      ...(options.lockRetryMs !== undefined ? { lockRetryMs: options.lockRetryMs } : {}),
      ...(options.jobId ? { jobId: options.jobId } : {}),
    }).then((totals) => (stats.requests += totals.requests));
    stats.windowsReread += 1;
    const knownAfter = await knownCount(window);
    const after = total(knownAfter);
    // Rejected events can count here only once a narrower re-read has placed them: not recoveries.
    stats.eventsRecovered += Math.max(0, knownAfter.held - knownBefore.held);
    if (after < listed) stats.eventsMissing += listed - after;
    if (after > listed) stats.eventsExtra += after - listed;
    log.info(
      { window: formatWindow(window), listed, before: known, after },
      `${key} ${formatWindow(window)}: re-read, ${knownAfter.held - knownBefore.held} events recovered`,
    );
    return { differs: true, listed };
  };

  try {
    for (const window of planBackfill(from, to, ctx.settings.windowSeconds)) {
      ctx.signal?.throwIfAborted();
      stats.windowsChecked += 1;
      if ((await check(window)).differs) stats.windowsDiffering += 1;
    }
    const outcome: ReconcileOutcome =
      stats.eventsMissing > 0 || stats.eventsExtra > 0 ? 'differs' : stats.eventsRecovered > 0 ? 'recovered' : 'consistent';
    await finishReconcileRun(ctx.warehouse.db, runId, outcome, stats);
    return { scope: key, outcome, from, to, permanent: false, ...stats };
  } catch (error) {
    await finishReconcileRun(ctx.warehouse.db, runId, 'failed', stats, errorMessage(error)).catch(() => undefined);
    log.error({ err: error }, `${key}: reconcile failed: ${errorMessage(error)}`);
    return { scope: key, outcome: 'failed', from, to, error, permanent: error instanceof PermanentError, ...stats };
  }
}
