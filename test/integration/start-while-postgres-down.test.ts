/**
 * A worker or scheduler started while PostgreSQL does not answer (a deploy restarting the database)
 * waits for it, as it waits for Redis: it stays up and unready, says so once, starts when the
 * database comes up, and stops at once on SIGTERM while it waits. A private PostgreSQL server that
 * is stopped and started (the shared one on 5432 serves other test files); real Redis.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/server.js';
import { createWarehouse } from '../../src/warehouse/database.js';
import { migrateToLatest } from '../../src/warehouse/migrator.js';
import { startPrivatePostgres, type PrivatePostgres } from '../helpers/private-postgres.js';
import { freePort, obliterateSyncQueue, sleep, startCli, waitFor, type CliProcess } from '../helpers/queue-processes.js';
import { ADMIN_DATABASE_URL, REDIS_URL } from '../helpers/services.js';

const ORG = '5f0000000000000000000431';
const WAITING = /PostgreSQL at postgres:\/\/127\.0\.0\.1:\d+\/postgres does not answer \(connect ECONNREFUSED [^)]*\): waiting up to 60 s/;
const waitLines = (output: string) => output.match(new RegExp(WAITING.source, 'g')) ?? [];

describe('started while PostgreSQL is down', () => {
  let postgres: PrivatePostgres;
  let emulator: RunningEmulator;
  const prefix = `em-test-${randomUUID()}`;
  const processes: CliProcess[] = [];
  let env: Record<string, string>;

  beforeAll(async () => {
    emulator = await startEmulator({ host: '127.0.0.1', port: 0, seed: 431, orgs: [ORG], eventsPerScope: 20, days: 1 });
    postgres = await startPrivatePostgres();
    const warehouse = await createWarehouse({ url: postgres.url, schema: 'events_mirror', dataDir: 'unused' });
    await migrateToLatest(warehouse);
    await warehouse.close();
    await postgres.stop();
    const key = emulator.keys[0]!;
    env = {
      EVENTS_API_BASE_URL: emulator.baseUrl,
      EVENTS_API_PUBLIC_KEY: key.publicKey,
      EVENTS_API_PRIVATE_KEY: key.privateKey,
      EVENTS_SCOPES: `org:${ORG}`,
      EVENTS_DISCOVER_PROJECTS: 'true',
      DATABASE_URL: postgres.url,
      REDIS_URL,
      REDIS_PREFIX: prefix,
      LOG_LEVEL: 'info',
    };
  });

  afterAll(async () => {
    await Promise.all(processes.map((p) => p.stop('SIGKILL').catch(() => undefined)));
    await postgres?.close();
    await emulator?.close();
    await obliterateSyncQueue(REDIS_URL, prefix);
  });

  const start = async (command: 'worker' | 'scheduler') => {
    const port = await freePort();
    const portVariable = command === 'worker' ? 'METRICS_PORT' : 'SCHEDULER_METRICS_PORT';
    const child = startCli(command, [command], { ...env, [portVariable]: String(port) });
    processes.push(child);
    const probe = async (path: string) => (await fetch(`http://127.0.0.1:${port}${path}`).catch(() => undefined))?.status;
    return { child, probe };
  };
  const alive = (p: CliProcess) => p.child.exitCode === null && p.child.signalCode === null;

  it.each(['worker', 'scheduler'] as const)(
    'a %s waits, unready, and starts once PostgreSQL is up',
    async (command) => {
      const { child, probe } = await start(command);
      try {
        await waitFor('the line saying it waits for PostgreSQL', async () => WAITING.test(child.output()) || !alive(child), 60_000);
        expect(alive(child), 'still running while PostgreSQL is down').toBe(true);
        expect(await probe('/livez')).toBe(200);
        expect(await probe('/readyz')).toBe(503);
        // Several tries later: still up, still unready, and the wait was said once.
        await sleep(3_000);
        expect(alive(child), 'still running while PostgreSQL is down').toBe(true);
        expect(await probe('/readyz')).toBe(503);
        expect(waitLines(child.output()), child.output()).toHaveLength(1);

        await postgres.start();
        const running = command === 'worker' ? /worker running/ : /scheduler keeping/;
        await waitFor('running once PostgreSQL answers', async () => running.test(child.output()) || !alive(child), 60_000);
        expect(child.output()).toMatch(/PostgreSQL at \S+ answers: starting/);
        await waitFor('ready once PostgreSQL answers', async () => (await probe('/readyz')) === 200, 60_000);
        const result = await child.stop('SIGTERM');
        expect(result.code, child.output()).toBe(0);
      } finally {
        await postgres.stop().catch(() => undefined);
      }
    },
    180_000,
  );

  it.each(['worker', 'scheduler'] as const)(
    'a %s told to stop while it waits for PostgreSQL exits 0 at once',
    async (command) => {
      const { child } = await start(command);
      await waitFor('the line saying it waits for PostgreSQL', async () => WAITING.test(child.output()) || !alive(child), 60_000);
      expect(alive(child), child.output()).toBe(true);
      // Well under the 60 s wait: a stop that waited for it would run into this limit.
      const result = await child.stop('SIGTERM', 20_000);
      expect(result.code, child.output()).toBe(0);
    },
    120_000,
  );

  it('a worker whose database does not exist exits 1 at once: waiting cannot fix that', async () => {
    const missing = new URL(ADMIN_DATABASE_URL);
    missing.pathname = `/no_such_database_${randomUUID().slice(0, 8)}`;
    const child = startCli('worker', ['worker'], { ...env, DATABASE_URL: missing.toString(), METRICS_PORT: String(await freePort()) });
    processes.push(child);
    const result = await child.exited;
    expect(result.code, child.output()).toBe(1);
    expect(child.output()).toMatch(/does not exist/);
    expect(waitLines(child.output())).toHaveLength(0);
  }, 60_000);
});
