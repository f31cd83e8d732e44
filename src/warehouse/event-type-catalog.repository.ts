/**
 * Atlas v2's event type catalogue in the warehouse (`event_type_catalog`): each complete read
 * upserts every listed type and marks `gone_since` on the types it no longer lists, so a type
 * that leaves the catalogue, and a type the feed sends that the catalogue lacks, are reported
 * like other schema changes.
 */
import { sql, type Kysely } from 'kysely';
import type { Database } from './tables.js';

/** One entry of the catalogue as read. */
export interface CatalogType {
  readonly type: string;
  readonly description: string | null;
  readonly alertable: boolean | null;
}

export interface CatalogChanges {
  /** Types the catalogue listed for the first time (every type on the first read). */
  readonly added: string[];
  /** Types an earlier read listed and this one does not. */
  readonly gone: string[];
  /** Types that had left the catalogue and are listed again. */
  readonly returned: string[];
  /** Whether the warehouse held no catalogue before this read. */
  readonly first: boolean;
}

/** Records one complete read of the catalogue, in one transaction. */
export async function recordCatalog(db: Kysely<Database>, listed: readonly CatalogType[], now: Date): Promise<CatalogChanges> {
  const byType = new Map(listed.map((entry) => [entry.type, entry]));
  const types = [...byType.values()].sort((a, b) => (a.type < b.type ? -1 : a.type > b.type ? 1 : 0));
  return db.transaction().execute(async (trx) => {
    const before = await trx.selectFrom('event_type_catalog').select(['type', 'gone_since']).forUpdate().execute();
    const held = new Map(before.map((row) => [row.type, row.gone_since]));
    for (let at = 0; at < types.length; at += 1000) {
      await trx
        .insertInto('event_type_catalog')
        .values(
          types.slice(at, at + 1000).map((t) => ({
            type: t.type,
            description: t.description,
            alertable: t.alertable,
            first_seen_in_catalog: now,
            last_seen_in_catalog: now,
            gone_since: null,
          })),
        )
        .onConflict((oc) =>
          oc.column('type').doUpdateSet({
            description: (eb) => eb.ref('excluded.description'),
            alertable: (eb) => eb.ref('excluded.alertable'),
            last_seen_in_catalog: (eb) => eb.ref('excluded.last_seen_in_catalog'),
            gone_since: null,
          }),
        )
        .execute();
    }
    const gone = held.size === 0 ? [] : [...held].filter(([type, since]) => since === null && !byType.has(type)).map(([type]) => type);
    if (gone.length > 0) {
      await trx.updateTable('event_type_catalog').set({ gone_since: now }).where('type', 'in', gone).execute();
    }
    return {
      added: types.filter((t) => !held.has(t.type)).map((t) => t.type),
      gone: gone.sort(),
      returned: types.filter((t) => held.has(t.type) && held.get(t.type) !== null).map((t) => t.type),
      first: held.size === 0,
    };
  });
}

/** Of `types`, those the catalogue does not list now; none when no catalogue was ever read. */
export async function typesNotInCatalog(db: Kysely<Database>, types: readonly string[]): Promise<string[]> {
  if (types.length === 0) return [];
  if (!(await catalogRead(db))) return [];
  const listed = await db
    .selectFrom('event_type_catalog')
    .select('type')
    .where('type', 'in', [...types])
    .where('gone_since', 'is', null)
    .execute();
  const known = new Set(listed.map((row) => row.type));
  return types.filter((type) => !known.has(type));
}

/** Whether a catalogue was ever read into this warehouse. */
export async function catalogRead(db: Kysely<Database>): Promise<boolean> {
  return (await db.selectFrom('event_type_catalog').select(sql.lit(1).as('one')).limit(1).executeTakeFirst()) !== undefined;
}

export interface CatalogDifference {
  readonly kind: 'not_in_catalog' | 'left_catalog';
  readonly eventTypeName: string;
  /** When the feed first sent the type, or when a read first missed it. */
  readonly at: Date;
  /** The scope and event that brought a type the catalogue lacks; null for one that left. */
  readonly scope: string | null;
  readonly firstEventId: string | null;
}

/**
 * Where the feed and the catalogue disagree now: every type the mirror holds that the catalogue
 * does not list (whenever it was first sent), and the types that left the catalogue since `since`.
 * Nothing when no catalogue was ever read (v1 sources only).
 */
export async function catalogDifferences(db: Kysely<Database>, since: Date): Promise<CatalogDifference[]> {
  if (!(await catalogRead(db))) return [];
  const missing = await db
    .selectFrom('event_types_seen as s')
    .leftJoin('event_type_catalog as k', 'k.type', 's.event_type_name')
    .where((eb) => eb.or([eb('k.type', 'is', null), eb('k.gone_since', 'is not', null)]))
    .select(['s.event_type_name', 's.first_seen_at', 's.scope', 's.first_event_id'])
    .execute();
  const left = await db.selectFrom('event_type_catalog').where('gone_since', '>=', since).select(['type', 'gone_since']).execute();
  return [
    ...missing.map((m) => ({
      kind: 'not_in_catalog' as const,
      eventTypeName: m.event_type_name,
      at: new Date(m.first_seen_at),
      scope: m.scope,
      firstEventId: m.first_event_id,
    })),
    ...left.map((l) => ({
      kind: 'left_catalog' as const,
      eventTypeName: l.type,
      at: new Date(l.gone_since!),
      scope: null,
      firstEventId: null,
    })),
  ].sort((a, b) => b.at.getTime() - a.at.getTime() || (a.eventTypeName < b.eventTypeName ? -1 : 1));
}
