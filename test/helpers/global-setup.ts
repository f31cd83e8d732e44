/**
 * Vitest global setup: decides once, before any test file runs, where the suite's PostgreSQL and
 * Redis are. Servers answering at TEST_ADMIN_DATABASE_URL / TEST_REDIS_URL are used as they are;
 * otherwise throwaway servers are started. Everything the run starts or writes to a temporary folder
 * lives in one folder that is removed when the run ends, also on Ctrl-C and on a failing run. Test files (and the processes they start) read the URLs
 * through test/helpers/services.ts, which reads the environment set here.
 */
import { accessSync, chmodSync, constants, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import pg from 'pg';
import { CLI_ENTRY_ENV, PROJECT_ROOT } from './cli.js';
import { buildCli } from './cli-build.js';
import { createPgliteTemplate, createTemplateDatabase, PGLITE_TEMPLATE_ENV, TEMPLATE_DATABASE_ENV, type TestDatabase } from './database.js';
import { startPrivatePostgres, privatePostgresUnavailable, type PrivatePostgres } from './private-postgres.js';
import { startPrivateRedis, type PrivateRedis } from './queue-processes.js';
import { describeUrl } from '../../src/warehouse/database.js';
import { errorMessage } from '../../src/errors.js';
import { ADMIN_DATABASE_URL, REDIS_URL } from './services.js';

const PROBE_TIMEOUT_MS = 3_000;

/** A service the suite needs is missing: one line naming the fix, and the run stops before any test. */
function stopRun(line: string): never {
  process.stderr.write(`\n[test services] ${line}\n\n`);
  process.exit(1);
}

async function postgresAnswers(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: PROBE_TIMEOUT_MS });
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.query('select 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

async function redisAnswers(url: string): Promise<boolean> {
  const client = new Redis(url, {
    lazyConnect: true,
    connectTimeout: PROBE_TIMEOUT_MS,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  client.on('error', () => undefined);
  try {
    await client.connect();
    return (await client.ping()) === 'PONG';
  } catch {
    return false;
  } finally {
    client.disconnect();
  }
}

function onPath(command: string): boolean {
  return (process.env.PATH ?? '').split(path.delimiter).some((dir) => {
    try {
      accessSync(path.join(dir, command), constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}

/** Everything started for this run, and how to remove it without waiting (exit, signals). */
class RunServices {
  readonly dir: string;
  postgres?: PrivatePostgres;
  redis?: PrivateRedis;
  template?: TestDatabase;

  constructor() {
    this.dir = mkdtempSync(path.join(tmpdir(), 'em-test-run-'));
    // PostgreSQL runs as the `postgres` user under root and must reach its folder inside this one.
    chmodSync(this.dir, 0o755);
  }

  async close(): Promise<void> {
    await this.template?.drop().catch(() => undefined);
    await Promise.allSettled([this.redis?.stop(), this.postgres?.close()]);
    rmSync(this.dir, { recursive: true, force: true });
  }

  /** For process exit and signals: kill what is left and remove the folder, synchronously. */
  closeNow(): void {
    const redisPid = this.redis?.pid();
    if (redisPid) killQuietly(redisPid, 'SIGKILL');
    const postmaster = this.postgres ? postmasterPid(path.join(this.postgres.home, 'data')) : undefined;
    if (postmaster) {
      // SIGQUIT is PostgreSQL's immediate shutdown: the postmaster takes its backends with it.
      killQuietly(postmaster, 'SIGQUIT');
      waitUntilGone(postmaster, 5_000);
    }
    if (existsSync(this.dir)) rmSync(this.dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
  }
}

function postmasterPid(dataDir: string): number | undefined {
  try {
    const pid = Number(readFileSync(path.join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

function killQuietly(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(pid, signal);
  } catch {
    // already gone
  }
}

function waitUntilGone(pid: number, timeoutMs: number): void {
  const pause = new Int32Array(new SharedArrayBuffer(4));
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    try {
      process.kill(pid, 0);
    } catch {
      return;
    }
    Atomics.wait(pause, 0, 0, 50);
  }
}

const SIGNALS: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];

function removeOnExit(services: RunServices): () => void {
  const onExit = () => services.closeNow();
  const onSignal = (signal: NodeJS.Signals) => {
    services.closeNow();
    // Keep the signal's usual effect when nobody else (vitest) handles it.
    if (process.listenerCount(signal) === 0) process.kill(process.pid, signal);
  };
  process.once('exit', onExit);
  for (const signal of SIGNALS) process.once(signal, onSignal);
  return () => {
    process.off('exit', onExit);
    for (const signal of SIGNALS) process.off(signal, onSignal);
  };
}

function valueOf<T>(step: PromiseSettledResult<T>): T {
  if (step.status === 'rejected') throw step.reason;
  return step.value;
}

function log(line: string): void {
  process.stderr.write(`[test services] ${line}\n`);
}

export default async function setup(): Promise<() => Promise<void>> {
  const [postgresUp, redisUp] = await Promise.all([postgresAnswers(ADMIN_DATABASE_URL), redisAnswers(REDIS_URL)]);
  // Decide everything that can fail fast before starting anything.
  if (!redisUp && !onPath('redis-server')) {
    stopRun(
      `Redis does not answer at ${REDIS_URL} and redis-server is not installed to start one: apt-get install redis-server (Debian/Ubuntu) or brew install redis (macOS), or set TEST_REDIS_URL to a Redis you run`,
    );
  }
  if (!postgresUp) {
    const unavailable = privatePostgresUnavailable();
    if (unavailable) {
      stopRun(
        `PostgreSQL does not answer at ${ADMIN_DATABASE_URL} and none can be started: ${unavailable}; or set TEST_ADMIN_DATABASE_URL to a PostgreSQL you run`,
      );
    }
  }
  const services = new RunServices();
  const forget = removeOnExit(services);
  // Every temporary folder a test (or a process it starts) makes lands here and goes with the run.
  process.env.TMPDIR = services.dir;
  try {
    if (!redisUp) {
      services.redis = await startPrivateRedis({ dir: services.dir });
      process.env.TEST_REDIS_URL = services.redis.url;
      log(`nothing answers at ${REDIS_URL}: started redis-server at ${services.redis.url}`);
    }
    if (!postgresUp) {
      services.postgres = await startPrivatePostgres({ parentDir: services.dir });
      process.env.TEST_ADMIN_DATABASE_URL = services.postgres.url;
      log(`nothing answers at ${ADMIN_DATABASE_URL}: started PostgreSQL at ${services.postgres.url}`);
    }
    // Once per run: the CLI as JavaScript for the CLI children (test/helpers/cli.ts), and a migrated
    // PostgreSQL database and embedded warehouse that each test's migrated one is copied from
    // (test/helpers/database.ts).
    const pgliteTemplate = path.join(services.dir, 'pglite-template');
    const adminUrl = process.env.TEST_ADMIN_DATABASE_URL ?? ADMIN_DATABASE_URL;
    // Every step ends before a failure is thrown: a step still running when vitest has set the
    // failed run's exit code could change it (PGlite's close sets process.exitCode to 0), and the
    // folder must not be removed under it.
    const [cli, template, pglite] = await Promise.allSettled([
      buildCli(PROJECT_ROOT, path.join(services.dir, 'cli')),
      createTemplateDatabase(adminUrl).catch((error: unknown) => {
        throw new Error(
          `cannot create the run's template database at ${describeUrl(adminUrl)}: ${errorMessage(error)}; TEST_ADMIN_DATABASE_URL must name a primary server (not a standby) and a role that may create databases (CREATEDB)`,
          { cause: error },
        );
      }),
      createPgliteTemplate(pgliteTemplate),
    ]);
    if (template.status === 'fulfilled') services.template = template.value;
    process.env[TEMPLATE_DATABASE_ENV] = valueOf(template).name;
    valueOf(pglite);
    process.env[PGLITE_TEMPLATE_ENV] = pgliteTemplate;
    process.env[CLI_ENTRY_ENV] = valueOf(cli);
  } catch (error) {
    await services.close();
    forget();
    throw error;
  }
  return async () => {
    await services.close();
    forget();
  };
}
