/**
 * `sync --serve-sql PORT` (issue 37): a running sync, a CLI child mirroring the emulator into an
 * embedded warehouse (a copy of the run's migrated one), serves that warehouse over the PostgreSQL
 * protocol while it mirrors. The real Debian psql (sslmode=prefer, its default) connects, lists the
 * views and counts the events the sync's summary reports; pg from Node does too, with a parameter
 * (the extended protocol). Writes are refused (insert, delete, drop, a statement lifting read-only
 * mode, two statements in one query), nothing changes, and the sync keeps polling and writing
 * afterwards, also across a client's slow query and past a client transaction left open (rolled back
 * after 15 s once the mirror needs the session).
 * SIGTERM closes the port. With DATABASE_URL set, --serve-sql is refused.
 */
import { spawnSync } from 'node:child_process';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/server.js';
import { runCli } from '../helpers/cli.js';
import { ADMIN_URL, copyMigratedDataDir, type EmbeddedDataDir } from '../helpers/database.js';
import { emulatorEnv } from '../helpers/emulator.js';
import { startCli, waitFor, type CliProcess } from '../helpers/queue-processes.js';
import { daysAgo } from '../helpers/sync-fixture.js';
import { countCell, syncSummaryRows } from '../helpers/sync-summary.js';

const PSQL = '/usr/bin/psql';

function psql(port: number, ...args: string[]): { code: number | null; stdout: string; stderr: string } {
  const result = spawnSync(
    PSQL,
    ['-h', '127.0.0.1', '-p', String(port), '-U', 'postgres', '-X', '-v', 'ON_ERROR_STOP=1', ...args, 'postgres'],
    {
      encoding: 'utf8',
      env: { PATH: process.env.PATH ?? '', PGCONNECT_TIMEOUT: '20' },
      timeout: 60_000,
    },
  );
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

async function pgCount(port: number): Promise<number> {
  const client = new pg.Client({ host: '127.0.0.1', port, user: 'postgres', database: 'postgres', connectionTimeoutMillis: 20_000 });
  await client.connect();
  try {
    const result = await client.query<{ n: number }>('select count(*)::int as n from events where created >= $1', [new Date(0)]);
    return result.rows[0]!.n;
  } finally {
    await client.end();
  }
}

/** The summary table's `new` column, summed. */
function landedInFirstPass(output: string): number {
  return [...syncSummaryRows(output).values()].reduce((sum, row) => sum + countCell(row.new), 0);
}

describe('sync --serve-sql', () => {
  let emulator: RunningEmulator;
  let dataDir: EmbeddedDataDir;
  let env: Record<string, string>;
  let sync: CliProcess | undefined;
  let port = 0;
  let stdout = '';

  beforeAll(async () => {
    emulator = await startEmulator({
      port: 0,
      seed: 377,
      orgs: ['5f0000000000000000000377'],
      groups: ['6a0000000000000000000377'],
      eventsPerScope: 400,
      days: 1,
    });
    dataDir = copyMigratedDataDir()!;
    env = {
      ...emulatorEnv(emulator),
      EVENTS_START_DATE: daysAgo(2).toISOString(),
      EVENTS_MIRROR_DATA_DIR: dataDir.dataDir,
      EVENTS_POLL_INTERVAL_SECONDS: '2',
      LOG_LEVEL: 'info',
    };
  });

  afterAll(async () => {
    await sync?.stop('SIGKILL').catch(() => undefined);
    await emulator?.close();
    dataDir?.remove();
  });

  it('refuses --serve-sql with a PostgreSQL warehouse', async () => {
    const result = await runCli(['sync', '--serve-sql', '0'], { ...env, DATABASE_URL: ADMIN_URL });
    expect(result.stderr.split('\n')[0]).toBe(
      'events-mirror: --serve-sql serves the embedded warehouse, and DATABASE_URL is set (a PostgreSQL warehouse): connect SQL clients to that PostgreSQL instead',
    );
    expect(result.code).toBe(2);
  });

  it('serves the warehouse read-only to psql and pg while it mirrors; SIGTERM closes the port', async () => {
    sync = startCli('sync', ['sync', '--serve-sql', '0'], env);
    let stderr = '';
    sync.child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    sync.child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    await waitFor('the port', () => Promise.resolve(/"port":(\d+),"msg":"serving the embedded warehouse read-only/.test(stderr)), 120_000);
    port = Number(/"port":(\d+),"msg":"serving/.exec(stderr)![1]);
    await waitFor('the first pass to finish', () => Promise.resolve(/scopes? synced/.test(stdout)), 180_000);
    const landed = landedInFirstPass(stdout);
    expect(landed).toBeGreaterThan(0);

    const views = psql(port, '-c', '\\dv events_mirror.*');
    expect(views.code, views.stderr).toBe(0);
    for (const view of ['events_per_day', 'sync_lag', 'alerts', 'event_scopes'])
      expect(views.stdout).toMatch(new RegExp(`events_mirror \\| ${view} +\\| view`));

    const count = psql(port, '-At', '-c', 'select count(*) from events');
    expect(count.code, count.stderr).toBe(0);
    expect(Number(count.stdout.trim())).toBe(landed);
    expect(await pgCount(port)).toBe(landed);

    const refused = (what: string) => new RegExp(`ERROR: {2}events-mirror serves the warehouse read-only: ${what}`);
    const refusals: Array<[string, RegExp]> = [
      [
        `insert into scopes (scope, kind, scope_id, origin) values ('group:x', 'group', 'x', 'configured')`,
        refused('INSERT statements are refused'),
      ],
      ['delete from events', refused('DELETE statements are refused')],
      ['drop view sync_lag', refused('DROP statements are refused')],
      ['set default_transaction_read_only = off', refused('setting default_transaction_read_only may not be changed')],
      ['begin read write', refused('READ WRITE is refused')],
      ['select 1; delete from events', /ERROR: {2}events-mirror serves the warehouse read-only, one statement a query: this one holds 2/],
    ];
    for (const [statement, message] of refusals) {
      const refused = psql(port, '-c', statement);
      expect(refused.stderr, statement).toMatch(message);
      expect(refused.code, statement).not.toBe(0);
    }
    // A transaction the client writes in, statement by statement, is refused too.
    const piped = spawnSync(PSQL, ['-h', '127.0.0.1', '-p', String(port), '-U', 'postgres', '-X', 'postgres'], {
      input: 'begin;\ndelete from events;\ncommit;\n',
      encoding: 'utf8',
      env: { PATH: process.env.PATH ?? '' },
      timeout: 60_000,
    });
    expect(piped.stderr).toMatch(refused('DELETE statements are refused'));
    expect(Number(psql(port, '-At', '-c', 'select count(*) from events').stdout.trim())).toBe(landed);
    expect(psql(port, '-At', '-c', `select count(*) from scopes where scope = 'group:x'`).stdout.trim()).toBe('0');

    // The sync's own writes still go through: every pass moves the checkpoints, also across a
    // client's slow query (PGlite runs it on the process's thread: the sync waits, then goes on).
    const watermark = () => psql(port, '-At', '-c', `select min(watermark) from sync_state`).stdout.trim();
    const passes = () => stdout.match(/scopes? synced/g)?.length ?? 0;
    const [before, passesBefore] = [watermark(), passes()];
    expect(psql(port, '-c', 'select count(*) from generate_series(1, 3000000)').code).toBe(0);
    await waitFor('two more passes', () => Promise.resolve(passes() >= passesBefore + 2), 120_000);
    expect(new Date(watermark()).getTime()).toBeGreaterThan(new Date(before).getTime());
    expect(stderr).not.toMatch(/"level":(50|60)/);

    // A client that opens a transaction and walks away holds the session: once the mirror needs
    // it, the transaction is rolled back after 15 s, the client's connection ended with a FATAL
    // error saying so (never left to commit a transaction that is gone), and the passes go on.
    const idle = new pg.Client({ host: '127.0.0.1', port, user: 'postgres', database: 'postgres', connectionTimeoutMillis: 20_000 });
    const idleErrors: Error[] = [];
    idle.on('error', (error) => idleErrors.push(error));
    await idle.connect();
    await idle.query('begin');
    await idle.query('select count(*) from events');
    const passesHeld = passes();
    await waitFor('two passes past the open transaction', () => Promise.resolve(passes() >= passesHeld + 2), 120_000);
    expect(stderr).toContain('a SQL client kept a transaction open over 15 s while the mirror waited: rolled back, connection ended');
    await waitFor('the error on the idle connection', () => Promise.resolve(idleErrors.length > 0), 30_000);
    expect(idleErrors[0]!.message).toMatch(
      /^events-mirror ended this connection: it kept a transaction open over 15 s while the mirror waited/,
    );
    expect((idleErrors[0] as Error & { code?: string }).code).toBe('25P03');
    await expect(idle.query('commit')).rejects.toThrow();
    await idle.end().catch(() => undefined);
    // A psql session left inside a transaction the same way reads why on its next statement.
    expect(psql(port, '-At', '-c', 'select 1').stdout.trim()).toBe('1');

    const stopped = await sync.stop('SIGTERM');
    sync = undefined;
    expect(stopped.code, stderr.slice(-2000)).toBe(0);
    const client = new pg.Client({ host: '127.0.0.1', port, user: 'postgres', database: 'postgres', connectionTimeoutMillis: 5000 });
    await expect(client.connect()).rejects.toMatchObject({ code: 'ECONNREFUSED' });
  }, 420_000);
});
