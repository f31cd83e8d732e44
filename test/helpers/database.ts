/**
 * Test warehouses: a fresh PostgreSQL database per test file (dropped after), or an embedded PGlite,
 * either one migrated on request. A migrated one is a copy of the run's template, made and migrated
 * once by global-setup.ts: for PostgreSQL CREATE DATABASE … TEMPLATE, for PGlite a copy of a migrated
 * data directory. A copy takes a fraction of the time of running every migration again; for PGlite
 * it also skips initdb (about 0.6 CPU-seconds to copy and open instead of 3 to create and migrate).
 */
import { randomBytes } from 'node:crypto';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { sql, type Kysely } from 'kysely';
import pg from 'pg';
import { IN_MEMORY, createWarehouse, type Database, type Warehouse } from '../../src/warehouse/database.js';
import { migrateToLatest } from '../../src/warehouse/migrator.js';

import { ADMIN_DATABASE_URL } from './services.js';

export const ADMIN_URL = ADMIN_DATABASE_URL;

/** The environment variable naming the run's migrated template database (set by global-setup.ts). */
export const TEMPLATE_DATABASE_ENV = 'TEST_TEMPLATE_DATABASE';
/** The schema the template is migrated in: the default of every helper here. */
export const TEMPLATE_SCHEMA = 'events_mirror';

export interface TestDatabase {
  readonly name: string;
  readonly url: string;
  drop(): Promise<void>;
}

async function admin<T>(adminUrl: string, run: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    return await run(client);
  } finally {
    await client.end();
  }
}

/** The environment variable naming the run's migrated embedded warehouse folder (set by global-setup.ts). */
export const PGLITE_TEMPLATE_ENV = 'TEST_PGLITE_TEMPLATE_DIR';

/** For global-setup.ts: an embedded warehouse in `<dataDir>/pglite`, migrated in `events_mirror`, closed. */
export async function createPgliteTemplate(dataDir: string): Promise<void> {
  const warehouse = await createWarehouse({ schema: TEMPLATE_SCHEMA, dataDir });
  try {
    await migrateToLatest(warehouse);
  } finally {
    await warehouse.close();
  }
}

export interface EmbeddedDataDir {
  /** The folder to give as `database.dataDir` (EVENTS_MIRROR_DATA_DIR). */
  readonly dataDir: string;
  remove(): void;
}

/**
 * A data directory holding an embedded warehouse migrated in `events_mirror`, copied from the run's
 * template; undefined in a file run without the suite's global setup (use an in-memory one then).
 */
export function copyMigratedDataDir(): EmbeddedDataDir | undefined {
  const template = process.env[PGLITE_TEMPLATE_ENV];
  if (!template) return undefined;
  const dataDir = mkdtempSync(path.join(tmpdir(), 'em-pglite-'));
  cpSync(path.join(template, 'pglite'), path.join(dataDir, 'pglite'), { recursive: true });
  return { dataDir, remove: () => rmSync(dataDir, { recursive: true, force: true }) };
}

/** Creates `em_t_<random>`; `drop()` removes it, closing any connection left open. */
export async function createTestDatabase(): Promise<TestDatabase> {
  return newDatabase(undefined);
}

/**
 * A database migrated to the latest version in schema `events_mirror`: a copy of the run's template,
 * or (a file run without the suite's global setup) a new database migrated here.
 */
export async function createMigratedTestDatabase(): Promise<TestDatabase> {
  const template = process.env[TEMPLATE_DATABASE_ENV];
  return template ? newDatabase(template) : createTemplateDatabase(ADMIN_URL);
}

/**
 * As for `migrate` run by hand: no query deadline. And a minute to connect: at the start of a run on
 * a loaded CI machine (a CLI build, PGlite's initdb and a new server at once) connecting has taken
 * longer than the 10 s a worker waits.
 */
const MIGRATION_DEADLINES = { connectTimeoutMs: 60_000, queryTimeoutMs: 0 };

/** Migrates the database at `url` to the latest version in schema `events_mirror`. */
export async function migrateDatabase(url: string): Promise<void> {
  const warehouse = await createWarehouse({ url, schema: TEMPLATE_SCHEMA, dataDir: 'unused', deadlines: MIGRATION_DEADLINES });
  try {
    await migrateToLatest(warehouse);
  } finally {
    await warehouse.close();
  }
}

/**
 * For global-setup.ts: the run's template, a new database migrated to the latest version, on the
 * server at `adminUrl` (given, as the setup decides the server after this module is loaded).
 */
export async function createTemplateDatabase(adminUrl: string): Promise<TestDatabase> {
  const database = await newDatabase(undefined, adminUrl);
  try {
    await migrateDatabase(database.url);
    return database;
  } catch (error) {
    await database.drop();
    throw error;
  }
}

async function newDatabase(template: string | undefined, adminUrl = ADMIN_URL): Promise<TestDatabase> {
  const name = `em_t_${randomBytes(6).toString('hex')}`;
  await admin(adminUrl, (client) => client.query(template ? `create database ${name} template ${template}` : `create database ${name}`));
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  let dropped = false;
  return {
    name,
    url: url.toString(),
    async drop() {
      if (dropped) return;
      dropped = true;
      await admin(adminUrl, (client) => client.query(`drop database if exists ${name} with (force)`));
    },
  };
}

export type WarehouseKind = Warehouse['kind'];

export interface TestWarehouse {
  readonly warehouse: Warehouse;
  /** Closes the warehouse and drops its database. */
  close(): Promise<void>;
}

/** A warehouse of the given kind in its own database (or memory), not yet migrated. */
export async function openTestWarehouse(kind: WarehouseKind, schema = 'events_mirror'): Promise<TestWarehouse> {
  if (kind === 'pglite') {
    const warehouse = await createWarehouse({ schema, dataDir: IN_MEMORY });
    return { warehouse, close: () => warehouse.close() };
  }
  return openPostgresWarehouse(await createTestDatabase(), schema);
}

async function openPostgresWarehouse(database: TestDatabase, schema: string): Promise<TestWarehouse> {
  try {
    const warehouse = await createWarehouse({ url: database.url, schema, dataDir: 'unused', poolSize: 4 });
    return {
      warehouse,
      async close() {
        await warehouse.close();
        await database.drop();
      },
    };
  } catch (error) {
    await database.drop();
    throw error;
  }
}

/** The same, migrated to the latest version. */
export async function openMigratedWarehouse(kind: WarehouseKind, schema = 'events_mirror'): Promise<TestWarehouse> {
  if (kind === 'postgres' && schema === TEMPLATE_SCHEMA) return openPostgresWarehouse(await createMigratedTestDatabase(), schema);
  const copy = kind === 'pglite' && schema === TEMPLATE_SCHEMA ? copyMigratedDataDir() : undefined;
  if (copy) {
    const warehouse = await createWarehouse({ schema, dataDir: copy.dataDir }).catch((error: unknown) => {
      copy.remove();
      throw error;
    });
    return {
      warehouse,
      async close() {
        await warehouse.close();
        copy.remove();
      },
    };
  }
  const opened = await openTestWarehouse(kind, schema);
  try {
    await migrateToLatest(opened.warehouse);
    return opened;
  } catch (error) {
    await opened.close();
    throw error;
  }
}

/** How many scopes have a checkpoint: the benchmarks wait for every scope's first one. */
export async function checkpointedScopes(db: Kysely<Database>): Promise<number> {
  const row = await db
    .selectFrom('sync_state')
    .select(sql<number>`count(*)::int`.as('n'))
    .where('watermark', 'is not', null)
    .executeTakeFirstOrThrow();
  return row.n;
}

/** The ids of the events mirrored into the database at `url` (schema `events_mirror`), in order. */
export async function mirroredEventIds(url: string): Promise<string[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ id: string }>('select id from events_mirror.events order by id');
    return rows.map((row) => row.id);
  } finally {
    await client.end();
  }
}
