/**
 * `forget`: a scope's rows leave the warehouse. Its state (sync_state, with the checkpoint's
 * settings), its runs (sync_runs, reconcile_runs) and its `scopes` row always; with events, its
 * events, its memberships and its rejected events too, and the schema changes its events were the
 * first to bring are credited to another scope's (or removed). An event the scope shares with
 * another scope stays, held by that one. Call it holding the scope's lock.
 *
 * Events go first, `FORGET_BATCH` rows a statement (never one transaction holding millions of row
 * locks, nor one statement past the query deadline), and the state last in one transaction: an
 * interrupted forget leaves the scope known, so running it again finishes the work.
 */
import { sql, type Kysely } from 'kysely';
import type { Database } from './tables.js';

export const FORGET_BATCH = 10_000;

export interface ForgottenRows {
  readonly syncState: number;
  readonly syncRuns: number;
  readonly reconcileRuns: number;
  readonly scopes: number;
  /** Events deleted (held by this scope alone). */
  readonly events: number;
  /** Events this scope held that another scope also lists: kept, now held by that one. */
  readonly eventsKept: number;
  /** Rows of event_other_scopes naming this scope. */
  readonly memberships: number;
  readonly rejectedEvents: number;
}

export async function forgetScopeRows(
  db: Kysely<Database>,
  scopeKey: string,
  options: { readonly deleteEvents: boolean; readonly batch?: number },
): Promise<ForgottenRows> {
  const batch = options.batch ?? FORGET_BATCH;
  let events = 0;
  let eventsKept = 0;
  let memberships = 0;
  let rejectedEvents = 0;
  if (options.deleteEvents) {
    // An event another scope lists too passes to that scope (the first by key), which no longer
    // lists it as an other scope: the event_scopes view still shows it under that scope once.
    const moved = await sql<{ id: string }>`
      with heirs as (
        select distinct on (o.event_id) o.event_id, o.scope
        from ${sql.table('event_other_scopes')} o
        join ${sql.table('events')} e on e.id = o.event_id
        where e.scope = ${scopeKey} and o.scope <> ${scopeKey}
        order by o.event_id, o.scope
      ), moved as (
        update ${sql.table('events')} e set scope = h.scope from heirs h where e.id = h.event_id returning e.id, e.scope
      )
      delete from ${sql.table('event_other_scopes')} o using moved m where o.event_id = m.id and o.scope = m.scope returning o.event_id as id
    `.execute(db);
    eventsKept = moved.rows.length;
    memberships = await deleteInBatches(batch, () =>
      db
        .deleteFrom('event_other_scopes')
        .where('scope', '=', scopeKey)
        .where('event_id', 'in', (eb) => eb.selectFrom('event_other_scopes').select('event_id').where('scope', '=', scopeKey).limit(batch))
        .executeTakeFirst(),
    );
    events = await deleteInBatches(batch, () =>
      db
        .deleteFrom('events')
        .where('id', 'in', (eb) => eb.selectFrom('events').select('id').where('scope', '=', scopeKey).limit(batch))
        .executeTakeFirst(),
    );
    rejectedEvents = await deleteInBatches(batch, () =>
      db
        .deleteFrom('rejected_events')
        .where('id', 'in', (eb) => eb.selectFrom('rejected_events').select('id').where('scope', '=', scopeKey).limit(batch))
        .executeTakeFirst(),
    );
    await creditSchemaSightings(db, scopeKey);
  }
  const syncRuns = await deleteInBatches(batch, () =>
    db
      .deleteFrom('sync_runs')
      .where('id', 'in', (eb) => eb.selectFrom('sync_runs').select('id').where('scope', '=', scopeKey).limit(batch))
      .executeTakeFirst(),
  );
  const state = await db.transaction().execute(async (trx) => {
    const reconcileRuns = await trx.deleteFrom('reconcile_runs').where('scope', '=', scopeKey).executeTakeFirst();
    const scopes = await trx.deleteFrom('scopes').where('scope', '=', scopeKey).executeTakeFirst();
    const syncState = await trx.deleteFrom('sync_state').where('scope', '=', scopeKey).executeTakeFirst();
    return {
      reconcileRuns: Number(reconcileRuns.numDeletedRows),
      scopes: Number(scopes.numDeletedRows),
      syncState: Number(syncState.numDeletedRows),
    };
  });
  return { ...state, syncRuns, events, eventsKept, memberships, rejectedEvents };
}

/**
 * The schema-change rows (event_types_seen, event_fields_seen) whose first event was one of the
 * scope's deleted events: credited to the earliest event still held of that type (that carries the
 * field), as if the forgotten scope had never been synced, or removed when none is held. Deleting
 * them all would make the next page of another scope bringing the type report it as new.
 * One indexed lookup a row (events by type and created); a scope brings a few hundred at most.
 */
async function creditSchemaSightings(db: Kysely<Database>, scopeKey: string): Promise<void> {
  const heirOf = (type: string, field?: string) =>
    db
      .selectFrom('events')
      .select(['id', 'scope', 'ingested_at'])
      .where('event_type_name', '=', type)
      .$if(field !== undefined, (q) => q.where(sql<boolean>`payload ? ${field}`))
      .orderBy('event_type_name')
      .orderBy('created')
      .limit(1)
      .executeTakeFirst();
  const credit = (heir: { id: string; scope: string; ingested_at: Date }) => ({
    first_event_id: heir.id,
    scope: heir.scope,
    first_seen_at: heir.ingested_at,
  });
  const types = await db.selectFrom('event_types_seen').select('event_type_name').where('scope', '=', scopeKey).execute();
  for (const { event_type_name: type } of types) {
    const heir = await heirOf(type);
    const mine = sql<boolean>`event_type_name = ${type} and scope = ${scopeKey}`;
    if (heir) await db.updateTable('event_types_seen').set(credit(heir)).where(mine).execute();
    else await db.deleteFrom('event_types_seen').where(mine).execute();
  }
  const fields = await db.selectFrom('event_fields_seen').select(['event_type_name', 'field']).where('scope', '=', scopeKey).execute();
  for (const { event_type_name: type, field } of fields) {
    const heir = await heirOf(type, field);
    const mine = sql<boolean>`event_type_name = ${type} and field = ${field} and scope = ${scopeKey}`;
    if (heir) await db.updateTable('event_fields_seen').set(credit(heir)).where(mine).execute();
    else await db.deleteFrom('event_fields_seen').where(mine).execute();
  }
}

/** Events the warehouse holds for a scope (its own rows, and its memberships of others' rows). */
export async function countScopeEvents(db: Kysely<Database>, scopeKey: string): Promise<number> {
  const row = await db
    .selectFrom('event_scopes')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('scope', '=', scopeKey)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

async function deleteInBatches(batch: number, deleteSome: () => Promise<{ numDeletedRows: bigint }>): Promise<number> {
  let total = 0;
  for (;;) {
    const deleted = Number((await deleteSome()).numDeletedRows);
    total += deleted;
    if (deleted < batch) return total;
  }
}
