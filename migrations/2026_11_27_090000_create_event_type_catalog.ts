import { sql, type Kysely } from 'kysely';

// Frozen in time: never import application code here, never edit after release; add a migration.

const CATALOG_BEFORE = sql`with typed as (
          select event_type_name, min(created) as first_seen, max(created) as last_seen,
                 min(ingested_at) as first_ingested_at, count(*)::bigint as events
          from events group by event_type_name
        ), fields as (
          select e.event_type_name, array_agg(distinct k order by k) as fields
          from events e cross join lateral jsonb_object_keys(e.payload) as k
          group by e.event_type_name
        )
        select t.event_type_name, t.first_seen, t.last_seen, t.first_ingested_at, t.events, f.fields
        from typed t join fields f using (event_type_name)`;

export async function up(db: Kysely<any>): Promise<void> {
  // Atlas v2's event type catalogue (GET /api/atlas/v2/eventTypes) as the mirror last read it:
  // a type the catalogue no longer lists keeps its row, with gone_since set.
  await db.schema
    .createTable('event_type_catalog')
    .addColumn('type', 'text', (c) => c.primaryKey())
    .addColumn('description', 'text')
    .addColumn('alertable', 'boolean')
    .addColumn('first_seen_in_catalog', 'timestamptz', (c) => c.notNull())
    .addColumn('last_seen_in_catalog', 'timestamptz', (c) => c.notNull())
    .addColumn('gone_since', 'timestamptz')
    .execute();
  // The view gains the catalogue's description and whether alerts can be set on the type (null
  // when no catalogue was read, or the catalogue does not list the type).
  await sql`create or replace view event_catalog as
    select c.*, k.description, k.alertable,
           (k.type is not null and k.gone_since is null) as in_catalog
    from (${CATALOG_BEFORE}) c left join event_type_catalog k on k.type = c.event_type_name`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop view event_catalog`.execute(db);
  await sql`create view event_catalog as ${CATALOG_BEFORE}`.execute(db);
  await db.schema.dropTable('event_type_catalog').execute();
}
