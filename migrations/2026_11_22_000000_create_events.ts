import { sql, type Kysely } from 'kysely';

// Frozen in time: never import application code here, never edit after release; add a migration.
// `db` is scoped to the warehouse schema (withSchema), so bare names land there.

const TEXT_COLUMNS = ['alert_id', 'alert_config_id', 'api_key_id', 'public_key', 'user_id', 'username', 'remote_address'] as const;
const MORE_TEXT_COLUMNS = [
  'target_username',
  'target_public_key',
  'access_list_entry',
  'team_id',
  'cluster_id',
  'cluster_name',
  'host_id',
  'hostname',
] as const;
const LAST_TEXT_COLUMNS = [
  'replica_set_name',
  'shard_name',
  'database',
  'collection',
  'op_type',
  'invoice_id',
  'payment_id',
  'maintenance_window_id',
  'metric_name',
] as const;

export async function up(db: Kysely<any>): Promise<void> {
  let table = db.schema
    .createTable('events')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('scope', 'text', (c) => c.notNull())
    .addColumn('org_id', 'text')
    .addColumn('group_id', 'text')
    .addColumn('created', 'timestamptz', (c) => c.notNull())
    .addColumn('event_type_name', 'text', (c) => c.notNull());
  for (const column of TEXT_COLUMNS) table = table.addColumn(column, 'text');
  table = table.addColumn('is_global_admin', 'boolean');
  for (const column of MORE_TEXT_COLUMNS) table = table.addColumn(column, 'text');
  table = table.addColumn('port', 'integer');
  for (const column of LAST_TEXT_COLUMNS) table = table.addColumn(column, 'text');
  await table
    .addColumn('current_value_number', 'double precision')
    .addColumn('current_value_units', 'text')
    .addColumn('raw', 'jsonb')
    .addColumn('payload', 'jsonb', (c) => c.notNull())
    .addColumn('ingested_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();

  await db.schema.createIndex('events_scope_created_idx').on('events').columns(['scope', 'created desc']).execute();
  await db.schema.createIndex('events_type_created_idx').on('events').columns(['event_type_name', 'created desc']).execute();
  await db.schema.createIndex('events_group_created_idx').on('events').columns(['group_id', 'created desc']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('events').execute();
}
