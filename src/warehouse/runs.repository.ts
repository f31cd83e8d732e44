/** `sync_runs`: one row per run or window, written at its start and completed at its end. */
import type { Kysely } from 'kysely';
import { toStorableText } from './storable-json.js';
import { MAX_ERROR_LENGTH } from './state.repository.js';
import type { Database } from './tables.js';

export type RunMode = 'sync' | 'backfill' | 'poll' | 'reconcile' | 'checkpoint';

export interface RunTotals {
  pages: number;
  requests: number;
  eventsSeen: number;
  inserted: number;
  changed: number;
  rejected: number;
}

export interface RunStart {
  scope: string;
  mode: RunMode;
  windowStart: Date;
  windowEnd: Date;
  jobId?: string;
  /** Defaults to now. */
  startedAt?: Date;
}

export type RunResult = RunTotals & {
  status: 'succeeded' | 'failed' | 'skipped';
  error?: string;
  durationMs: number;
  /** Defaults to now. */
  finishedAt?: Date;
};

/** Inserts a `running` row and returns its id. */
export async function startRun(db: Kysely<Database>, run: RunStart): Promise<number> {
  const row = await db
    .insertInto('sync_runs')
    .values({
      scope: run.scope,
      mode: run.mode,
      window_start: run.windowStart,
      window_end: run.windowEnd,
      job_id: run.jobId ?? null,
      started_at: run.startedAt ?? new Date(),
      status: 'running',
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return Number(row.id);
}

export async function finishRun(db: Kysely<Database>, runId: number, result: RunResult): Promise<void> {
  await db
    .updateTable('sync_runs')
    .set({
      status: result.status,
      finished_at: result.finishedAt ?? new Date(),
      pages: result.pages,
      requests: result.requests,
      events_seen: result.eventsSeen,
      events_inserted: result.inserted,
      events_changed: result.changed,
      events_rejected: result.rejected,
      duration_ms: Math.round(result.durationMs),
      error: result.error === undefined ? null : toStorableText(result.error.slice(0, MAX_ERROR_LENGTH)),
    })
    .where('id', '=', runId)
    .execute();
}

/**
 * Windows of `mode` runs that succeeded for the scope and overlap [from, to] (bounds inclusive),
 * oldest first and without repeats: a resumed backfill skips those it plans again.
 */
export async function findSucceededWindows(
  db: Kysely<Database>,
  scopeKey: string,
  mode: RunMode,
  from: Date,
  to: Date,
): Promise<Array<{ windowStart: Date; windowEnd: Date }>> {
  const rows = await db
    .selectFrom('sync_runs')
    .select(['window_start', 'window_end'])
    .distinct()
    .where('scope', '=', scopeKey)
    .where('mode', '=', mode)
    .where('status', '=', 'succeeded')
    .where('window_end', '>=', from)
    .where('window_start', '<=', to)
    .orderBy('window_start')
    .orderBy('window_end')
    .execute();
  return rows.map((row) => ({ windowStart: row.window_start, windowEnd: row.window_end }));
}
