import { type Kysely } from 'kysely';

// Frozen in time: never import application code here, never edit after release; add a migration.

export async function up(db: Kysely<any>): Promise<void> {
  // The code of the scope's last error (API_GROUP_NOT_FOUND, HTTP_503, …): status counts failing
  // scopes by it. Null when the scope is healthy, or for an error recorded before this column.
  await db.schema.alterTable('sync_state').addColumn('last_error_code', 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('sync_state').dropColumn('last_error_code').execute();
}
