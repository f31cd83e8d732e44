/**
 * Text the API supplies reaches the terminal tables (`status`, the `sync --once` summary): an
 * event type name or an error detail holding escape sequences must be shown, never obeyed. A stub
 * feed over real HTTP serves an event whose `eventTypeName` sets the terminal's title, clears the
 * screen and starts a forged line, and answers a second scope with a 404 whose detail does the
 * same; the CLI runs against a real PostgreSQL warehouse. A command that fails on that 404 prints
 * the detail on stderr escaped too.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWarehouse } from '../../src/warehouse/database.js';
import { migrateToLatest } from '../../src/warehouse/migrator.js';
import { runCli } from '../helpers/cli.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';

const READABLE = '6a00000000000000000003a1';
const MISSING = '6a00000000000000000003a2';
const HOSTILE = '\u001b]0;owned\u0007\u001b[2J\u009b31m\u202e\r\nforged line';
const HOSTILE_SHOWN = '\\x1b]0;owned\\x07\\x1b[2J\\x9b31m\\u202e\\r\\nforged line';
/** Tables cut an error to its cell and fold its white space: the escaped controls stay visible. */
const HOSTILE_CUT = '\\x1b]0;owned\\x07\\x1b[2J\\x9b31m\\u202e';

/** Any character a terminal acts on, except the newlines that end the tables' own lines. */
// eslint-disable-next-line no-control-regex -- control characters are what this looks for
const RAW_CONTROL = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

describe('terminal escapes from the feed', () => {
  let server: Server;
  let database: TestDatabase;
  let env: Record<string, string>;

  beforeAll(async () => {
    server = createServer((req, res) => {
      const path = new URL(req.url!, 'http://stub').pathname;
      res.setHeader('content-type', 'application/json');
      if (path.endsWith(`/groups/${MISSING}/events`)) {
        res.statusCode = 404;
        res.end(JSON.stringify({ error: 404, errorCode: 'GROUP_NOT_FOUND', detail: HOSTILE, reason: 'Not Found', parameters: [] }));
        return;
      }
      const event = {
        id: 'evt-hostile-1',
        created: new Date(Date.now() - 3_600_000).toISOString(),
        eventTypeName: HOSTILE,
        groupId: READABLE,
      };
      res.end(JSON.stringify({ links: [], results: [event], totalCount: 1 }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    database = await createTestDatabase();
    const warehouse = await createWarehouse({ url: database.url, schema: 'events_mirror', dataDir: 'unused' });
    await migrateToLatest(warehouse);
    await warehouse.close();
    env = {
      EVENTS_API_BASE_URL: `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/public/v1.0`,
      EVENTS_API_PUBLIC_KEY: 'public',
      EVENTS_API_PRIVATE_KEY: 'private',
      EVENTS_SCOPES: `group:${READABLE},group:${MISSING}`,
      EVENTS_START_DATE: new Date(Date.now() - 86_400_000).toISOString(),
      DATABASE_URL: database.url,
      LOG_LEVEL: 'silent',
    };
  });
  afterAll(async () => {
    await new Promise((resolve) => server?.close(resolve));
    await database?.drop();
  });

  it('shows control characters escaped in the sync summary and in status, and no line is forged', async () => {
    const sync = await runCli(['sync', '--once'], env);
    expect(sync.code, sync.stderr).toBe(1);
    expect(sync.stdout).not.toMatch(RAW_CONTROL);
    expect(sync.stderr).not.toMatch(RAW_CONTROL);
    expect(sync.stdout).toContain(HOSTILE_CUT);
    expect(sync.stdout.split('\n').filter((line) => line.startsWith('forged'))).toEqual([]);

    const status = await runCli(['status'], env);
    expect(status.code, status.stderr).toBe(1);
    expect(status.stdout).not.toMatch(RAW_CONTROL);
    expect(status.stdout.split('\n').filter((line) => line.startsWith('forged'))).toEqual([]);
    // The failing scopes' table shows the 404's detail, cut to 80 columns counting the escapes.
    const failing = await runCli(['status', '--failing'], env);
    expect(failing.code, failing.stderr).toBe(1);
    expect(failing.stdout).not.toMatch(RAW_CONTROL);
    expect(failing.stdout.split('\n').filter((line) => line.startsWith('forged'))).toEqual([]);
    const row = failing.stdout.split('\n').find((line) => line.startsWith(`group:${MISSING}`));
    expect(row, failing.stdout).toContain('404 GROUP_NOT_FOUND: \\x1b]0;');
    expect(row!.length).toBeLessThanOrEqual(80);

    // The schema changes are listed by `status --schema-changes`, the new event type escaped.
    const changes = await runCli(['status', '--schema-changes'], env);
    expect(changes.code, changes.stderr).toBe(0);
    expect(changes.stdout).not.toMatch(RAW_CONTROL);
    // The name follows its change, on the line under it when it would take the row past 80 columns.
    expect(changes.stdout.replace(/\s+/g, ' '), changes.stdout).toContain(`new event type ${HOSTILE_SHOWN}`);
    for (const line of changes.stdout.split('\n')) expect(line.length, line).toBeLessThanOrEqual(80);

    // `status --scope` prints the whole error, escaped the same way.
    const detail = await runCli(['status', '--scope', `group:${MISSING}`], env);
    expect(detail.code, detail.stderr).toBe(1);
    expect(detail.stdout).not.toMatch(RAW_CONTROL);
    expect(detail.stdout).toContain(HOSTILE_SHOWN);
    expect(detail.stdout.split('\n').filter((line) => line.startsWith('forged'))).toEqual([]);
  }, 60_000);

  it("prints a failed command's API error on stderr escaped, on one line", async () => {
    const backfill = await runCli(
      ['backfill', '--scope', `group:${MISSING}`, '--from', new Date(Date.now() - 86_400_000).toISOString()],
      env,
    );
    expect(backfill.code).toBe(1);
    expect(backfill.stderr).not.toMatch(RAW_CONTROL);
    expect(backfill.stderr).toContain('failed: 404 GROUP_NOT_FOUND: \\x1b]0;owned\\x07\\x1b[2J\\x9b31m\\u202e forged line');
    expect(backfill.stderr.trimEnd().split('\n')).toHaveLength(1);
  }, 60_000);
});
