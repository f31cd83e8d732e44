/** Migrations on PostgreSQL and PGlite, the schema setting, and the `migrate` command. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { WarehouseError } from '../../src/errors.js';
import { createWarehouse, type Warehouse } from '../../src/warehouse/database.js';
import { upsertEvents } from '../../src/warehouse/events.repository.js';
import { assertMigrated, knownMigrations, migrateDownTo, migrateToLatest } from '../../src/warehouse/migrator.js';
import { dataExplorer, toValid } from '../fixtures/events.js';
import { runCli } from '../helpers/cli.js';
import { createTestDatabase, openTestWarehouse, type TestDatabase, type TestWarehouse } from '../helpers/database.js';

const TABLES = [
  'events',
  'rejected_events',
  'sync_state',
  'sync_runs',
  'reconcile_runs',
  'event_other_scopes',
  'scopes',
  'alert_event_types',
  'security_event_categories',
  'event_types_seen',
  'event_fields_seen',
  'event_type_catalog',
  'processes',
];
const VIEWS = [
  'events_per_day',
  'automation_config_changes',
  'alerts',
  'actor_activity',
  'sync_lag',
  'alert_episodes',
  'security_audit',
  'data_access',
  'event_catalog',
  'event_scopes',
];

async function relationsIn(warehouse: Warehouse, schema: string): Promise<string[]> {
  const { rows } = await sql<{ name: string }>`
    select c.relname as name from pg_class c join pg_namespace n on n.oid = c.relnamespace
    where n.nspname = ${schema} and c.relkind in ('r', 'v') and c.relname not like 'kysely_%'
    order by 1`.execute(warehouse.db);
  return rows.map((row) => row.name);
}

describe.each(['postgres', 'pglite'] as const)('migrations on %s', (kind) => {
  let opened: TestWarehouse;
  beforeAll(async () => {
    opened = await openTestWarehouse(kind, 'mirror_a');
  });
  afterAll(async () => {
    await opened?.close();
  });

  it('go up into the configured schema, down to nothing, and up again', async () => {
    const { warehouse } = opened;
    await expect(assertMigrated(warehouse)).rejects.toThrow('warehouse mirror_a is not migrated: run npx events-mirror migrate');

    const first = await migrateToLatest(warehouse);
    expect(first.applied).toEqual(await knownMigrations());
    expect(await relationsIn(warehouse, 'mirror_a')).toEqual([...TABLES, ...VIEWS].sort());
    expect(await relationsIn(warehouse, 'public')).toEqual([]);
    await assertMigrated(warehouse);
    expect(await migrateToLatest(warehouse)).toEqual({ applied: [] });

    const down = await migrateDownTo(warehouse, 'zero');
    expect(down.reverted).toEqual([...first.applied].reverse());
    expect(await relationsIn(warehouse, 'mirror_a')).toEqual([]);
    await expect(assertMigrated(warehouse)).rejects.toThrow(WarehouseError);

    expect((await migrateToLatest(warehouse)).applied).toEqual(first.applied);
    await upsertEvents(warehouse.db, 'group:g1', [toValid(dataExplorer)]);
    const { rows } = await sql<{ n: number }>`select count(*) as n from mirror_a.events`.execute(warehouse.db);
    expect(rows[0]?.n).toBe(1);
  });

  it('refuses a warehouse migrated by a newer version', async () => {
    const { warehouse } = opened;
    await migrateToLatest(warehouse);
    await sql`insert into mirror_a.kysely_migration (name, timestamp) values ('2999_01_01_000000_add_future', '2999-01-01T00:00:00Z')`.execute(
      warehouse.db,
    );
    try {
      await expect(migrateToLatest(warehouse)).rejects.toThrow(
        'warehouse mirror_a is newer than this events-mirror: it has migrations this version does not know (2999_01_01_000000_add_future); upgrade events-mirror',
      );
    } finally {
      await sql`delete from mirror_a.kysely_migration where name = '2999_01_01_000000_add_future'`.execute(warehouse.db);
    }
  });
});

describe('createWarehouse', () => {
  it.each(['Events', 'events; drop table x', 'events-mirror', ''])('refuses the schema name %j before connecting', async (schema) => {
    await expect(createWarehouse({ url: 'postgres://root@127.0.0.1:1/none', schema, dataDir: 'unused' })).rejects.toThrow(
      /is not a plain identifier/,
    );
  });

  it('names the server, not the credentials, when PostgreSQL cannot be reached', async () => {
    const attempt = createWarehouse({ url: 'postgres://someone:s3cret@127.0.0.1:1/nowhere', schema: 'events_mirror', dataDir: 'unused' });
    await expect(attempt).rejects.toThrow(/cannot open the warehouse at postgres:\/\/127\.0\.0\.1:1\/nowhere: .*check DATABASE_URL/);
    await expect(attempt).rejects.not.toThrow(/s3cret/);
  });
});

describe('events-mirror migrate', () => {
  let database: TestDatabase;
  let dataDir: string;
  beforeAll(async () => {
    database = await createTestDatabase();
    dataDir = mkdtempSync(path.join(tmpdir(), 'em-warehouse-'));
  });
  afterAll(async () => {
    await database?.drop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it('applies the migrations to PostgreSQL and then reports it up to date', async () => {
    const env = { DATABASE_URL: database.url, WAREHOUSE_SCHEMA: 'reporting' };
    const first = await runCli(['migrate'], env);
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    const names = await knownMigrations();
    expect(first.stdout).toBe(
      `applied ${names.length} migrations to warehouse schema reporting:\n${names.map((n) => `  ${n}\n`).join('')}`,
    );
    const again = await runCli(['migrate'], env);
    expect(again).toMatchObject({ code: 0, stdout: `warehouse schema reporting is up to date (${names.length} migrations)\n` });
  });

  it('creates the embedded warehouse under the data directory when DATABASE_URL is unset', async () => {
    const result = await runCli(['migrate'], { EVENTS_MIRROR_DATA_DIR: dataDir });
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^applied \d+ migrations to embedded warehouse schema events_mirror:/);
    const warehouse = await createWarehouse({ schema: 'events_mirror', dataDir });
    try {
      expect(warehouse.kind).toBe('pglite');
      await assertMigrated(warehouse);
    } finally {
      await warehouse.close();
    }
  });

  it('exits 2 with one line for a schema that is not an identifier', async () => {
    const result = await runCli(['migrate'], { DATABASE_URL: database.url, WAREHOUSE_SCHEMA: 'bad-name' });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/WAREHOUSE_SCHEMA/);
  });
});
