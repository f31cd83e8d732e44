/**
 * An emulator over real HTTP, a fresh PostgreSQL database migrated for the test file, and the
 * configuration that points events-mirror at both.
 */
import { loadConfig, type Config, type ConfigInput } from '../../src/config.js';
import { startEmulator, type EmulatorOptions, type RunningEmulator } from '../../src/emulator/server.js';
import { silentLogger } from '../../src/logger.js';
import { openSyncRuntime, type SyncRuntime, type SyncRuntimeOptions } from '../../src/sync/runtime.js';
import { writeConfigFile } from './cli.js';
import { createMigratedTestDatabase, type TestDatabase } from './database.js';
import { emulatorEnv } from './emulator.js';

export interface SyncFixture {
  emulator: RunningEmulator;
  database: TestDatabase;
  /** Environment for CLI children and for loadConfig. */
  env: Record<string, string>;
  /** The environment with a config file holding `settings` (EVENTS_MIRROR_CONFIG), for CLI children. */
  envWith(settings: ConfigInput): Record<string, string>;
  config(overrides?: ConfigInput): Config;
  runtime(overrides?: ConfigInput, options?: SyncRuntimeOptions): Promise<SyncRuntime>;
  close(): Promise<void>;
}

export async function startSyncFixture(emulatorOptions: EmulatorOptions, extraEnv: Record<string, string> = {}): Promise<SyncFixture> {
  const emulator = await startEmulator({ port: 0, ...emulatorOptions });
  const database = await createMigratedTestDatabase();
  const env: Record<string, string> = {
    ...emulatorEnv(emulator),
    DATABASE_URL: database.url,
    ...extraEnv,
  };
  const runtimes: SyncRuntime[] = [];
  const config = (overrides?: ConfigInput) => loadConfig({ env: { NODE_ENV: 'test', ...env }, overrides: withoutSettle(overrides ?? {}) });
  return {
    emulator,
    database,
    env,
    config,
    envWith: (settings) => ({ ...env, EVENTS_MIRROR_CONFIG: writeConfigFile(withoutSettle(settings)) }),
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

/**
 * The emulator's history runs up to the moment it started; a settle time of zero lets a sync read
 * all of it (tests that exercise the settle time set their own).
 */
function withoutSettle(settings: ConfigInput): ConfigInput {
  return { ...settings, sync: { settleSeconds: 0, ...settings.sync } };
}

export function daysAgo(days: number, now = Date.now()): Date {
  return new Date(now - days * 86_400_000);
}
