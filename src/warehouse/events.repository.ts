/** Writes pages of events: one statement per page, rows changed only when the payload differs. */
import { sql, type Kysely } from 'kysely';
import type { RejectedEvent, ValidEvent } from '../events/types.js';
import { parseScope } from '../scope.js';
import { EVENT_ROW_COLUMNS, dedupeById, toColumnParameters, toEventRow } from './event-row.js';
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
// Plain columns travel as text[] and are cast back here (toEventRow checked their types); jsonb
// columns as one JSON array each. ROWS FROM zips them into rows.
// JSON null (an absent raw document) becomes SQL NULL.
const SOURCE_COLUMNS = sql.join(
  EVENT_ROW_COLUMNS.map(({ name, type }) => {
    if (type === 'text') return sql.ref(`r.${name}`);
    if (type === 'jsonb') return sql`nullif(${sql.ref(`r.${name}`)}, 'null'::jsonb)`;
    return sql`${sql.ref(`r.${name}`)}::${sql.raw(type)}`;
  }),
);

/**
 * Upserts one page (any size; pages are up to 500) in a single INSERT … ON CONFLICT statement.
 * Pass a transaction to move the checkpoint atomically with the rows.
 */
export async function upsertEvents(
  db: Kysely<Database>,
  scopeKey: string,
  events: readonly ValidEvent[],
  now: Date = new Date(),
): Promise<UpsertCounts> {
  if (events.length === 0) return { inserted: 0, changed: 0, unchanged: 0 };
  const scope = parseScope(scopeKey);
  const parameters = toColumnParameters(dedupeById(events).map((event) => toEventRow(scope, event)));
  const stamp = now.toISOString();
  // Measured faster than one JSON recordset of whole rows (README, Benchmarks).
  const functions = parameters.map((values) =>
    typeof values === 'string' ? sql`jsonb_array_elements(${values}::text::jsonb)` : sql`unnest(${values}::text[])`,
  );
  const source = sql`select ${SOURCE_COLUMNS}, ${stamp}::timestamptz, ${stamp}::timestamptz
    from rows from (${sql.join(functions)}) as ${SOURCE_ALIAS}`;

  const updates = Object.fromEntries(
    [...COLUMN_NAMES.filter((name) => name !== 'id'), 'updated_at'].map((name) => [name, sql.ref(`excluded.${name}`)]),
  );
  const returned = await db
    .insertInto('events')
    .columns([...(COLUMN_NAMES as Array<keyof Database['events']>), 'ingested_at', 'updated_at'])
    .expression(source)
    .onConflict((oc) =>
      oc
        .column('id')
        .doUpdateSet(updates)
        // A row follows the feed that listed it first: another feed listing the same id adds a
        // membership below, never flips the row's scope or payload back and forth.
        .where(sql<boolean>`${sql.ref('events.scope')} = ${sql.ref('excluded.scope')}`)
        .where(sql<boolean>`${sql.ref('events.payload')} is distinct from ${sql.ref('excluded.payload')}`),
    )
    .returning(sql<boolean>`(xmax = 0)`.as('inserted'))
    .execute();
  await recordMemberships(db, scopeKey, events);

  const inserted = returned.filter((row) => row.inserted).length;
  const changed = returned.length - inserted;
  return { inserted, changed, unchanged: events.length - inserted - changed };
}

/** The scope lists these events: one `event_scopes` row per (scope, id), kept once. */
async function recordMemberships(db: Kysely<Database>, scopeKey: string, events: readonly ValidEvent[]): Promise<void> {
  const ids = events.map((event) => toStorableText(event.id));
  const created = events.map((event) => event.created.toISOString());
  await sql`
    insert into ${sql.table('event_scopes')} (scope, event_id, created)
    select ${scopeKey}, m.id, m.created::timestamptz from unnest(${ids}::text[], ${created}::text[]) as m(id, created)
    on conflict (scope, event_id) do nothing`.execute(db);
}

/**
 * Whether the warehouse refused a row's values (SQLSTATE class 22, data exception; 23, integrity
 * constraint; 54, a limit such as an index entry's size): retrying cannot help, and only the
 * event that carries them should be set aside, not the page.
 */
export function isRowRefusal(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^(22|23|54)[0-9A-Z]{3}$/.test(code);
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
      const one = await upsertEvents(trx, scopeKey, [event], now);
      counts.inserted += one.inserted;
      counts.changed += one.changed;
      counts.unchanged += one.unchanged;
      await sql`release savepoint event_row`.execute(trx);
    } catch (error) {
      if (!isRowRefusal(error)) throw error;
      await sql`rollback to savepoint event_row`.execute(trx);
      const { code, message } = error as { code: string; message: string };
      refused.push({ reason: `the warehouse refused it: ${message} (SQLSTATE ${code})`, payload: event.payload });
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
