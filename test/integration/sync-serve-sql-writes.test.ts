/**
 * Issue 43: the served port (`sync --serve-sql`) refuses every write attempt of the corpus
 * (test/helpers/write-attempts.ts), sent by the real psql statement by statement and by pg, also
 * with parameters over the extended protocol, while the sync beside the port mirrors: nothing
 * changes, the session is the mirror's again after each client (role, read-only default), the
 * passes go on without an error, and after SIGTERM the warehouse opens with every event.
 */
import { spawnSync } from 'node:child_process';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { servedSync, type ServedSync } from '../helpers/served-sync.js';
import { WAREHOUSE_FINGERPRINT_SQL, writeAttempts } from '../helpers/write-attempts.js';

const PSQL = '/usr/bin/psql';
const REFUSED = /events-mirror serves the warehouse read-only/;

function psqlScript(port: number, statements: readonly string[]): { code: number | null; stdout: string; stderr: string } {
  const result = spawnSync(PSQL, ['-h', '127.0.0.1', '-p', String(port), '-U', 'postgres', '-X', '-At', 'postgres'], {
    input: statements.map((s) => `${s};\n`).join(''),
    encoding: 'utf8',
    env: { PATH: process.env.PATH ?? '', PGCONNECT_TIMEOUT: '20' },
    timeout: 60_000,
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

async function withClient<T>(port: number, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ host: '127.0.0.1', port, user: 'postgres', database: 'postgres', connectionTimeoutMillis: 20_000 });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** The error `statement` fails with, or undefined if it ran. */
async function failureOf(client: pg.Client, statement: string, values?: unknown[]): Promise<string | undefined> {
  try {
    await client.query(statement, values);
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
}

describe('sync --serve-sql refuses writes', () => {
  let served: ServedSync;

  beforeAll(async () => {
    served = await servedSync({
      seed: 433,
      orgs: ['5f0000000000000000000433'],
      groups: ['6a0000000000000000000433'],
      eventsPerScope: 300,
      days: 1,
    });
  });

  afterAll(async () => {
    await served?.close();
  });

  it('refuses the corpus through psql and pg while the sync mirrors; the warehouse opens afterwards with every event', async () => {
    await served.start();
    const { port, landed } = served;
    expect(landed).toBeGreaterThan(0);

    const fingerprint = () => withClient(port, async (client) => (await client.query(WAREHOUSE_FINGERPRINT_SQL)).rows[0] as unknown);
    const before = await fingerprint();
    expect(before).toMatchObject({ role: 'postgres', read_only: 'on' });
    // The events table's own file in the embedded warehouse: COPY TO it emptied the table (issue 43).
    const target = (await withClient(port, (client) =>
      client.query<{ path: string }>(
        `select current_setting('data_directory') || '/base/' || (select oid from pg_database where datname = current_database()) || '/' || relfilenode as path from pg_class where relname = 'events'`,
      ),
    ))!.rows[0]!.path;

    for (const attempt of writeAttempts(target)) {
      const script = [...(attempt.before ?? []), attempt.attack, ...(attempt.after ?? [])];
      const viaPsql = psqlScript(port, script);
      expect(viaPsql.stderr, attempt.name).toMatch(REFUSED);
      await withClient(port, async (client) => {
        for (const statement of attempt.before ?? []) await failureOf(client, statement);
        expect(await failureOf(client, attempt.attack), attempt.name).toMatch(REFUSED);
        for (const statement of attempt.after ?? []) await failureOf(client, statement);
        await failureOf(client, 'rollback');
      });
    }
    // The extended protocol with parameters (pg sends Parse, Bind with the values, Execute).
    const parameterized: Array<[string, unknown[]]> = [
      ['delete from events where id <> $1', ['x']],
      ['select set_config($1, $2, false)', ['default_transaction_read_only', 'off']],
      [`insert into scopes (scope, kind, scope_id, origin) values ($1, 'group', 'x', 'configured')`, ['group:x']],
      ['with gone as (delete from events where id <> $1 returning 1) select count(*) from gone', ['x']],
      ['select lo_export($1, $2)', [0, target]],
      ['update events set event_type_name = $1', ['CHANGED']],
    ];
    await withClient(port, async (client) => {
      for (const [statement, values] of parameterized) expect(await failureOf(client, statement, values), statement).toMatch(REFUSED);
      // The connection still serves after each refusal.
      expect((await client.query<{ n: number }>('select count(*)::int as n from events where id <> $1', ['x'])).rows[0]!.n).toBe(landed);
    });
    expect(await fingerprint()).toEqual(before);

    // The sync goes on: more passes, no error logged.
    await served.morePasses(2);
    expect(served.stderr()).not.toMatch(/"level":(50|60)/);

    const stopped = await served.stop();
    expect(stopped.code, served.stderr().slice(-2000)).toBe(0);
    const reopened = await runCli(['sql', '--json', 'select count(*)::int as n from events'], served.env);
    expect(reopened.code, reopened.stderr).toBe(0);
    expect(JSON.parse(reopened.stdout)).toEqual([{ n: landed }]);
  }, 600_000);
});
