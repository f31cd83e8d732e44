import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT, runCli } from '../helpers/cli.js';
import { createMigratedTestDatabase, createTestDatabase, mirroredEventIds as eventIds, type TestDatabase } from '../helpers/database.js';
import { emulatorEnv, startTestEmulator, type RunningEmulator } from '../helpers/emulator.js';
import { devOnlyPackages, NOT_SHIPPED } from '../helpers/package-contents.js';
import { obliterateSyncQueue, waitFor } from '../helpers/queue-processes.js';
import { REDIS_URL } from '../helpers/services.js';
import { podman, removeContainer } from './podman.js';

const IMAGE = 'localhost/events-mirror:test';
const manifest = JSON.parse(readFileSync(path.join(PROJECT_ROOT, 'package.json'), 'utf8')) as { version: string };
/** A short drain, so that a worker ignoring SIGTERM is seen in seconds: its documented stop is this + 9 s. */
const SHUTDOWN_TIMEOUT_MS = 5_000;
const DRAIN_SECONDS = SHUTDOWN_TIMEOUT_MS / 1000 + 9;

/** `podman run --rm --network host IMAGE …args`, with the given environment. */
function runImage(args: readonly string[], env: Record<string, string> = {}, options: readonly string[] = []) {
  const envFlags = Object.entries(env).flatMap(([name, value]) => ['--env', `${name}=${value}`]);
  return podman(['run', '--rm', '--network', 'host', ...envFlags, ...options, IMAGE, ...args]);
}

/**
 * The Dockerfile, built and run as a platform team runs it: the CLI as the entrypoint, as the
 * image's own user, against PostgreSQL and Redis on the host and an emulator of the Events API.
 */
describe('the container image', () => {
  let emulator: RunningEmulator;
  const databases: TestDatabase[] = [];
  const prefix = `em-test-image-${process.pid}-${Date.now()}`;
  const worker = `em-test-image-worker-${process.pid}`;

  beforeAll(async () => {
    const started = performance.now();
    const built = await podman(['build', '--network', 'host', '--tag', IMAGE, '.'], 900_000);
    expect(built.code, built.stderr.slice(-3000) + built.stdout.slice(-3000)).toBe(0);
    process.stdout.write(`[image] built ${IMAGE} in ${((performance.now() - started) / 1000).toFixed(1)} s\n`);
    emulator = await startTestEmulator();
  }, 900_000);

  afterAll(async () => {
    removeContainer(worker);
    await emulator?.close();
    await Promise.all(databases.map((database) => database.drop()));
    await obliterateSyncQueue(REDIS_URL, prefix);
  }, 120_000);

  it('runs as a user that is not root, and says its version, license and source in OCI labels', async () => {
    const uid = await runImage(['-u'], {}, ['--entrypoint', 'id']);
    expect(uid.code, uid.stderr).toBe(0);
    expect(uid.stdout.trim()).not.toBe('0');
    const labels = await podman(['image', 'inspect', IMAGE, '--format', '{{json .Config.Labels}}']);
    const parsed = JSON.parse(labels.stdout) as Record<string, string>;
    expect(parsed['org.opencontainers.image.version']).toBe(manifest.version);
    expect(parsed['org.opencontainers.image.licenses']).toBe('MIT');
    expect(parsed['org.opencontainers.image.source']).toMatch(/^https:\/\//);
  });

  it('holds no devDependency and no test file', async () => {
    const listing = await runImage(
      [
        '-e',
        `const fs = require('node:fs'); const root = '/opt/events-mirror';
         const files = fs.readdirSync(root, { recursive: true }).filter((f) => !f.startsWith('node_modules') && fs.statSync(root + '/' + f).isFile());
         const modules = []; const walk = (dir) => { if (!fs.existsSync(dir)) return; for (const e of fs.readdirSync(dir)) {
           if (e.startsWith('.')) continue; const names = e.startsWith('@') ? fs.readdirSync(dir + '/' + e).map((n) => e + '/' + n) : [e];
           for (const n of names) { modules.push(n); walk(dir + '/' + n + '/node_modules'); } } };
         walk(root + '/node_modules'); console.log(JSON.stringify({ files, modules }));`,
      ],
      {},
      ['--entrypoint', 'node'],
    );
    expect(listing.code, listing.stderr).toBe(0);
    const { files, modules } = JSON.parse(listing.stdout) as { files: string[]; modules: string[] };
    expect(files).toContain('dist/src/cli.js');
    expect(files.filter((file) => NOT_SHIPPED.test(file))).toEqual([]);
    expect(modules).toContain('pg');
    const devOnly = devOnlyPackages(PROJECT_ROOT);
    expect(modules.filter((name) => devOnly.has(name))).toEqual([]);
  });

  it('--version and demo', async () => {
    const version = await runImage(['--version']);
    expect(version.code, version.stderr).toBe(0);
    expect(version.stdout.trim()).toBe(manifest.version);
    const demo = await runImage(['demo']);
    expect(demo.code, demo.stderr.slice(-2000)).toBe(0);
    expect(demo.stdout).toMatch(/[\d,]+ events mirrored from 4 scopes/);
  });

  it('migrate and sync --once into PostgreSQL mirror every event the checkout mirrors', async () => {
    const fromImage = await createTestDatabase();
    const fromCheckout = await createMigratedTestDatabase();
    databases.push(fromImage, fromCheckout);
    const env = { ...emulatorEnv(emulator), DATABASE_URL: fromImage.url };
    const migrated = await runImage(['migrate'], env);
    expect(migrated.code, migrated.stderr).toBe(0);
    const synced = await runImage(['sync', '--once'], env);
    expect(synced.code, synced.stderr.slice(-2000)).toBe(0);
    const checkout = await runCli(['sync', '--once'], { ...emulatorEnv(emulator), DATABASE_URL: fromCheckout.url });
    expect(checkout.code, checkout.stderr.slice(-2000)).toBe(0);
    const [mirrored, expected] = await Promise.all([eventIds(fromImage.url), eventIds(fromCheckout.url)]);
    expect(expected.length).toBeGreaterThan(1000);
    expect(mirrored).toEqual(expected);
    // The worker below runs against this warehouse.
    process.env.IMAGE_TEST_DATABASE_URL = fromImage.url;
  });

  it(`a worker stopped with podman stop exits by itself within its drain time (${DRAIN_SECONDS} s)`, async () => {
    const url = process.env.IMAGE_TEST_DATABASE_URL;
    expect(url, 'the sync test ran first and left its warehouse').toBeDefined();
    const env = {
      ...emulatorEnv(emulator),
      DATABASE_URL: url!,
      REDIS_URL,
      REDIS_PREFIX: prefix,
      METRICS_PORT: '0',
      WORKER_SHUTDOWN_TIMEOUT_MS: String(SHUTDOWN_TIMEOUT_MS),
    };
    const envFlags = Object.entries(env).flatMap(([name, value]) => ['--env', `${name}=${value}`]);
    const started = await podman(['run', '--detach', '--name', worker, '--network', 'host', ...envFlags, IMAGE, 'worker']);
    expect(started.code, started.stderr).toBe(0);
    await waitFor('the worker to start', async () => /worker running/.test((await podman(['logs', worker])).stdout), 90_000, 500);
    // podman sends SIGTERM, and SIGKILL once the drain time is over: exit 137 means the process
    // never stopped by itself (a shell in between that does not pass the signal on, or no handler).
    const stopped = await podman(['stop', '--time', String(DRAIN_SECONDS), worker]);
    expect(stopped.code, stopped.stderr).toBe(0);
    const state = await podman(['inspect', worker, '--format', '{{.State.ExitCode}}']);
    const logs = await podman(['logs', worker]);
    expect(['0', '143'], `exit ${state.stdout.trim()}\n${logs.stdout.slice(-2000)}${logs.stderr.slice(-2000)}`).toContain(
      state.stdout.trim(),
    );
    expect(logs.stdout).toContain('SIGTERM');
  });
});
