import { type Kysely } from 'kysely';

// Frozen in time: never import application code here, never edit after release; add a migration.

export async function up(db: Kysely<any>): Promise<void> {
  // One row per scheduler or worker process: a heartbeat every few seconds while it runs, and the
  // time it stopped cleanly. status reads it to say which processes feed the warehouse.
  await db.schema
    .createTable('processes')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('host', 'text', (c) => c.notNull())
    .addColumn('pid', 'integer', (c) => c.notNull())
    .addColumn('started_at', 'timestamptz', (c) => c.notNull())
    .addColumn('last_seen_at', 'timestamptz', (c) => c.notNull())
    .addColumn('stopped_at', 'timestamptz')
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('processes').execute();
}
