import { sql, type Kysely } from 'kysely';

// Frozen in time: never import application code here, never edit after release; add a migration.

export async function up(db: Kysely<any>): Promise<void> {
  // An organization's project listing: when it last succeeded, and how it fails since (a listing
  // that cannot be read or written is an error that status and the metrics show).
  await db.schema
    .alterTable('scopes')
    .addColumn('listed_at', 'timestamptz')
    .addColumn('listing_failures', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('listing_failed_at', 'timestamptz')
    .addColumn('listing_error', 'text')
    .execute();
  // A poll that lands nothing and fails nothing only counts here; it adds no sync_runs row.
  await db.schema
    .alterTable('sync_state')
    .addColumn('polls', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('last_polled_at', 'timestamptz')
    .addColumn('last_landed_at', 'timestamptz')
    .execute();
  await sql`update sync_state set last_polled_at = last_attempt_at`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('sync_state').dropColumn('polls').dropColumn('last_polled_at').dropColumn('last_landed_at').execute();
  await db.schema
    .alterTable('scopes')
    .dropColumn('listed_at')
    .dropColumn('listing_failures')
    .dropColumn('listing_failed_at')
    .dropColumn('listing_error')
    .execute();
}
