/** `sync_state`: one row per scope holding its checkpoint and health. */
import { sql, type Kysely, type Selectable } from 'kysely';
import { toStorableText } from './storable-json.js';
import type { Database, SyncStateTable } from './tables.js';

/** The scope settings a checkpoint was made with. */
export interface CheckpointSettings {
  readonly eventTypes: readonly string[];
  readonly includeRaw: boolean;
  readonly startDate: string | null;
  /** Atlas v2 project feeds: types the service left out (absent: none). */
  readonly excludeEventTypes?: readonly string[];
  /** Atlas v2 project feeds: the clusters read (absent: every cluster). */
  readonly clusterNames?: readonly string[];
}

export interface SyncState {
  scope: string;
  watermark: Date | null;
  /** null: recorded before settings were (or never synced). */
  settings: CheckpointSettings | null;
  lastSuccessAt: Date | null;
  lastAttemptAt: Date | null;
  lastError: string | null;
  /** The last error's code; null when healthy or recorded before codes were. */
  lastErrorCode: string | null;
  consecutiveFailures: number;
  /** Polls that succeeded, idle ones included (an idle poll adds no sync_runs row). */
  polls: number;
  lastPolledAt: Date | null;
  /** When a poll or sync last landed an event (new, changed or set aside). */
  lastLandedAt: Date | null;
}

/** Longer error texts are cut: the full error belongs in the logs. */
export const MAX_ERROR_LENGTH = 4000;

export async function getSyncState(db: Kysely<Database>, scopeKey: string): Promise<SyncState | undefined> {
  const row = await db.selectFrom('sync_state').selectAll().where('scope', '=', scopeKey).executeTakeFirst();
  return row && toSyncState(row);
}

export async function listSyncStates(db: Kysely<Database>): Promise<SyncState[]> {
  const rows = await db.selectFrom('sync_state').selectAll().orderBy('scope').execute();
  return rows.map(toSyncState);
}

/**
 * Moves the checkpoint after the rows it covers are written (call it in the same transaction).
 * Never moves it backwards; marks the scope healthy.
 */
export async function advanceWatermark(db: Kysely<Database>, scopeKey: string, watermark: Date, now: Date = new Date()): Promise<void> {
  await db
    .insertInto('sync_state')
    .values({
      scope: scopeKey,
      watermark,
      last_success_at: now,
      last_error: null,
      last_error_code: null,
      consecutive_failures: 0,
      updated_at: now,
    })
    .onConflict((oc) =>
      oc.column('scope').doUpdateSet({
        watermark: sql`greatest(${sql.ref('sync_state.watermark')}, ${sql.ref('excluded.watermark')})`,
        last_success_at: (eb) => eb.ref('excluded.last_success_at'),
        last_error: null,
        last_error_code: null,
        consecutive_failures: 0,
        updated_at: (eb) => eb.ref('excluded.updated_at'),
      }),
    )
    .execute();
}

export async function recordAttempt(db: Kysely<Database>, scopeKey: string, now: Date = new Date()): Promise<void> {
  await db
    .insertInto('sync_state')
    .values({ scope: scopeKey, last_attempt_at: now, updated_at: now })
    .onConflict((oc) =>
      oc.column('scope').doUpdateSet({
        last_attempt_at: (eb) => eb.ref('excluded.last_attempt_at'),
        updated_at: (eb) => eb.ref('excluded.updated_at'),
      }),
    )
    .execute();
}

export async function recordFailure(
  db: Kysely<Database>,
  scopeKey: string,
  error: string,
  now: Date = new Date(),
  code: string | null = null,
): Promise<void> {
  await db
    .insertInto('sync_state')
    .values({
      scope: scopeKey,
      last_error: toStorableText(error.slice(0, MAX_ERROR_LENGTH)),
      last_error_code: code === null ? null : toStorableText(code.slice(0, 100)),
      consecutive_failures: 1,
      updated_at: now,
    })
    .onConflict((oc) =>
      oc.column('scope').doUpdateSet({
        last_error: (eb) => eb.ref('excluded.last_error'),
        last_error_code: (eb) => eb.ref('excluded.last_error_code'),
        consecutive_failures: sql`${sql.ref('sync_state.consecutive_failures')} + 1`,
        updated_at: (eb) => eb.ref('excluded.updated_at'),
      }),
    )
    .execute();
}

/**
 * A run of the scope ended well: a poll counts (`polls`, `last_polled_at`), and one that landed
 * anything moves `last_landed_at`. This, not a `sync_runs` row, is what an idle poll leaves.
 */
export async function recordRunEnd(
  db: Kysely<Database>,
  scopeKey: string,
  run: { readonly poll: boolean; readonly landed: boolean },
  now: Date = new Date(),
): Promise<void> {
  if (!run.poll && !run.landed) return;
  await db
    .updateTable('sync_state')
    .set({
      ...(run.poll ? { polls: sql`polls + 1`, last_polled_at: now } : {}),
      ...(run.landed ? { last_landed_at: now } : {}),
    })
    .where('scope', '=', scopeKey)
    .execute();
}

/** Records the settings the checkpoint now covers (after a run that read with them). */
export async function recordCheckpointSettings(db: Kysely<Database>, scopeKey: string, settings: CheckpointSettings): Promise<void> {
  await db
    .updateTable('sync_state')
    .set({ settings: JSON.stringify(settings) })
    .where('scope', '=', scopeKey)
    .execute();
}

/**
 * Sets the checkpoint by hand (`checkpoint --set` / `--reset`): unlike advanceWatermark it may move
 * back, and a reset forgets the settings too, so the next sync starts from the start date.
 */
export async function setWatermark(db: Kysely<Database>, scopeKey: string, watermark: Date | null, now: Date = new Date()): Promise<void> {
  await db
    .insertInto('sync_state')
    .values({ scope: scopeKey, watermark, updated_at: now })
    .onConflict((oc) =>
      oc.column('scope').doUpdateSet({
        watermark: (eb) => eb.ref('excluded.watermark'),
        ...(watermark === null ? { settings: null } : {}),
        updated_at: (eb) => eb.ref('excluded.updated_at'),
      }),
    )
    .execute();
}

function toSyncState(row: Selectable<SyncStateTable>): SyncState {
  return {
    scope: row.scope,
    watermark: row.watermark,
    settings: (row.settings as CheckpointSettings | null) ?? null,
    lastSuccessAt: row.last_success_at,
    lastAttemptAt: row.last_attempt_at,
    lastError: row.last_error,
    lastErrorCode: row.last_error_code,
    consecutiveFailures: Number(row.consecutive_failures),
    polls: Number(row.polls),
    lastPolledAt: row.last_polled_at,
    lastLandedAt: row.last_landed_at,
  };
}

export { countEventsByScope } from './events.repository.js';
