import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT, runCli, waitForExit, type CliResult } from '../helpers/cli.js';
import { createMigratedTestDatabase, createTestDatabase, mirroredEventIds as eventIds, type TestDatabase } from '../helpers/database.js';
import { devOnlyPackages, installedPackages, NOT_SHIPPED } from '../helpers/package-contents.js';
import { obliterateSyncQueue, waitFor } from '../helpers/queue-processes.js';
import { REDIS_URL } from '../helpers/services.js';

const manifest = JSON.parse(readFileSync(path.join(PROJECT_ROOT, 'package.json'), 'utf8')) as { name: string; version: string };

/**
 * The package as a user gets it: `npm pack` (whose `prepare` builds dist/ from the current source),
 * `npm install -g` of the tarball into an empty prefix, and every command run from an empty folder
 * with an empty HOME, through the installed `events-mirror` on PATH. Nothing may come from the
 * checkout: migrations, configuration defaults and the WebAssembly modules are the installed ones.
 */
describe('the packed package, installed with npm install -g', () => {
  const root = mkdtempSync(path.join(tmpdir(), 'em-installed-'));
  const prefix = path.join(root, 'prefix');
  const home = path.join(root, 'home');
  const work = path.join(root, 'work');
  const installed = path.join(prefix, 'lib', 'node_modules', manifest.name);
  let tarball = '';
  let tarballFiles: string[] = [];
  const databases: TestDatabase[] = [];
  const redisPrefix = `em-test-installed-${process.pid}-${Date.now()}`;

  /** The environment of a command a user runs: the installed bin first on PATH, HOME empty, no inherited settings. */
  const userEnv = (extra: Record<string, string> = {}): NodeJS.ProcessEnv => ({
    PATH: `${path.join(prefix, 'bin')}:${process.env.PATH}`,
    HOME: home,
    REDIS_URL,
    ...extra,
  });
  const runInstalled = (args: string[], extra: Record<string, string> = {}): Promise<CliResult> => {
    const child = spawn('events-mirror', args, { cwd: work, env: userEnv(extra) });
    return waitForExit(child, 300_000);
  };

  beforeAll(() => {
    for (const dir of [prefix, home, work, path.join(root, 'pack')]) mkdirSync(dir);
    const npmCache = execFileSync('npm', ['config', 'get', 'cache'], { encoding: 'utf8' }).trim();
    // The machine's certificate authority for the registry lives in the real user's npm config,
    // which the empty HOME hides: a package missing from the cache failed with SELF_SIGNED_CERT_IN_CHAIN.
    const cafile = execFileSync('npm', ['config', 'get', 'cafile'], { encoding: 'utf8' }).trim();
    const machineCa = cafile && cafile !== 'null' && cafile !== 'undefined' ? { npm_config_cafile: cafile } : {};
    execFileSync('npm', ['pack', '--silent', '--pack-destination', path.join(root, 'pack')], { cwd: PROJECT_ROOT, stdio: 'pipe' });
    tarball = path.join(root, 'pack', readdirSync(path.join(root, 'pack'))[0]!);
    tarballFiles = execFileSync('tar', ['-tzf', tarball], { encoding: 'utf8' }).trim().split('\n');
    // HOME is empty here too; npm's download cache is the machine's, so packages come from it when it has them.
    execFileSync('npm', ['install', '-g', '--prefix', prefix, '--no-audit', '--no-fund', '--prefer-offline', tarball], {
      cwd: work,
      env: { ...userEnv(), npm_config_cache: npmCache, ...machineCa },
      stdio: 'pipe',
    });
  }, 300_000);

  afterAll(async () => {
    await Promise.all(databases.map((database) => database.drop()));
    await obliterateSyncQueue(REDIS_URL, redisPrefix);
    await rm(root, { recursive: true, force: true });
  }, 120_000);

  it('the tarball holds the built code, migrations, defaults, WebAssembly modules and docs, and no test file', () => {
    const files = tarballFiles.map((file) => file.replace(/^package\//, ''));
    expect(files.filter((file) => NOT_SHIPPED.test(file))).toEqual([]);
    const migrations = readdirSync(path.join(PROJECT_ROOT, 'migrations')).map((file) => `dist/migrations/${file.replace(/\.ts$/, '.js')}`);
    for (const file of [
      'package.json',
      'README.md',
      'LICENSE',
      'CHANGELOG.md',
      'config/default.json',
      'dist/src/cli.js',
      'dist/src/api/result-spans-wasm.js',
      'dist/src/warehouse/copy-lines-wasm.js',
      ...migrations,
    ]) {
      expect(files, file).toContain(file);
    }
  });

  it('the installed tree holds no devDependency', () => {
    const devOnly = devOnlyPackages(PROJECT_ROOT);
    expect(devOnly.size).toBeGreaterThan(100);
    const present = installedPackages(path.join(installed, 'node_modules'));
    expect(present.has('pg')).toBe(true);
    expect([...present].filter((name) => devOnly.has(name))).toEqual([]);
  });

  it('--version prints the package version, from an empty folder', async () => {
    const result = await runInstalled(['--version']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout.trim()).toBe(manifest.version);
  });

  // A whole demo and a whole sync: minutes on a loaded 2-core machine, against about 30 s quiet.
  it('demo runs with no services and writes only under the working folder', async () => {
    const result = await runInstalled(['demo']);
    expect(result.code, result.stderr.slice(-2000)).toBe(0);
    expect(result.stdout).toMatch(/[\d,]+ events mirrored from 4 scopes/);
    expect(readdirSync(path.join(work, 'data'))).toContain('demo');
    expect(readdirSync(home)).toEqual([]);
  }, 300_000);

  it('sync --once against `events-mirror emulator` mirrors every event the checkout mirrors, and migrate, worker and scheduler run', async () => {
    const emulator = spawn('events-mirror', ['emulator', '--port', '0', '--events-per-scope', '300', '--days', '7'], {
      cwd: work,
      env: userEnv(),
    });
    const exited = waitForExit(emulator, 600_000);
    exited.catch(() => undefined);
    try {
      let firstLine = '';
      emulator.stdout.on('data', (chunk: Buffer) => (firstLine ||= chunk.toString().split('\n')[0]!));
      await waitFor('the emulator prints its export line', async () => (firstLine.startsWith('export ') ? firstLine : undefined), 60_000);
      const apiEnv = Object.fromEntries(
        firstLine
          .slice('export '.length)
          .split(' ')
          .map((pair) => [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)]),
      ) as Record<string, string>;
      expect(apiEnv.EVENTS_SCOPES?.split(',')).toHaveLength(4);

      const fromPackage = await createTestDatabase();
      const fromCheckout = await createMigratedTestDatabase();
      databases.push(fromPackage, fromCheckout);
      const packageEnv = { ...apiEnv, DATABASE_URL: fromPackage.url, REDIS_PREFIX: redisPrefix };

      const migrated = await runInstalled(['migrate'], packageEnv);
      expect(migrated.code, migrated.stderr).toBe(0);
      const synced = await runInstalled(['sync', '--once'], packageEnv);
      expect(synced.code, synced.stderr.slice(-2000)).toBe(0);
      expect(synced.stdout).toContain('4 scopes synced');
      const checkout = await runCli(['sync', '--once'], { ...apiEnv, DATABASE_URL: fromCheckout.url });
      expect(checkout.code, checkout.stderr.slice(-2000)).toBe(0);
      const [mirrored, expected] = await Promise.all([eventIds(fromPackage.url), eventIds(fromCheckout.url)]);
      expect(expected.length).toBeGreaterThan(1000);
      expect(mirrored).toEqual(expected);

      // The long-running processes start from the installed package and stop cleanly on SIGTERM.
      const probes = { METRICS_PORT: '0', SCHEDULER_METRICS_PORT: '0' };
      for (const [command, ready] of [
        ['worker', /worker running/],
        ['scheduler', /job schedulers reconciled/],
      ] as const) {
        const child = spawn('events-mirror', [command], { cwd: work, env: userEnv({ ...packageEnv, ...probes }) });
        const done = waitForExit(child, 120_000);
        let output = '';
        child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
        await waitFor(`${command} starts`, async () => ready.test(output) || undefined, 60_000);
        child.kill('SIGTERM');
        const stopped = await done;
        expect(stopped.code, `${command}: ${stopped.stderr}${output}`).toBe(0);
      }
      expect(readdirSync(home)).toEqual([]);
    } finally {
      emulator.kill('SIGTERM');
      await exited;
    }
  }, 600_000);
});
