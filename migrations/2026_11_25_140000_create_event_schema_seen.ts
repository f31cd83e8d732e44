import { sql, type Kysely } from 'kysely';

// Frozen in time: never import application code here, never edit after release; add a migration.

export async function up(db: Kysely<any>): Promise<void> {
  // The event types and the (top-level) fields of each type the mirror has seen, with the first
  // event that brought each one: a row inserted by a sync is a schema change to report.
  await db.schema
    .createTable('event_types_seen')
    .addColumn('event_type_name', 'text', (c) => c.primaryKey())
    .addColumn('first_seen_at', 'timestamptz', (c) => c.notNull())
    .addColumn('first_event_id', 'text', (c) => c.notNull())
    .addColumn('scope', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('event_fields_seen')
    .addColumn('event_type_name', 'text', (c) => c.notNull())
    .addColumn('field', 'text', (c) => c.notNull())
    .addColumn('first_seen_at', 'timestamptz', (c) => c.notNull())
    .addColumn('first_event_id', 'text', (c) => c.notNull())
    .addColumn('scope', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('event_fields_seen_pkey', ['event_type_name', 'field'])
    .execute();
  // What a warehouse upgraded to this migration already holds is not news.
  await sql`insert into event_types_seen (event_type_name, first_seen_at, first_event_id, scope)
    select event_type_name, min(ingested_at), (array_agg(id order by ingested_at, id))[1], (array_agg(scope order by ingested_at, id))[1]
    from events group by event_type_name`.execute(db);
  await sql`insert into event_fields_seen (event_type_name, field, first_seen_at, first_event_id, scope)
    select e.event_type_name, k, min(e.ingested_at), (array_agg(e.id order by e.ingested_at, e.id))[1], (array_agg(e.scope order by e.ingested_at, e.id))[1]
    from events e cross join lateral jsonb_object_keys(e.payload) as k group by e.event_type_name, k`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('event_fields_seen').execute();
  await db.schema.dropTable('event_types_seen').execute();
}
