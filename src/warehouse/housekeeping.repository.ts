/** Keeping `sync_runs` bounded and honest: retention by age, and runs a crash cut off marked. */
import { sql, type Kysely } from 'kysely';
import type { Database } from './tables.js';

/** Rows deleted per statement: each is a short transaction, never one that holds millions of rows' locks. */
export const PRUNE_BATCH = 10_000;

/** Deletes runs that started before `before`, `batch` rows a statement; returns how many. */
export async function pruneRuns(db: Kysely<Database>, before: Date, batch = PRUNE_BATCH): Promise<number> {
  let pruned = 0;
  for (;;) {
    const result = await db
      .deleteFrom('sync_runs')
      .where('id', 'in', (eb) => eb.selectFrom('sync_runs').select('id').where('started_at', '<', before).limit(batch))
      .executeTakeFirst();
    const deleted = Number(result.numDeletedRows);
    pruned += deleted;
    if (deleted < batch) return pruned;
  }
}

/** Scopes with runs still `running` that started before `before`. */
export async function scopesWithStaleRunning(db: Kysely<Database>, before: Date): Promise<string[]> {
  const rows = await db
    .selectFrom('sync_runs')
    .select('scope')
    .distinct()
    .where('status', '=', 'running')
    .where('started_at', '<', before)
    .execute();
  return rows.map((row) => row.scope);
}

/** Marks a scope's runs still `running` from before `before` as abandoned (call it holding the scope's lock). */
export async function markAbandoned(db: Kysely<Database>, scopeKey: string, before: Date, now: Date = new Date()): Promise<number> {
  const result = await db
    .updateTable('sync_runs')
    .set({
      status: 'abandoned',
      finished_at: now,
      error: sql`coalesce(error, 'cut off before it finished (the process ended); its events are read again')`,
    })
    .where('scope', '=', scopeKey)
    .where('status', '=', 'running')
    .where('started_at', '<', before)
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}
