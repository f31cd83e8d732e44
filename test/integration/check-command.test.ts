/**
 * `events-mirror check` against the emulator over HTTP, real PostgreSQL and real Redis: a good
 * setup passes (exit 0); each problem a first sync would hit is found with its own line and the
 * fix: a wrong private key, a project the key cannot read, an unmigrated warehouse, a role without
 * the privileges a sync uses, an unreachable Redis. Nothing is changed by it.
 */
import { createServer, type Server } from 'node:net';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/server.js';
import { runCli } from '../helpers/cli.js';
import { createMigratedTestDatabase, createTestDatabase, type TestDatabase } from '../helpers/database.js';

const ORG = '5f00000000000000000000c1';
const READABLE = '6a00000000000000000000c1';
const UNREADABLE = '6a00000000000000000000c2';
const OWNER = { publicKey: 'check-owner', privateKey: 'check-owner-secret', roles: [{ orgId: ORG, roleName: 'ORG_OWNER' as const }] };
/** Reads one project only: the other is a problem naming the role. */
const ONE_PROJECT = {
  publicKey: 'check-one',
  privateKey: 'check-one-secret',
  roles: [{ groupId: READABLE, roleName: 'GROUP_READ_ONLY' as const }],
};

interface Result {
  subject: string;
  outcome: 'ok' | 'problem' | 'skipped';
  detail: string;
}

let emulator: RunningEmulator;
let migrated: TestDatabase;
let unmigrated: TestDatabase;
let closedPort: number;
let deaf: Server;

beforeAll(async () => {
  [emulator, migrated, unmigrated] = await Promise.all([
    startEmulator({
      port: 0,
      seed: 37,
      orgs: [ORG],
      groups: [READABLE, UNREADABLE],
      eventsPerScope: 20,
      days: 1,
      keys: [OWNER, ONE_PROJECT],
    }),
    createMigratedTestDatabase(),
    createTestDatabase(),
  ]);
  // A port nothing listens on: taken, then let go.
  deaf = createServer();
  await new Promise<void>((resolve) => deaf.listen(0, '127.0.0.1', resolve));
  closedPort = (deaf.address() as AddressInfo).port;
  await new Promise((resolve) => deaf.close(resolve));
}, 60_000);

afterAll(async () => {
  await Promise.all([emulator?.close(), migrated?.drop(), unmigrated?.drop()]);
});

function env(key: { publicKey: string; privateKey: string }, extra: Record<string, string> = {}): Record<string, string> {
  return {
    EVENTS_API_BASE_URL: emulator.baseUrl,
    EVENTS_API_PUBLIC_KEY: key.publicKey,
    EVENTS_API_PRIVATE_KEY: key.privateKey,
    EVENTS_SCOPES: `org:${ORG},group:${READABLE},group:${UNREADABLE}`,
    DATABASE_URL: migrated.url,
    ...extra,
  };
}

async function check(environment: Record<string, string>): Promise<{ code: number | null; results: Result[]; text: string }> {
  const [json, text] = await Promise.all([runCli(['check', '--json'], environment), runCli(['check'], environment)]);
  expect(json.code, json.stderr).toBe(text.code);
  return { code: json.code, results: JSON.parse(json.stdout) as Result[], text: text.stdout };
}

const problems = (results: readonly Result[]) => results.filter((r) => r.outcome === 'problem');

describe('events-mirror check', () => {
  it('passes on a good setup: every credential, scope, the warehouse and Redis, exit 0', async () => {
    const { code, results, text } = await check(env(OWNER));
    expect(problems(results)).toEqual([]);
    expect(code).toBe(0);
    expect(results.map((r) => r.subject)).toEqual([
      'credential default',
      `org:${ORG}`,
      `group:${READABLE}`,
      `group:${UNREADABLE}`,
      'warehouse',
      'redis',
    ]);
    expect(results.find((r) => r.subject === 'warehouse')!.detail).toMatch(/: reachable, migrated, role \S+ may read and write$/);
    expect(text).toMatch(/\nall 6 checks passed\n$/);
    expect(text).not.toContain(OWNER.privateKey);
  });

  it('a wrong private key: one problem naming the key and the fix; its scopes are not asked', async () => {
    const { code, results, text } = await check(env({ publicKey: OWNER.publicKey, privateKey: 'not-the-private-key' }));
    expect(code).toBe(1);
    expect(problems(results)).toEqual([
      {
        subject: 'credential default',
        outcome: 'problem',
        detail: expect.stringMatching(
          /\(the API key with public key check-owner was refused: check EVENTS_API_PUBLIC_KEY and EVENTS_API_PRIVATE_KEY\)$/,
        ) as string,
      },
    ]);
    expect(results.filter((r) => r.outcome === 'skipped').map((r) => r.subject)).toEqual([
      `org:${ORG}`,
      `group:${READABLE}`,
      `group:${UNREADABLE}`,
    ]);
    expect(text).toMatch(/^PROBLEM {2}credential default: /m);
    expect(text + JSON.stringify(results)).not.toContain('not-the-private-key');
  });

  it('a project the key cannot read: its own line, naming the role it needs', async () => {
    const { code, results } = await check(env(ONE_PROJECT, { EVENTS_SCOPES: `group:${READABLE},group:${UNREADABLE}` }));
    expect(code).toBe(1);
    expect(results.find((r) => r.subject === `group:${READABLE}`)!.outcome).toBe('ok');
    expect(problems(results)).toEqual([
      {
        subject: `group:${UNREADABLE}`,
        outcome: 'problem',
        detail: expect.stringMatching(
          /401 USER_CANNOT_ACCESS_GROUP: .*give it Project Read Only on the project, or drop the scope\)$/,
        ) as string,
      },
    ]);
  });

  it('an unmigrated warehouse: says to run migrate, and migrates nothing', async () => {
    const { code, results } = await check(env(OWNER, { DATABASE_URL: unmigrated.url }));
    expect(code).toBe(1);
    expect(problems(results)).toEqual([
      { subject: 'warehouse', outcome: 'problem', detail: 'warehouse events_mirror is not migrated: run npx events-mirror migrate' },
    ]);
    const client = new pg.Client({ connectionString: unmigrated.url });
    await client.connect();
    try {
      const { rows } = await client.query<{ n: number }>(`select count(*)::int as n from pg_namespace where nspname = 'events_mirror'`);
      expect(rows[0]!.n).toBe(0);
    } finally {
      await client.end();
    }
  });

  it('a role without the privileges a sync uses: names them and the GRANT', async () => {
    const role = `em_check_${Date.now().toString(36)}`;
    const admin = new pg.Client({ connectionString: migrated.url });
    await admin.connect();
    try {
      await admin.query(`create role ${role} login password 'role-password-9'`);
      await admin.query(`grant usage on schema events_mirror to ${role}`);
      await admin.query(`grant select on all tables in schema events_mirror to ${role}`);
      const url = new URL(migrated.url);
      url.username = role;
      url.password = 'role-password-9';
      const { code, results } = await check(env(OWNER, { DATABASE_URL: url.toString() }));
      expect(code).toBe(1);
      const [warehouse] = problems(results);
      expect(warehouse!.subject).toBe('warehouse');
      expect(warehouse!.detail).toMatch(new RegExp(`role ${role} lacks DELETE on \\w+, INSERT on \\w+`));
      expect(warehouse!.detail).toContain(`GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA events_mirror TO ${role}`);
      expect(JSON.stringify(results)).not.toContain('role-password-9');
    } finally {
      await admin.query(`drop owned by ${role}`).catch(() => undefined);
      await admin.query(`drop role if exists ${role}`).catch(() => undefined);
      await admin.end();
    }
  });

  it('an unreachable Redis: its own line with the fix', async () => {
    const { code, results } = await check(env(OWNER, { REDIS_URL: `redis://127.0.0.1:${closedPort}` }));
    expect(code).toBe(1);
    expect(problems(results)).toEqual([
      {
        subject: 'redis',
        outcome: 'problem',
        detail: `redis://127.0.0.1:${closedPort} does not answer (ECONNREFUSED): start Redis, or fix REDIS_URL`,
      },
    ]);
  });
});
