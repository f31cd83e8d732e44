/** `events-mirror migrate`'s work, loaded when the command runs. */
import { createWarehouse } from '../warehouse/database.js';
import { knownMigrations, migrateToLatest } from '../warehouse/migrator.js';
import { EXIT_OK, createContext } from './context.js';

const MIGRATION_QUERY_TIMEOUT_MS = 60 * 60_000;

export async function runMigrate(): Promise<number> {
  // Its summary below names every migration applied: the per-migration log lines are for LOG_LEVEL=info.
  const { config, logger } = createContext({ logFd: 2, interactive: true });
  const warehouse = await createWarehouse({
    ...(config.database.url ? { url: config.database.url } : {}),
    schema: config.database.schema,
    dataDir: config.database.dataDir,
    poolSize: 1,
    // Run by hand, and a migration may build an index over every event: a long deadline.
    deadlines: {
      connectTimeoutMs: config.database.connectTimeoutMs,
      queryTimeoutMs: Math.max(config.database.queryTimeoutMs, MIGRATION_QUERY_TIMEOUT_MS),
    },
    logger,
  });
  try {
    const { applied } = await migrateToLatest(warehouse, logger);
    const where = `${warehouse.kind === 'pglite' ? 'embedded warehouse' : 'warehouse'} schema ${warehouse.schema}`;
    if (applied.length === 0) {
      process.stdout.write(`${where} is up to date (${(await knownMigrations()).length} migrations)\n`);
    } else {
      process.stdout.write(`applied ${applied.length} migration${applied.length === 1 ? '' : 's'} to ${where}:\n`);
      for (const name of applied) process.stdout.write(`  ${name}\n`);
    }
    return EXIT_OK;
  } finally {
    await warehouse.close();
  }
}
