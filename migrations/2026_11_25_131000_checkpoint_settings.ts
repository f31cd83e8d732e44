import { sql, type Kysely } from 'kysely';

// Frozen in time: never import application code here, never edit after release; add a migration.

export async function up(db: Kysely<any>): Promise<void> {
  // The scope settings (event types, raw, start date) the checkpoint was made with.
  await db.schema.alterTable('sync_state').addColumn('settings', 'jsonb').execute();
  await sql`alter table sync_runs drop constraint sync_runs_mode_check`.execute(db);
  await sql`alter table sync_runs add constraint sync_runs_mode_check check (mode in ('sync', 'backfill', 'poll', 'reconcile', 'checkpoint'))`.execute(
    db,
  );
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`alter table sync_runs drop constraint sync_runs_mode_check`.execute(db);
  await sql`alter table sync_runs add constraint sync_runs_mode_check check (mode in ('sync', 'backfill', 'poll', 'reconcile'))`.execute(
    db,
  );
  await db.schema.alterTable('sync_state').dropColumn('settings').execute();
}
