/**
 * An emulator over real HTTP, a fresh PostgreSQL database migrated for the test file, and the
 * configuration that points events-mirror at both.
 */
import { loadConfig, type Config, type ConfigInput } from '../../src/config.js';
import { startEmulator, type EmulatorOptions, type RunningEmulator } from '../../src/emulator/server.js';
import { silentLogger } from '../../src/logger.js';
import { openSyncRuntime, type SyncRuntime, type SyncRuntimeOptions } from '../../src/sync/runtime.js';
import { createWarehouse } from '../../src/warehouse/database.js';
import { migrateToLatest } from '../../src/warehouse/migrator.js';
import { createTestDatabase, type TestDatabase } from './database.js';

export interface SyncFixture {
  emulator: RunningEmulator;
  database: TestDatabase;
  /** Environment for CLI children and for loadConfig. */
  env: Record<string, string>;
  config(overrides?: ConfigInput): Config;
  runtime(overrides?: ConfigInput, options?: SyncRuntimeOptions): Promise<SyncRuntime>;
  close(): Promise<void>;
}

export async function startSyncFixture(emulatorOptions: EmulatorOptions, extraEnv: Record<string, string> = {}): Promise<SyncFixture> {
  const emulator = await startEmulator({ port: 0, ...emulatorOptions });
  const database = await createTestDatabase();
  const warehouse = await createWarehouse({ url: database.url, schema: 'events_mirror', dataDir: 'unused' });
  await migrateToLatest(warehouse);
  await warehouse.close();
  const key = emulator.keys[0]!;
  const env: Record<string, string> = {
    EVENTS_API_BASE_URL: emulator.baseUrl,
    EVENTS_API_PUBLIC_KEY: key.publicKey,
    EVENTS_API_PRIVATE_KEY: key.privateKey,
    EVENTS_SCOPES: emulator.dataset.scopes().join(','),
    DATABASE_URL: database.url,
    ...extraEnv,
  };
  const runtimes: SyncRuntime[] = [];
  const config = (overrides?: ConfigInput) => loadConfig({ env: { NODE_ENV: 'test', ...env }, ...(overrides ? { overrides } : {}) });
  return {
    emulator,
    database,
    env,
    config,
    async runtime(overrides, options) {
      const runtime = await openSyncRuntime(config(overrides), silentLogger(), options);
      runtimes.push(runtime);
      return runtime;
    },
    async close() {
      await Promise.all(runtimes.map((r) => r.close()));
      await emulator.close();
      await database.drop();
    },
  };
}

export function daysAgo(days: number, now = Date.now()): Date {
  return new Date(now - days * 86_400_000);
}
