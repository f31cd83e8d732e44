/**
 * What `reconcile` asks of the warehouse: how many events of a scope it knows in a window (held,
 * plus set aside as malformed there), and one `reconcile_runs` row per reconcile of a scope.
 */
import { sql, type Kysely } from 'kysely';
import { MAX_ERROR_LENGTH } from './state.repository.js';
import { toStorableText } from './storable-json.js';
import type { Database, ReconcileResult } from './tables.js';

export interface CountedWindow {
  readonly minDate: Date;
  readonly maxDate: Date;
}

export interface KnownEvents {
  /** Events of the scope created in the window. */
  readonly held: number;
  /** Rejected events listed there: the API counts them too. */
  readonly setAside: number;
}

/**
 * Events of the scope created in [minDate, maxDate] (inclusive, as the API's filter), and the
 * rejected events listed there, restricted to `eventTypes` when the scope has a type filter: their
 * sum is what the API's `totalCount` for the same query should equal.
 */
export async function countKnownEvents(
  db: Kysely<Database>,
  scopeKey: string,
  window: CountedWindow,
  eventTypes: readonly string[],
  /** Atlas v2 project feeds' server-side filters: the API's counts leave these out, so do ours. */
  filters: { readonly excludeEventTypes?: readonly string[]; readonly clusterNames?: readonly string[] } = {},
): Promise<KnownEvents> {
  const excluded = filters.excludeEventTypes ?? [];
  const clusters = filters.clusterNames ?? [];
  const joined = eventTypes.length > 0 || excluded.length > 0 || clusters.length > 0;
  // Every event the scope's feed listed, including those another feed listed first.
  let held = db
    .selectFrom('event_scopes as m')
    .select(sql<string>`count(*)`.as('n'))
    .where('m.scope', '=', scopeKey)
    .where('m.created', '>=', window.minDate)
    .where('m.created', '<=', window.maxDate);
  if (joined) {
    let filtered = held.innerJoin('events as e', 'e.id', 'm.event_id');
    if (eventTypes.length > 0) filtered = filtered.where('e.event_type_name', 'in', [...eventTypes]);
    if (excluded.length > 0) filtered = filtered.where('e.event_type_name', 'not in', [...excluded]);
    if (clusters.length > 0) filtered = filtered.where('e.cluster_name', 'in', [...clusters]);
    held = filtered;
  }
  let setAside = db
    .selectFrom('rejected_events')
    .select(sql<string>`count(*)`.as('n'))
    .where('scope', '=', scopeKey)
    .where('listed_from', '>=', window.minDate)
    .where('listed_to', '<=', window.maxDate);
  if (eventTypes.length > 0) setAside = setAside.where(sql<string>`payload->>'eventTypeName'`, 'in', [...eventTypes]);
  if (excluded.length > 0) {
    setAside = setAside.where((eb) =>
      eb.or([eb(sql<string>`payload->>'eventTypeName'`, 'is', null), eb(sql<string>`payload->>'eventTypeName'`, 'not in', [...excluded])]),
    );
  }
  if (clusters.length > 0) setAside = setAside.where(sql<string>`payload->>'clusterName'`, 'in', [...clusters]);
  const [a, b] = await Promise.all([held.executeTakeFirstOrThrow(), setAside.executeTakeFirstOrThrow()]);
  return { held: Number(a.n), setAside: Number(b.n) };
}

export interface ReconcileRunStats {
  readonly windowsChecked: number;
  readonly windowsDiffering: number;
  readonly windowsReread: number;
  readonly eventsRecovered: number;
  /** Listed by the API, still not in the warehouse after the re-reads. */
  readonly eventsMissing: number;
  /** In the warehouse, no longer listed by the API (retention, deletion): reported, never deleted. */
  readonly eventsExtra: number;
  readonly requests: number;
}

export async function startReconcileRun(db: Kysely<Database>, scopeKey: string, from: Date, to: Date): Promise<number> {
  const row = await db
    .insertInto('reconcile_runs')
    .values({ scope: scopeKey, range_from: from, range_to: to, started_at: new Date() })
    .returning('id')
    .executeTakeFirstOrThrow();
  return Number(row.id);
}

export async function finishReconcileRun(
  db: Kysely<Database>,
  id: number,
  result: Exclude<ReconcileResult, 'running'>,
  stats: ReconcileRunStats,
  error?: string,
): Promise<void> {
  await db
    .updateTable('reconcile_runs')
    .set({
      finished_at: new Date(),
      result,
      windows_checked: stats.windowsChecked,
      windows_differing: stats.windowsDiffering,
      windows_reread: stats.windowsReread,
      events_recovered: stats.eventsRecovered,
      events_missing: stats.eventsMissing,
      events_extra: stats.eventsExtra,
      requests: stats.requests,
      error: error === undefined ? null : toStorableText(error.slice(0, MAX_ERROR_LENGTH)),
    })
    .where('id', '=', id)
    .execute();
}

export interface LastReconcile {
  readonly scope: string;
  readonly startedAt: Date;
  readonly finishedAt: Date | null;
  readonly result: ReconcileResult;
  readonly rangeFrom: Date;
  readonly rangeTo: Date;
  readonly eventsRecovered: number;
}

/** The newest reconcile of each scope. */
export async function lastReconciles(db: Kysely<Database>): Promise<Map<string, LastReconcile>> {
  const rows = await db
    .selectFrom('reconcile_runs')
    .select(['scope', 'started_at', 'finished_at', 'result', 'range_from', 'range_to', 'events_recovered'])
    .distinctOn('scope')
    .orderBy('scope')
    .orderBy('started_at', 'desc')
    .execute();
  return new Map(
    rows.map((row) => [
      row.scope,
      {
        scope: row.scope,
        startedAt: row.started_at,
        finishedAt: row.finished_at,
        result: row.result,
        rangeFrom: row.range_from,
        rangeTo: row.range_to,
        eventsRecovered: row.events_recovered,
      },
    ]),
  );
}
