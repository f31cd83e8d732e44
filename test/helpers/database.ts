/**
 * Test warehouses: a fresh PostgreSQL database per test file (dropped after), or an in-memory
 * PGlite, either one migrated on request.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { IN_MEMORY, createWarehouse, type Warehouse } from '../../src/warehouse/database.js';
import { migrateToLatest } from '../../src/warehouse/migrator.js';

import { ADMIN_DATABASE_URL } from './services.js';

export const ADMIN_URL = ADMIN_DATABASE_URL;

export interface TestDatabase {
  readonly name: string;
  readonly url: string;
  drop(): Promise<void>;
}

async function admin<T>(run: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: ADMIN_URL });
  await client.connect();
  try {
    return await run(client);
  } finally {
    await client.end();
  }
}

/** Creates `em_t_<random>`; `drop()` removes it, closing any connection left open. */
export async function createTestDatabase(): Promise<TestDatabase> {
  const name = `em_t_${randomBytes(6).toString('hex')}`;
  await admin((client) => client.query(`create database ${name}`));
  const url = new URL(ADMIN_URL);
  url.pathname = `/${name}`;
  let dropped = false;
  return {
    name,
    url: url.toString(),
    async drop() {
      if (dropped) return;
      dropped = true;
      await admin((client) => client.query(`drop database if exists ${name} with (force)`));
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
  const database = await createTestDatabase();
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
  const opened = await openTestWarehouse(kind, schema);
  try {
    await migrateToLatest(opened.warehouse);
    return opened;
  } catch (error) {
    await opened.close();
    throw error;
  }
}
