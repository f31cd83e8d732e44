import { sql, type Kysely } from 'kysely';

// Frozen in time: never import application code here, never edit after release; add a migration.

export async function up(db: Kysely<any>): Promise<void> {
  let table = db.schema
    .createTable('sync_runs')
    .addColumn('id', 'bigserial', (c) => c.primaryKey())
    .addColumn('scope', 'text', (c) => c.notNull())
    .addColumn('mode', 'text', (c) => c.notNull().check(sql`mode in ('sync', 'backfill', 'poll')`))
    .addColumn('window_start', 'timestamptz', (c) => c.notNull())
    .addColumn('window_end', 'timestamptz', (c) => c.notNull())
    .addColumn('job_id', 'text')
    .addColumn('started_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('finished_at', 'timestamptz')
    .addColumn('status', 'text', (c) =>
      c
        .notNull()
        .defaultTo('running')
        .check(sql`status in ('running', 'succeeded', 'failed', 'skipped')`),
    );
  for (const name of ['pages', 'requests', 'events_seen', 'events_inserted', 'events_changed', 'events_rejected']) {
    table = table.addColumn(name, 'integer', (c) => c.notNull().defaultTo(0));
  }
  await table.addColumn('duration_ms', 'bigint').addColumn('error', 'text').execute();
  await db.schema.createIndex('sync_runs_scope_started_idx').on('sync_runs').columns(['scope', 'started_at desc']).execute();
  await db.schema
    .createIndex('sync_runs_scope_mode_window_idx')
    .on('sync_runs')
    .columns(['scope', 'mode', 'window_start'])
    .where(sql.ref('status'), '=', 'succeeded')
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('sync_runs').execute();
}
