/**
 * New event types and new fields, reported the way loaders report schema changes: the first
 * event to bring a type or a top-level field records it, and that insert is the news.
 */
import { sql, type Kysely } from 'kysely';
import type { ValidEvent } from '../events/types.js';
import { MISSING_EVENT_TYPE } from './event-row.js';
import { toStorableText } from './storable-json.js';
import { typesNotInCatalog } from './event-type-catalog.repository.js';
import type { Database } from './tables.js';

export interface SchemaChanges {
  readonly eventTypes: string[];
  /** `TYPE.field` */
  readonly fields: string[];
  /** Of the new types, those an Atlas v2 event type catalogue read into the warehouse does not list. */
  readonly notInCatalog?: string[];
}

export interface SchemaChange {
  readonly kind: 'event_type' | 'field';
  readonly eventTypeName: string;
  readonly field: string | null;
  readonly firstSeenAt: Date;
  readonly scope: string;
  readonly firstEventId: string;
}

interface FirstSighting {
  readonly eventTypeName: string;
  readonly field: string;
  readonly eventId: string;
}

/**
 * Remembers, per warehouse, what is already recorded, so a page of known types and fields (nearly
 * every page) costs no statement. Entries are added only once their transaction has committed.
 */
export class SeenSchema {
  /** Fields known per type: checking a field costs one Set lookup, no string built (this runs for every event). */
  readonly #known = new Map<string, Set<string>>();

  /**
   * The (type, field) pairs of `events` this process has not yet seen recorded, with their first
   * event: names and id as the warehouse stores them (NUL and lone surrogates as U+FFFD, as in the
   * rows), so a page that brings such a name still lands.
   */
  unseen(events: readonly ValidEvent[]): FirstSighting[] {
    const found: FirstSighting[] = [];
    let pending: Map<string, Set<string>> | undefined;
    for (const event of events) {
      const payload = event.payload;
      const sent = typeof payload.eventTypeName === 'string' ? payload.eventTypeName : MISSING_EVENT_TYPE;
      // Names are kept as stored (see storable-json.ts): the sent text is tried first, so a known
      // type or field costs no scan; only what is not known yet is made storable.
      let type = sent;
      let known = this.#known.get(type);
      if (!known) known = this.#known.get((type = toStorableText(sent)));
      for (const sentField in payload) {
        if (known?.has(sentField)) continue;
        const field = toStorableText(sentField);
        if (known?.has(field)) continue;
        pending ??= new Map();
        const already = pending.get(type) ?? new Set<string>();
        if (already.has(field)) continue;
        already.add(field);
        pending.set(type, already);
        found.push({ eventTypeName: type, field, eventId: toStorableText(event.id) });
      }
    }
    return found;
  }

  remember(sightings: readonly FirstSighting[]): void {
    for (const s of sightings) {
      const known = this.#known.get(s.eventTypeName) ?? new Set<string>();
      known.add(s.field);
      this.#known.set(s.eventTypeName, known);
    }
  }
}

/**
 * Records `sightings` in the transaction of the page that brought them and returns what no earlier
 * page had: two workers meeting the same new type report it once, as ON CONFLICT lets one insert win.
 * The fields a new type arrives with are part of its news; a field of a type an earlier page
 * recorded is a change of its own (on a first load, too: it is new to the warehouse).
 */
export async function recordSchema(
  db: Kysely<Database>,
  scopeKey: string,
  sightings: readonly FirstSighting[],
  now: Date,
): Promise<SchemaChanges> {
  if (sightings.length === 0) return { eventTypes: [], fields: [] };
  const firstOfType = new Map<string, FirstSighting>();
  for (const s of sightings) if (!firstOfType.has(s.eventTypeName)) firstOfType.set(s.eventTypeName, s);
  // Every writer inserts in one order (types, then fields, each sorted): two pages bringing the
  // same new names at once then wait for each other instead of deadlocking.
  const types = [...firstOfType.values()].sort((a, b) => compare(a.eventTypeName, b.eventTypeName));
  const fields = [...sightings].sort((a, b) => compare(a.eventTypeName, b.eventTypeName) || compare(a.field, b.field));
  const newTypeRows = await db
    .insertInto('event_types_seen')
    .values(
      types.map((s) => ({
        event_type_name: s.eventTypeName,
        first_seen_at: now,
        first_event_id: s.eventId,
        scope: scopeKey,
      })),
    )
    .onConflict((oc) => oc.column('event_type_name').doNothing())
    .returning('event_type_name')
    .execute();
  const newFieldRows = await db
    .insertInto('event_fields_seen')
    .values(
      fields.map((s) => ({
        event_type_name: s.eventTypeName,
        field: s.field,
        first_seen_at: now,
        first_event_id: s.eventId,
        scope: scopeKey,
      })),
    )
    .onConflict((oc) => oc.columns(['event_type_name', 'field']).doNothing())
    .returning(['event_type_name', 'field'])
    .execute();
  const newTypes = new Set(newTypeRows.map((t) => t.event_type_name));
  // A new type is rare: asking the catalogue about it costs nothing on the usual page.
  const notInCatalog = await typesNotInCatalog(db, [...newTypes]);
  return {
    ...(notInCatalog.length > 0 ? { notInCatalog } : {}),
    eventTypes: [...newTypes],
    fields: newFieldRows.filter((f) => !newTypes.has(f.event_type_name)).map((f) => `${f.event_type_name}.${f.field}`),
  };
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Types and fields first seen since `since`, newest first. */
export async function schemaChangesSince(
  db: Kysely<Database>,
  since: Date,
  limit: number,
): Promise<{ total: { eventTypes: number; fields: number }; latest: SchemaChange[] }> {
  const types = db
    .selectFrom('event_types_seen')
    .select([
      sql.lit('event_type').as('kind'),
      'event_type_name',
      sql<string | null>`null`.as('field'),
      'first_seen_at',
      'scope',
      'first_event_id',
    ])
    .where('first_seen_at', '>=', since);
  // As recordSchema reports them: the fields a type arrived with are not changes of their own.
  const fields = db
    .selectFrom('event_fields_seen as f')
    .innerJoin('event_types_seen as t', 't.event_type_name', 'f.event_type_name')
    .select([sql.lit('field').as('kind'), 'f.event_type_name', 'f.field', 'f.first_seen_at', 'f.scope', 'f.first_event_id'])
    .where('f.first_seen_at', '>=', since)
    .whereRef('f.first_seen_at', '>', 't.first_seen_at');
  const rows = await types.unionAll(fields).orderBy('first_seen_at', 'desc').orderBy('event_type_name').execute();
  return {
    total: { eventTypes: rows.filter((r) => r.kind === 'event_type').length, fields: rows.filter((r) => r.kind === 'field').length },
    latest: rows.slice(0, limit).map((r) => ({
      kind: r.kind as SchemaChange['kind'],
      eventTypeName: r.event_type_name,
      field: r.field,
      firstSeenAt: new Date(r.first_seen_at),
      scope: r.scope,
      firstEventId: r.first_event_id,
    })),
  };
}
