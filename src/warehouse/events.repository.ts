/**
 * Writes pages of events, rows changed only when the payload differs. On PostgreSQL the events new
 * to the warehouse (most of a backfill) are COPied in, at COPY's cost; the rest, and every page on
 * the embedded warehouse, go through one INSERT … ON CONFLICT statement.
 */
import { sql, type Kysely } from 'kysely';
import type { RejectedEvent, ValidEvent } from '../events/types.js';
import { parseScope } from '../scope.js';
import { copyLines } from './copy-lines.js';
import { COPY_ROW_COLUMNS } from './copy-text.js';
import { copyInOf, type CopyIn } from './copy-transaction.js';
import { warehouseOf } from './database.js';
import { EVENT_ROW_COLUMNS, dedupeById, eventRowValues, storedEventId, toColumnParameters, type RowValue } from './event-row.js';
import { toStorableText } from './storable-json.js';
import type { Database } from './tables.js';

export interface UpsertCounts {
  inserted: number;
  changed: number;
  /** Events of the page that changed nothing, duplicates within the page included. */
  unchanged: number;
}

const COLUMN_NAMES = EVENT_ROW_COLUMNS.map((column) => column.name);
const SOURCE_ALIAS = sql`r(${sql.join(COLUMN_NAMES.map((name) => sql.id(name)))})`;
// Plain columns travel as text[] and are cast back here (eventRowValues checked their types); jsonb
// columns as one JSON array each. ROWS FROM zips them into rows.
// JSON null (an absent raw document) becomes SQL NULL.
const SOURCE_COLUMNS = sql.join(
  EVENT_ROW_COLUMNS.map(({ name, type }) => {
    if (type === 'text') return sql.ref(`r.${name}`);
    if (type === 'jsonb') return sql`nullif(${sql.ref(`r.${name}`)}, 'null'::jsonb)`;
    return sql`${sql.ref(`r.${name}`)}::${sql.raw(type)}`;
  }),
);

const NOTHING: UpsertCounts = { inserted: 0, changed: 0, unchanged: 0 };

/**
 * The scope of each event id the warehouse holds, by stored id (ids it does not hold are absent);
 * PROVISIONAL for a row only the push path has brought, which any feed's page replaces.
 */
export type HeldScopes = ReadonlyMap<string, string>;

/** Held by a provisional (pushed) row: never a scope key. */
export const PROVISIONAL = '';

/**
 * A page sorted by what the warehouse holds, the new events already encoded for COPY: made from a
 * lookup before the page's transaction (on PostgreSQL), so the transaction itself only writes.
 */
export interface PreparedPage {
  readonly events: readonly ValidEvent[];
  /** Not held: COPied in. */
  readonly fresh: number;
  readonly copied: Buffer | undefined;
  /** Held under this scope, or provisionally by a push: the statement (changed-only updates, and replacing a pushed row). */
  readonly own: readonly ValidEvent[];
  /** Held under another scope: a membership. */
  readonly elsewhere: readonly ValidEvent[];
}

export function preparePage(scopeKey: string, events: readonly ValidEvent[], held: HeldScopes, now: Date): PreparedPage {
  const distinct = dedupeById(events);
  const scope = parseScope(scopeKey);
  // `held` is keyed by the stored id (what lookupHeldScopes reads back).
  const holder = (event: ValidEvent) => held.get(storedEventId(event));
  const fresh = distinct.filter((event) => holder(event) === undefined);
  return {
    events,
    fresh: fresh.length,
    copied: fresh.length > 0 ? copyLines(scope, fresh, now.toISOString()) : undefined,
    own: distinct.filter((event) => holder(event) === scopeKey || holder(event) === PROVISIONAL),
    elsewhere: distinct.filter((event) => {
      const holding = holder(event);
      return holding !== undefined && holding !== scopeKey && holding !== PROVISIONAL;
    }),
  };
}

/**
 * Upserts one page (any size; pages are up to 500) atomically. Pass a transaction to move the
 * checkpoint with the rows; one opened by `Warehouse.transaction` on PostgreSQL COPies the new
 * events in. Given the warehouse's own `db` on PostgreSQL, the page gets such a transaction of its own.
 * `prepared` (from `preparePage` of these events) spares the lookup and encoding inside the
 * transaction: an id its lookup missed makes the COPY fail on the key, as a concurrent insert would.
 */
export async function upsertEvents(
  db: Kysely<Database>,
  scopeKey: string,
  events: readonly ValidEvent[],
  now: Date = new Date(),
  prepared?: PreparedPage,
): Promise<UpsertCounts> {
  if (events.length === 0) return NOTHING;
  const copyIn = copyInOf(db);
  if (copyIn) {
    const page = prepared?.events === events ? prepared : preparePage(scopeKey, events, await lookupHeldScopes(db, events), now);
    return copyNewEvents(db, copyIn, scopeKey, page, now);
  }
  const warehouse = warehouseOf(db);
  if (warehouse?.kind === 'postgres') return warehouse.transaction((trx) => upsertEvents(trx, scopeKey, events, now, prepared));
  return upsertEventsInOneStatement(db, scopeKey, events, now);
}

/**
 * The page through INSERT … ON CONFLICT alone: the embedded warehouse's path, and PostgreSQL's when
 * a COPY met a row another transaction had just inserted.
 */
export async function upsertEventsInOneStatement(
  db: Kysely<Database>,
  scopeKey: string,
  events: readonly ValidEvent[],
  now: Date = new Date(),
): Promise<UpsertCounts> {
  if (events.length === 0) return NOTHING;
  const counts = await upsertStatement(db, scopeKey, dedupeById(events), now);
  await recordOtherScopes(
    db,
    scopeKey,
    events.map((event) => event.id),
  );
  return { ...counts, unchanged: events.length - counts.inserted - counts.changed };
}

/**
 * Events the warehouse does not hold yet are COPied into `events`; those it holds under this scope
 * go through the statement (changed-only updates); those another feed listed first become
 * memberships. A COPY that meets a row inserted since the lookup fails with unique_violation (23505).
 */
async function copyNewEvents(db: Kysely<Database>, copyIn: CopyIn, scopeKey: string, page: PreparedPage, now: Date): Promise<UpsertCounts> {
  if (page.copied) await copyIn('events', COPY_ROW_COLUMNS, page.copied);
  const updated = page.own.length > 0 ? await upsertStatement(db, scopeKey, page.own, now) : NOTHING;
  if (page.elsewhere.length > 0)
    await recordOtherScopes(
      db,
      scopeKey,
      page.elsewhere.map((event) => event.id),
    );
  const inserted = page.fresh + updated.inserted;
  return { inserted, changed: updated.changed, unchanged: page.events.length - inserted - updated.changed };
}

/** Which of these events the warehouse holds, and under which scope (PROVISIONAL: pushed only; one index probe each). */
export async function lookupHeldScopes(db: Kysely<Database>, events: readonly ValidEvent[]): Promise<Map<string, string>> {
  const rows = await db
    .selectFrom('events')
    .select(['id', 'scope', 'source'])
    .where(sql<boolean>`${sql.ref('id')} = any(${events.map(storedEventId)}::text[])`)
    .execute();
  return new Map(rows.map((row) => [row.id, row.source === 'push' ? PROVISIONAL : row.scope]));
}

/**
 * A SELECT of rows (EVENT_ROW_COLUMNS order) then the two stamps, then one column per `extra` (JSON
 * arrays of jsonb values, one element per row), for an INSERT into `events`.
 */
export function eventRowsSelect(rows: readonly (readonly RowValue[])[], stamp: string, extra: readonly string[] = []) {
  const parameters = toColumnParameters(rows);
  // Measured faster than one JSON recordset of whole rows (docs/benchmarks.md).
  const functions = [
    ...parameters.map((values) =>
      typeof values === 'string' ? sql`jsonb_array_elements(${values}::text::jsonb)` : sql`unnest(${values}::text[])`,
    ),
    ...extra.map((values) => sql`jsonb_array_elements(${values}::text::jsonb)`),
  ];
  const alias =
    extra.length === 0
      ? SOURCE_ALIAS
      : sql`r(${sql.join([...COLUMN_NAMES, ...extra.map((_, i) => `extra_${i}`)].map((name) => sql.id(name)))})`;
  const extraColumns = extra.map((_, i) => sql`, ${sql.ref(`r.extra_${i}`)}`);
  return sql`select ${SOURCE_COLUMNS}, ${stamp}::timestamptz, ${stamp}::timestamptz${sql.join(extraColumns, sql``)}
    from rows from (${sql.join(functions)}) as ${alias}`;
}

/** One INSERT … ON CONFLICT for events with distinct ids; `unchanged` is left to the caller. */
async function upsertStatement(db: Kysely<Database>, scopeKey: string, distinct: readonly ValidEvent[], now: Date): Promise<UpsertCounts> {
  const scope = parseScope(scopeKey);
  const source = eventRowsSelect(
    distinct.map((event) => eventRowValues(scope, event)),
    now.toISOString(),
  );

  const updates = {
    ...Object.fromEntries(
      [...COLUMN_NAMES.filter((name) => name !== 'id'), 'updated_at'].map((name) => [name, sql.ref(`excluded.${name}`)]),
    ),
    // The API's representation replaces a pushed one (whose record stays in `pushed`).
    source: sql<'pull'>`'pull'`,
  };
  const pushedRow = sql<boolean>`${sql.ref('events.source')} = 'push'`;
  const returned = await db
    .insertInto('events')
    .columns([...(COLUMN_NAMES as Array<keyof Database['events']>), 'ingested_at', 'updated_at'])
    .expression(source)
    .onConflict((oc) =>
      oc
        .column('id')
        .doUpdateSet(updates)
        // A row follows the feed that listed it first: another feed listing the same id adds a
        // membership (event_other_scopes), never flips the row's scope or payload back and forth.
        // A pushed row is provisional: whichever feed reads the event first replaces it.
        .where((eb) => eb.or([sql<boolean>`${sql.ref('events.scope')} = ${sql.ref('excluded.scope')}`, pushedRow]))
        .where((eb) => eb.or([sql<boolean>`${sql.ref('events.payload')} is distinct from ${sql.ref('excluded.payload')}`, pushedRow])),
    )
    .returning(sql<boolean>`(xmax = 0)`.as('inserted'))
    .execute();
  const inserted = returned.filter((row) => row.inserted).length;
  return { inserted, changed: returned.length - inserted, unchanged: 0 };
}

/**
 * Of these ids, those whose `events` row another feed listed first: this scope lists them too,
 * kept once in `event_other_scopes` (the `event_scopes` view adds each row's own scope).
 */
async function recordOtherScopes(db: Kysely<Database>, scopeKey: string, ids: readonly string[]): Promise<void> {
  await sql`
    insert into ${sql.table('event_other_scopes')} (scope, event_id, created)
    select ${scopeKey}, e.id, e.created from ${sql.table('events')} e
    where e.id = any(${ids.map(toStorableText)}::text[]) and e.scope <> ${scopeKey}
    on conflict (scope, event_id) do nothing`.execute(db);
}

/**
 * Whether the warehouse refused a row's values (SQLSTATE class 22, data exception; 23, integrity
 * constraint; 54, a limit such as an index entry's size; 21000, two rows of one statement for one
 * key): retrying cannot help, and only the event that carries them should be set aside, not the page.
 */
export function isRowRefusal(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && (code === '21000' || /^(22|23|54)[0-9A-Z]{3}$/.test(code));
}

/**
 * Whether a row with one of the page's ids was inserted by another transaction between the page's
 * lookup and its COPY (unique_violation, 23505): the statement path takes such rows as they are.
 */
export function isUniqueViolation(error: unknown): boolean {
  return (error as { code?: unknown } | null)?.code === '23505';
}

/**
 * The slow path after a page was refused: each event in its own savepoint, so the ones the
 * warehouse refuses come back as rejected events with the reason and the rest land. Must run in a
 * transaction.
 */
export async function upsertEventsOneByOne(
  trx: Kysely<Database>,
  scopeKey: string,
  events: readonly ValidEvent[],
  now: Date = new Date(),
): Promise<{ counts: UpsertCounts; refused: RejectedEvent[] }> {
  const counts: UpsertCounts = { inserted: 0, changed: 0, unchanged: 0 };
  const refused: RejectedEvent[] = [];
  const distinct = dedupeById(events);
  for (const event of distinct) {
    await sql`savepoint event_row`.execute(trx);
    try {
      const one = await upsertEventsInOneStatement(trx, scopeKey, [event], now);
      counts.inserted += one.inserted;
      counts.changed += one.changed;
      counts.unchanged += one.unchanged;
      await sql`release savepoint event_row`.execute(trx);
    } catch (error) {
      if (!isRowRefusal(error)) throw error;
      await sql`rollback to savepoint event_row`.execute(trx);
      const { code, message } = error as { code: string; message: string };
      const reason = `the warehouse refused it: ${message} (SQLSTATE ${code})`;
      refused.push(event.json === undefined ? { reason, payload: event.payload } : { reason, payload: event.payload, json: event.json });
    }
  }
  counts.unchanged += events.length - distinct.length;
  return { counts, refused };
}

/** Rows in `events` per scope, for `status`. */
export async function countEventsByScope(db: Kysely<Database>): Promise<Map<string, number>> {
  const rows = await db
    .selectFrom('events')
    .select(['scope', (eb) => eb.fn.countAll<number>().as('events')])
    .groupBy('scope')
    .orderBy('scope')
    .execute();
  return new Map(rows.map((row) => [row.scope, Number(row.events)]));
}
