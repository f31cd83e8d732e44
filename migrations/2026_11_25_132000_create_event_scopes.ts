import { sql, type Kysely } from 'kysely';

// Frozen in time: never import application code here, never edit after release; add a migration.

export async function up(db: Kysely<any>): Promise<void> {
  // Every feed that lists an event: an organization's feed and a project's may both list one id.
  // `events.scope` stays the feed that listed it first.
  await db.schema
    .createTable('event_scopes')
    .addColumn('scope', 'text', (c) => c.notNull())
    .addColumn('event_id', 'text', (c) => c.notNull())
    .addColumn('created', 'timestamptz', (c) => c.notNull())
    .addColumn('first_seen_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addPrimaryKeyConstraint('event_scopes_pkey', ['scope', 'event_id'])
    .execute();
  await db.schema.createIndex('event_scopes_scope_created_idx').on('event_scopes').columns(['scope', 'created']).execute();
  await sql`insert into event_scopes (scope, event_id, created, first_seen_at) select scope, id, created, ingested_at from events`.execute(
    db,
  );
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('event_scopes').execute();
}
