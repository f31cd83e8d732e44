import { sql, type Kysely } from 'kysely';

// Frozen in time: never import application code here, never edit after release; add a migration.

export async function up(db: Kysely<any>): Promise<void> {
  // Runs cut off by a crash are marked, not left `running` for ever.
  await sql`alter table sync_runs drop constraint sync_runs_status_check`.execute(db);
  await sql`alter table sync_runs add constraint sync_runs_status_check check (status in ('running', 'succeeded', 'failed', 'skipped', 'abandoned'))`.execute(
    db,
  );
  // Retention deletes by age across scopes.
  await db.schema.createIndex('sync_runs_started_idx').on('sync_runs').column('started_at').execute();
  // The report views filtered by time: a day range on events_per_day (its day expression), a
  // created range on the others.
  await db.schema.createIndex('events_created_idx').on('events').column('created').execute();
  await sql`create index events_day_idx on events (((created at time zone 'UTC')::date))`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('events_day_idx').execute();
  await db.schema.dropIndex('events_created_idx').execute();
  await db.schema.dropIndex('sync_runs_started_idx').execute();
  await sql`delete from sync_runs where status = 'abandoned'`.execute(db);
  await sql`alter table sync_runs drop constraint sync_runs_status_check`.execute(db);
  await sql`alter table sync_runs add constraint sync_runs_status_check check (status in ('running', 'succeeded', 'failed', 'skipped'))`.execute(
    db,
  );
}
