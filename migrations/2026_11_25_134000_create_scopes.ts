import { sql, type Kysely } from 'kysely';

// Frozen in time: never import application code here, never edit after release; add a migration.

export async function up(db: Kysely<any>): Promise<void> {
  // Every scope the mirror knows: configured, or discovered as a project of a configured
  // organization. A project gone from its organization's listing keeps its row (and its events)
  // with removed_at set; listed again, it is back.
  await db.schema
    .createTable('scopes')
    .addColumn('scope', 'text', (c) => c.primaryKey())
    .addColumn('kind', 'text', (c) => c.notNull().check(sql`kind in ('org', 'group')`))
    .addColumn('scope_id', 'text', (c) => c.notNull())
    .addColumn('name', 'text')
    .addColumn('org_id', 'text')
    .addColumn('origin', 'text', (c) => c.notNull().check(sql`origin in ('configured', 'discovered')`))
    .addColumn('discovered_by', 'text')
    .addColumn('first_seen_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('last_seen_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('removed_at', 'timestamptz')
    .execute();
  await db.schema.createIndex('scopes_discovered_by_idx').on('scopes').column('discovered_by').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('scopes').execute();
}
