/**
 * `npm test` on a machine where nothing listens: the global setup starts a throwaway PostgreSQL and
 * redis-server, the tests pass against them, and nothing it started is left afterwards — after a
 * passing run, a failing run and Ctrl-C. Without redis-server installed the run stops at once with
 * the fix, and a server that takes no CREATE DATABASE fails the run with the fix. Each case runs a small part of the suite in a child vitest with both URLs on closed ports.
 */
import { spawn } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../helpers/cli.js';
import { freePort, waitFor } from '../helpers/queue-processes.js';
import { ADMIN_DATABASE_URL, REDIS_URL } from '../helpers/services.js';
import { describeUrl } from '../../src/warehouse/database.js';

const VITEST = path.join(PROJECT_ROOT, 'node_modules', 'vitest', 'vitest.mjs');
const SMALL_PART = [
  'test/unit/config.test.ts',
  'test/integration/warehouse-repositories.test.ts',
  'test/integration/api-request-budget-redis.test.ts',
];

interface Run {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly output: string;
}

/** Live processes (zombies excluded) whose command line mentions `needle`. */
function processesMentioning(needle: string): string[] {
  const found: string[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8').replaceAll('\0', ' ');
      const state = readFileSync(`/proc/${entry}/stat`, 'utf8').split(') ')[1]?.[0];
      if (state !== 'Z' && cmdline.includes(needle)) found.push(`${entry}: ${cmdline.trim()}`);
    } catch {
      // gone while reading
    }
  }
  return found;
}

describe('the suite on a machine where nothing answers', () => {
  const base = mkdtempSync(path.join(tmpdir(), 'em-test-services-'));
  chmodSync(base, 0o755);
  afterAll(() => rmSync(base, { recursive: true, force: true }));

  async function closedPorts(): Promise<Record<string, string>> {
    const [pgPort, redisPort] = await Promise.all([freePort(), freePort()]);
    return {
      TEST_ADMIN_DATABASE_URL: `postgres://root@127.0.0.1:${pgPort}/postgres`,
      TEST_REDIS_URL: `redis://127.0.0.1:${redisPort}`,
    };
  }

  function runPart(
    name: string,
    args: readonly string[],
    env: Record<string, string>,
    interrupt?: (output: () => string) => Promise<NodeJS.Signals>,
  ): Promise<Run & { tmp: string }> {
    const tmp = path.join(base, name);
    mkdirSync(tmp, { mode: 0o755 });
    chmodSync(tmp, 0o755);
    const child = spawn(process.execPath, [VITEST, 'run', ...args], {
      cwd: PROJECT_ROOT,
      env: { ...process.env, CI: 'true', TMPDIR: tmp, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    if (interrupt) void interrupt(() => output).then((signal) => child.kill(signal));
    return new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal, output, tmp })));
  }

  /** Nothing the run started is alive, and its temporary folder is gone. */
  function expectNothingLeft(run: Run & { tmp: string }, env: Record<string, string>) {
    const ports = Object.values(env).map((url) => new URL(url).port);
    const started = [...run.output.matchAll(/started \S+ at \S+:(\d+)/g)].map((match) => match[1]!);
    expect(started, run.output).toHaveLength(2);
    for (const needle of [
      run.tmp,
      ...ports.map((port) => `:${port}`),
      ...started.map((port) => `-p ${port}`),
      ...started.map((port) => `:${port}`),
    ]) {
      expect(processesMentioning(needle), `processes mentioning ${needle}`).toEqual([]);
    }
    expect(readdirSync(run.tmp).filter((name) => name.startsWith('em-'))).toEqual([]);
  }

  it('starts PostgreSQL and Redis, passes, and leaves no process or folder behind', async () => {
    const env = await closedPorts();
    const run = await runPart('passing', SMALL_PART, env);
    expect(run.code, run.output).toBe(0);
    expect(run.output).toMatch(/started redis-server at redis:\/\/127\.0\.0\.1:\d+/);
    expect(run.output).toMatch(/started PostgreSQL at postgres:\/\/root@127\.0\.0\.1:\d+/);
    expect(run.output).toMatch(/Test Files\s+.*3 passed/);
    expectNothingLeft(run, env);
  }, 180_000);

  it('cleans up after a failing run', async () => {
    const env = await closedPorts();
    // A test deadline no database test can meet: the run fails the way a broken change would.
    const run = await runPart('failing', ['--testTimeout=1', 'test/integration/warehouse-repositories.test.ts'], env);
    expect(run.code, run.output).toBe(1);
    expect(run.output).toMatch(/failed/);
    expectNothingLeft(run, env);
  }, 180_000);

  it('fails the run, naming the fix, when the template database cannot be created', async () => {
    // A server that answers but takes no CREATE DATABASE, as a standby would. The CLI build and the
    // embedded template are still being made when that fails; the run must still end failed.
    const standby = new URL(ADMIN_DATABASE_URL);
    standby.searchParams.set('options', '-c default_transaction_read_only=on');
    const run = await runPart('standby', SMALL_PART, { TEST_ADMIN_DATABASE_URL: standby.toString(), TEST_REDIS_URL: REDIS_URL });
    expect(run.code, run.output).toBe(1);
    expect(run.output).toContain(`cannot create the run's template database at ${describeUrl(ADMIN_DATABASE_URL)}`);
    expect(run.output).toContain('read-only transaction');
    expect(run.output).toContain('TEST_ADMIN_DATABASE_URL must name a primary server (not a standby)');
    expect(run.output).not.toMatch(/Test Files/);
    expect(readdirSync(run.tmp).filter((name) => name.startsWith('em-'))).toEqual([]);
  }, 120_000);

  it('cleans up after Ctrl-C in the middle of the run', async () => {
    const env = await closedPorts();
    const run = await runPart('interrupted', SMALL_PART, env, async (output) => {
      await waitFor('the private PostgreSQL to start', async () => output().includes('started PostgreSQL'), 120_000);
      return 'SIGINT';
    });
    expect(run.code === 0 || run.code === 1 || run.code === 130 || run.signal === 'SIGINT', run.output).toBe(true);
    expectNothingLeft(run, env);
  }, 180_000);

  it('stops before any test, naming the fix, when redis-server is not installed', async () => {
    const bin = path.join(base, 'bin-without-redis');
    mkdirSync(bin);
    symlinkSync(process.execPath, path.join(bin, 'node'));
    const env = { ...(await closedPorts()), PATH: bin };
    const run = await runPart('no-redis', SMALL_PART, env);
    expect(run.code).toBe(1);
    expect(run.output).toContain('redis-server is not installed');
    expect(run.output).toContain('apt-get install redis-server');
    expect(run.output).toContain('brew install redis');
    expect(run.output).not.toMatch(/Test Files/);
    expect(processesMentioning(run.tmp)).toEqual([]);
    expect(readdirSync(run.tmp).filter((name) => name.startsWith('em-'))).toEqual([]);
  }, 60_000);
});
