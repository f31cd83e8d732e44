import { sql, type Kysely } from 'kysely';

// Frozen in time: never import application code here, never edit after release; add a migration.

export async function up(db: Kysely<any>): Promise<void> {
  // Where a rejected event was listed: its own second when its `created` parses, else the
  // narrowest window that listed it. `reconcile` counts it in any window holding that interval.
  await db.schema.alterTable('rejected_events').addColumn('listed_from', 'timestamptz').execute();
  await db.schema.alterTable('rejected_events').addColumn('listed_to', 'timestamptz').execute();
  await db.schema
    .createIndex('rejected_events_scope_listed_idx')
    .on('rejected_events')
    .columns(['scope', 'listed_from', 'listed_to'])
    .execute();

  await sql`alter table sync_runs drop constraint sync_runs_mode_check`.execute(db);
  await sql`alter table sync_runs add constraint sync_runs_mode_check check (mode in ('sync', 'backfill', 'poll', 'reconcile'))`.execute(
    db,
  );

  await db.schema
    .createTable('reconcile_runs')
    .addColumn('id', 'bigserial', (c) => c.primaryKey())
    .addColumn('scope', 'text', (c) => c.notNull())
    .addColumn('range_from', 'timestamptz', (c) => c.notNull())
    .addColumn('range_to', 'timestamptz', (c) => c.notNull())
    .addColumn('started_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('finished_at', 'timestamptz')
    .addColumn('result', 'text', (c) =>
      c
        .notNull()
        .defaultTo('running')
        .check(sql`result in ('running', 'consistent', 'recovered', 'differs', 'failed')`),
    )
    .addColumn('windows_checked', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('windows_differing', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('windows_reread', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('events_recovered', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('events_missing', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('events_extra', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('requests', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('error', 'text')
    .execute();
  await db.schema.createIndex('reconcile_runs_scope_started_idx').on('reconcile_runs').columns(['scope', 'started_at desc']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('reconcile_runs').execute();
  await sql`alter table sync_runs drop constraint sync_runs_mode_check`.execute(db);
  await sql`alter table sync_runs add constraint sync_runs_mode_check check (mode in ('sync', 'backfill', 'poll'))`.execute(db);
  await db.schema.dropIndex('rejected_events_scope_listed_idx').execute();
  await db.schema.alterTable('rejected_events').dropColumn('listed_to').execute();
  await db.schema.alterTable('rejected_events').dropColumn('listed_from').execute();
}
