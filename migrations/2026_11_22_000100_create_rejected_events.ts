import { sql, type Kysely } from 'kysely';

// Frozen in time: never import application code here, never edit after release; add a migration.

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('rejected_events')
    .addColumn('id', 'bigserial', (c) => c.primaryKey())
    .addColumn('scope', 'text', (c) => c.notNull())
    .addColumn('reason', 'text', (c) => c.notNull())
    .addColumn('payload', 'jsonb', (c) => c.notNull())
    // md5 of payload::text (jsonb's canonical text): the same bad event seen again is the same row.
    .addColumn('payload_md5', 'text', (c) => c.notNull())
    .addColumn('first_seen_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('last_seen_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('seen_count', 'integer', (c) => c.notNull().defaultTo(1))
    .addUniqueConstraint('rejected_events_scope_payload_md5_key', ['scope', 'payload_md5'])
    .execute();
  await db.schema
    .createIndex('rejected_events_scope_last_seen_idx')
    .on('rejected_events')
    .columns(['scope', 'last_seen_at desc'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('rejected_events').execute();
}
