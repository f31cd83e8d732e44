import { sql, type Kysely } from 'kysely';

// Frozen in time: never import application code here, never edit after release; add a migration.

export async function up(db: Kysely<any>): Promise<void> {
  // Events arrive by two paths: read from the API (`pull`) or pushed by the service's event export
  // (`push`, mapped to the API's representation). One row per event whichever path brought it; a
  // pushed row is provisional until the pull path reads the same event and replaces it. The record
  // as the export sent it is kept in `pushed` (also on a pulled row the export delivered too).
  await db.schema
    .alterTable('events')
    .addColumn('source', 'text', (c) =>
      c
        .notNull()
        .defaultTo('pull')
        .check(sql`source in ('pull', 'push')`),
    )
    .addColumn('provisional', 'boolean', (c) => c.generatedAlwaysAs(sql`source = 'push'`).stored())
    .addColumn('pushed', 'jsonb')
    .addColumn('pushed_at', 'timestamptz')
    .execute();
  // Provisional rows are few (the pull confirms them within its period): a partial index finds them.
  await db.schema
    .createIndex('events_provisional_created_idx')
    .on('events')
    .columns(['scope', 'created'])
    .where(sql.ref('source'), '=', 'push')
    .execute();
  await db.schema
    .alterTable('rejected_events')
    .addColumn('source', 'text', (c) =>
      c
        .notNull()
        .defaultTo('pull')
        .check(sql`source in ('pull', 'push')`),
    )
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('rejected_events').dropColumn('source').execute();
  await db.schema.dropIndex('events_provisional_created_idx').execute();
  await db.schema
    .alterTable('events')
    .dropColumn('pushed_at')
    .dropColumn('pushed')
    .dropColumn('provisional')
    .dropColumn('source')
    .execute();
}
