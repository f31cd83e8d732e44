/**
 * Moving a scope's checkpoint by hand (`events-mirror checkpoint`): back to a date, or reset so the
 * next sync starts from the start date. Only while no runner holds the scope (a running sync would
 * move it forward again), never forward (that would skip events), and always recorded in
 * `sync_runs` (mode `checkpoint`: window_start the new checkpoint, or where the next sync will
 * start after a reset; window_end the old one).
 */
import type { ScopeSettings } from '../config.js';
import { UsageError } from '../errors.js';
import { finishRun, startRun } from '../warehouse/runs.repository.js';
import { getSyncState, setWatermark, type SyncState } from '../warehouse/state.repository.js';
import { parseIsoDate, formatTimestamp } from '../time.js';
import type { SyncContext } from './run-window.js';
import { emptyTotals } from './totals.js';

export type CheckpointChange = { readonly kind: 'set'; readonly to: Date } | { readonly kind: 'reset' };

const DAY_MS = 86_400_000;

export async function changeCheckpoint(
  ctx: Pick<SyncContext, 'warehouse' | 'lock' | 'settings' | 'now'>,
  scope: ScopeSettings,
  change: CheckpointChange,
): Promise<{ before: SyncState | undefined; after: SyncState | undefined }> {
  const key = scope.scope.key;
  const release = await ctx.lock.tryAcquire(key);
  if (!release) {
    throw new UsageError(`${key} is being synced right now: stop its sync or worker (or wait for the poll to end) and run this again`);
  }
  try {
    const db = ctx.warehouse.db;
    const before = await getSyncState(db, key);
    const old = before?.watermark ?? null;
    // Without a checkpoint the next sync starts from the start date: a date after it skips events too.
    const start =
      (scope.startDate ? parseIsoDate(scope.startDate) : undefined) ?? new Date(ctx.now().getTime() - ctx.settings.initialDays * DAY_MS);
    if (change.kind === 'set') refuseForward(key, change.to, old, start, ctx.now());
    const started = performance.now();
    const nextStart = change.kind === 'set' ? change.to : start;
    await db.transaction().execute(async (trx) => {
      const runId = await startRun(trx, { scope: key, mode: 'checkpoint', windowStart: nextStart, windowEnd: old ?? nextStart });
      await setWatermark(trx, key, change.kind === 'set' ? change.to : null);
      await finishRun(trx, runId, { ...emptyTotals(), status: 'succeeded', durationMs: performance.now() - started });
    });
    return { before, after: await getSyncState(db, key) };
  } finally {
    await release();
  }
}

/** `--set` only moves back: not past the checkpoint, nor (without one) past the start date, nor past now. */
function refuseForward(key: string, to: Date, old: Date | null, start: Date, now: Date): void {
  const limit = old ?? (start < now ? start : now);
  if (to <= limit) return;
  const what = old
    ? `${key}'s checkpoint ${formatTimestamp(old)}`
    : start < now
      ? `where ${key}'s next sync starts, ${formatTimestamp(start)} (it has no checkpoint: its start date)`
      : `now (${formatTimestamp(now)})`;
  throw new UsageError(
    `--set ${formatTimestamp(to)} is after ${what}: moving it forward would skip events; give an earlier date` +
      (old ? '' : ' (to start a new scope later, set its startDate or EVENTS_START_DATE instead)'),
  );
}
