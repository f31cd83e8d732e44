/**
 * One test per message of docs/troubleshooting.md (and the other messages a
 * new user meets), each through the real CLI against a real emulator, PostgreSQL and Redis port.
 * The cases of sync-cli-errors.test.ts (bad scope, bad date, --from after --to, missing key pair
 * for sync, no scopes for sync, unknown option) are not repeated here.
 */
import { writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError } from '../../src/api/api-error.js';
import { createEventsClient } from '../../src/api/client.js';
import { loadConfig } from '../../src/config.js';
import { startEmulator, type RunningEmulator } from '../../src/emulator/server.js';
import { silentLogger } from '../../src/logger.js';
import { parseScope } from '../../src/scope.js';
import { scopeLockFor } from '../../src/sync/lock.js';
import { createWarehouse, type Warehouse } from '../../src/warehouse/database.js';
import { runCli, writeConfigFile, type CliResult } from '../helpers/cli.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { startSyncFixture, type SyncFixture } from '../helpers/sync-fixture.js';

const ORG = 'orgone';
const GROUP = 'grpone'; // the error cases
const LOCKED_GROUP = 'grptwo'; // held by the test of a busy scope
const MALFORMED_GROUP = 'grpthree'; // read by the test of the malformed-events warning
const OWNER = { publicKey: 'owner', privateKey: 'owner-secret-1', roles: [{ orgId: ORG, roleName: 'ORG_OWNER' }] };
const NO_ROLE = { publicKey: 'billing', privateKey: 'billing-secret-2', roles: [{ orgId: ORG, roleName: 'ORG_BILLING_ADMIN' }] };
const FENCED = { ...OWNER, publicKey: 'fenced', privateKey: 'fenced-secret-3', accessList: ['10.9.9.9'] };
const ALLOWED = { ...OWNER, publicKey: 'allowed', privateKey: 'allowed-secret-4', accessList: ['127.0.0.1'] };

let fixture: SyncFixture;
let limited: RunningEmulator;
let unmigrated: TestDatabase;
let newer: TestDatabase;
let busyPort: Server;

beforeAll(async () => {
  [fixture, limited, unmigrated, newer] = await Promise.all([
    startSyncFixture({
      seed: 11,
      orgs: [ORG],
      groups: [GROUP, LOCKED_GROUP, MALFORMED_GROUP],
      eventsPerScope: 200,
      days: 2,
      keys: [OWNER, NO_ROLE, FENCED, ALLOWED],
      faults: { malformedRate: 0.1 },
    }),
    startEmulator({ port: 0, seed: 12, orgs: [ORG], groups: [GROUP], eventsPerScope: 50, days: 2, faults: { rate429: 1 } }),
    createTestDatabase(),
    createTestDatabase(),
  ]);
  const warehouse = await createWarehouse({ url: newer.url, schema: 'events_mirror', dataDir: 'unused' });
  const { migrateToLatest } = await import('../../src/warehouse/migrator.js');
  await migrateToLatest(warehouse);
  await warehouse.db
    .insertInto('kysely_migration' as never)
    .values({ name: '2099_01_01_000000_from_the_future', timestamp: new Date().toISOString() })
    .execute();
  await warehouse.close();
  busyPort = createServer();
  await new Promise<void>((resolve) => busyPort.listen(0, '127.0.0.1', resolve));
}, 60_000);

afterAll(async () => {
  await Promise.all([fixture?.close(), limited?.close(), unmigrated?.drop(), newer?.drop()]);
  await new Promise((resolve) => busyPort?.close(resolve));
});

/** The environment for a key of the main emulator (no EVENTS_SCOPES: each case names its scope). */
function envFor(key: { publicKey: string; privateKey: string }, extra: Record<string, string> = {}): Record<string, string> {
  return { ...fixture.env, EVENTS_API_PUBLIC_KEY: key.publicKey, EVENTS_API_PRIVATE_KEY: key.privateKey, EVENTS_SCOPES: '', ...extra };
}

/** A one-window backfill: its failure is the command's one line. */
function backfill(scope: string, env: Record<string, string>): Promise<CliResult> {
  const from = new Date(Date.now() - 3_600_000).toISOString().replace(/\.\d+Z$/, 'Z');
  // The scope is configured: backfill refuses a scope the mirror does not know (exit 2) before any request.
  return runCli(['backfill', '--scope', scope, '--from', from], { ...env, EVENTS_SCOPES: scope });
}

/** stderr is exactly one line, `events-mirror: …`, and it is returned without the prefix. */
function oneLine(result: CliResult): string {
  const lines = result.stderr.split('\n').filter((line) => line !== '');
  expect(lines, result.stderr).toHaveLength(1);
  expect(lines[0]).toMatch(/^events-mirror: /);
  return lines[0]!.slice('events-mirror: '.length);
}

/** For usage errors: the first line, then only usage. */
function firstLineThenUsage(result: CliResult): string {
  const [first, ...rest] = result.stderr.split('\n');
  expect(rest.join('\n')).toMatch(/^\s*Usage: events-mirror /);
  return first!;
}

describe('configuration and arguments: one line, exit 2', () => {
  it.concurrent('missing API key pair (worker)', async () => {
    const result = await runCli(['worker'], { EVENTS_API_PUBLIC_KEY: 'p', DATABASE_URL: 'postgres://127.0.0.1:1/x' });
    expect(result.code).toBe(2);
    expect(oneLine(result)).toBe(
      "missing API key pair: set EVENTS_API_PRIVATE_KEY (or EVENTS_API_PRIVATE_KEY_FILE) (the API key's public and private key)",
    );
  });

  it.concurrent('no scopes configured (scheduler --once)', async () => {
    const result = await runCli(['scheduler', '--once'], {});
    expect(result.code).toBe(2);
    expect(oneLine(result)).toMatch(
      /^no scopes configured: set EVENTS_SCOPES to a comma list of `org:<orgId>` or `group:<groupId>`.*, or "scopes" in a config file$/,
    );
  });

  it.concurrent('invalid configuration: a value of the wrong form names the key and its variable', async () => {
    const result = await runCli(['status'], { DATABASE_URL: 'localhost/warehouse' });
    expect(result.code).toBe(2);
    expect(oneLine(result)).toBe(
      'invalid configuration: database.url (DATABASE_URL): expected a URL such as postgres://user:password@host:5432/database',
    );
  });

  it.concurrent('invalid configuration: an unknown key in a config file names the keys it could be', async () => {
    const result = await runCli(['status'], { EVENTS_MIRROR_CONFIG: writeConfigFile({ sync: { windowSecs: 60 } }) });
    expect(result.code).toBe(2);
    expect(oneLine(result)).toMatch(/^invalid configuration: sync\.windowSecs: unknown key; sync takes startDate, .*windowSeconds.*$/);
  });

  it.concurrent('invalid configuration: a whole number variable that is not one', async () => {
    const result = await runCli(['status'], { EVENTS_LOOKBACK_SECONDS: '15m' });
    expect(result.code).toBe(2);
    expect(oneLine(result)).toBe('EVENTS_LOOKBACK_SECONDS="15m": expected a whole number such as 900');
  });

  it.concurrent('a config file that does not exist', async () => {
    const result = await runCli(['status'], { EVENTS_MIRROR_CONFIG: '/nonexistent/events-mirror.json' });
    expect(result.code).toBe(2);
    expect(oneLine(result)).toBe(
      'config file /nonexistent/events-mirror.json (EVENTS_MIRROR_CONFIG) does not exist: fix the path or unset the variable',
    );
  });

  it.concurrent('a config file that is not JSON, without quoting the file', async () => {
    const file = writeConfigFile({});
    writeFileSync(file, '{"api": {"publicKey": "pk"} oops}\n');
    const result = await runCli(['status'], { EVENTS_MIRROR_CONFIG: file });
    expect(result.code).toBe(2);
    const line = oneLine(result);
    expect(line).toMatch(new RegExp(`^config file ${file} is not valid JSON \\(.+ at position \\d+.*\\): fix the file$`));
    expect(line).not.toContain('oops');
  });

  it.concurrent('a private key in a config file', async () => {
    const file = writeConfigFile({ api: { publicKey: 'pk', privateKey: 'do-not-print-me' } });
    const result = await runCli(['sync', '--once'], { EVENTS_MIRROR_CONFIG: file });
    expect(result.code).toBe(2);
    const line = oneLine(result);
    expect(line).toBe(
      `config file ${file} sets api.privateKey: secrets come from the environment only; remove it and set EVENTS_API_PRIVATE_KEY`,
    );
    expect(result.stderr + result.stdout).not.toContain('do-not-print-me');
  });

  it.concurrent('a bad flag value prints the problem, then usage', async () => {
    const result = await runCli(['demo', '--days', '0'], {});
    expect(result.code).toBe(2);
    expect(firstLineThenUsage(result)).toBe("error: option '--days <n>' argument '0' is invalid. expected a whole number of 1 or more.");
    expect(result.stdout).toBe('');
  });

  it.concurrent('a bad emulator flag prints the problem, then usage', async () => {
    const result = await runCli(['emulator', '--fault-429-rate', '1.5'], {});
    expect(result.code).toBe(2);
    expect(firstLineThenUsage(result)).toBe('events-mirror: --fault-429-rate must be a number from 0 to 1, got "1.5"');
  });

  it.concurrent('an emulator port already in use', async () => {
    const port = (busyPort.address() as { port: number }).port;
    const result = await runCli(['emulator', '--port', String(port)], {});
    expect(result.code).toBe(2);
    expect(oneLine(result)).toBe(`port ${port} on 127.0.0.1 is in use: pick another --port (0 picks a free one)`);
  });

  it.concurrent('an emulator keys file with an unknown role names the entry and the roles', async () => {
    const file = writeConfigFile([{ publicKey: 'a', privateKey: 'b', roles: [{ orgId: 'o', roleName: 'ORG_ADMIN' }] }]);
    const result = await runCli(['emulator', '--keys', file], {});
    expect(result.code).toBe(2);
    expect(oneLine(result)).toMatch(
      new RegExp(`^keys file ${file} is invalid at 0\\.roles\\.0: a role is \\{orgId, roleName: ORG_OWNER\\|.*GROUP_CLUSTER_MANAGER\\}\\.`),
    );
  });

  it.concurrent('EVENTS_API_CA_FILE that holds no PEM certificate', async () => {
    const file = writeConfigFile({});
    writeFileSync(file, 'not a certificate\n');
    const result = await runCli(['sync', '--once'], { ...envFor(OWNER), EVENTS_SCOPES: `group:${GROUP}`, EVENTS_API_CA_FILE: file });
    expect(result.code).toBe(2);
    expect(oneLine(result)).toBe(
      `EVENTS_API_CA_FILE ${file} holds no PEM certificate (expected -----BEGIN CERTIFICATE-----): point it at the certificate authority's PEM file`,
    );
  });

  it.concurrent('EVENTS_API_CA_FILE that cannot be read', async () => {
    const result = await runCli(['sync', '--once'], {
      ...envFor(OWNER),
      EVENTS_SCOPES: `group:${GROUP}`,
      EVENTS_API_CA_FILE: '/nonexistent/ca.pem',
    });
    expect(result.code).toBe(2);
    expect(oneLine(result)).toMatch(/^EVENTS_API_CA_FILE \/nonexistent\/ca\.pem cannot be read \(ENOENT: .*\): fix the path$/);
  });
});

describe('the API: one line naming the scope, the answer and the fix, exit 1', () => {
  it.concurrent('a wrong private key', async () => {
    const result = await backfill(`group:${GROUP}`, envFor({ publicKey: OWNER.publicKey, privateKey: 'wrong-private-key' }));
    expect(result.code).toBe(1);
    const line = oneLine(result);
    expect(line).toMatch(
      /^GET \/groups\/grpone\/events\?\S+ for group:grpone failed: 401: Digest credentials rejected \(the API key with public key owner was refused: check EVENTS_API_PUBLIC_KEY and EVENTS_API_PRIVATE_KEY\)$/,
    );
    expect(result.stderr + result.stdout).not.toContain('wrong-private-key');
  });

  it.concurrent('a key without a role on the project: 401 USER_CANNOT_ACCESS_GROUP', async () => {
    const result = await backfill(`group:${GROUP}`, envFor(NO_ROLE));
    expect(result.code).toBe(1);
    expect(oneLine(result)).toMatch(
      /for group:grpone failed: 401 USER_CANNOT_ACCESS_GROUP: .+ \(the API key or service account has no role that reads this feed: give it Project Read Only on the project, or drop the scope\)$/,
    );
  });

  it.concurrent('a key without a reading role in the organization: 401 USER_CANNOT_ACCESS_ORG', async () => {
    const result = await backfill(`org:${ORG}`, envFor(NO_ROLE));
    expect(result.code).toBe(1);
    expect(oneLine(result)).toMatch(
      /for org:orgone failed: 401 USER_CANNOT_ACCESS_ORG: .+ \(the API key or service account has no role that reads this feed: give it Organization Member of the organization, or drop the scope\)$/,
    );
  });

  it.concurrent("a host not on the key's access list: 403 IP_ADDRESS_NOT_ON_WHITELIST", async () => {
    const result = await backfill(`group:${GROUP}`, envFor(FENCED));
    expect(result.code).toBe(1);
    expect(oneLine(result)).toMatch(
      /for group:grpone failed: 403 IP_ADDRESS_NOT_ON_WHITELIST: IP address 127\.0\.0\.1 is not allowed to access this resource\. \(this host's IP address is not on the API key's access list: add it there\)$/,
    );
  });

  it.concurrent("a host on the key's access list is served (the control of the case above)", async () => {
    const client = createEventsClient(loadConfig({ env: envFor(ALLOWED) }), { logger: silentLogger() });
    try {
      const page = await client.listEvents(parseScope(`group:${GROUP}`), { itemsPerPage: 1 });
      expect(page.events.length + page.rejected.length).toBe(1);
      const fenced = createEventsClient(loadConfig({ env: envFor(FENCED) }), { logger: silentLogger() });
      const error = await fenced
        .listEvents(parseScope(`group:${GROUP}`), {})
        .catch((e: unknown) => e)
        .finally(() => fenced.close());
      expect(error).toBeInstanceOf(ApiError);
      expect(error).toMatchObject({ status: 403, errorCode: 'IP_ADDRESS_NOT_ON_WHITELIST' });
    } finally {
      await client.close();
    }
  });

  it.concurrent('an unknown project id: 404 GROUP_NOT_FOUND', async () => {
    const result = await backfill('group:nosuchproject', envFor(OWNER));
    expect(result.code).toBe(1);
    expect(oneLine(result)).toMatch(
      /for group:nosuchproject failed: 404 GROUP_NOT_FOUND: No group with ID nosuchproject exists\. \(no project has this id: fix the scope in EVENTS_SCOPES or --scope\)$/,
    );
  });

  it.concurrent('an unknown organization id: 404 ORG_NOT_FOUND, recorded and shown by status', async () => {
    const env = envFor(OWNER, { EVENTS_SCOPES: 'org:nosuchorg', EVENTS_MIRROR_CONFIG: writeConfigFile({ sync: { settleSeconds: 0 } }) });
    const sync = await runCli(['sync', '--once'], env);
    expect(sync.code).toBe(1);
    // The problem is said once above the summary, whose row says only that the scope failed;
    // `status --scope` prints the whole error.
    expect(sync.stdout).toMatch(/^PROBLEM {2}org:nosuchorg: 404 ORG_NOT_FOUND: /m);
    expect(sync.stdout).toMatch(/^org:nosuchorg .* failed$/m);
    expect(sync.stderr, 'our own failures are logged without a stack').not.toMatch(/"stack"|\n\s+at /);
    // `status` counts it by its code; `--failing` shows its answer, cut to the cell.
    const status = await runCli(['status'], env);
    expect(status.code).toBe(1);
    expect(status.stdout).toMatch(/^org:nosuchorg .*failing/m);
    expect(status.stdout).toContain('API_ORG_NOT_FOUND');
    const failing = await runCli(['status', '--failing'], env);
    expect(failing.stdout).toMatch(/org:nosuchorg .*404 ORG_NOT_FOUND/);
    const detail = await runCli(['status', '--scope', 'org:nosuchorg'], env);
    expect(detail.code).toBe(1);
    expect(detail.stdout).toMatch(
      /GET \/orgs\/nosuchorg\/events\?\S+ for org:nosuchorg failed: 404 ORG_NOT_FOUND: .+ \(no organization has this id: fix the scope in EVENTS_SCOPES or --scope\)/,
    );
  });

  it.concurrent('a base URL without /api/public/v1.0: 404 RESOURCE_NOT_FOUND', async () => {
    const result = await backfill(`group:${GROUP}`, envFor(OWNER, { EVENTS_API_BASE_URL: fixture.emulator.url }));
    expect(result.code).toBe(1);
    expect(oneLine(result)).toMatch(
      /failed: 404 RESOURCE_NOT_FOUND: .+ \(check EVENTS_API_BASE_URL \(or the credential's baseUrl\): it ends with \/api\/public\/v1\.0 \(Cloud Manager, Ops Manager\), \/api\/atlas\/v1\.0 or \/api\/atlas\/v2 \(Atlas\)\)$/,
    );
  });

  it.concurrent('429s until the attempts run out: transient, says it gave up after N attempts', async () => {
    const key = limited.keys[0]!;
    const env = {
      ...envFor(key, { EVENTS_API_BASE_URL: limited.baseUrl }),
      EVENTS_MIRROR_CONFIG: writeConfigFile({ api: { maxAttempts: 3, baseRetryDelayMs: 5, maxRetryDelayMs: 20 } }),
    };
    const result = await backfill(`group:${GROUP}`, env);
    expect(result.code).toBe(1);
    expect(oneLine(result)).toMatch(/for group:grpone failed: 429 RATE_LIMITED: .+ \(gave up after 3 attempts in \d+ ms\)$/);
  });

  it.concurrent('an API host that refuses connections names EVENTS_API_BASE_URL', async () => {
    const env = {
      ...envFor(OWNER, { EVENTS_API_BASE_URL: 'http://127.0.0.1:1/api/public/v1.0' }),
      EVENTS_MIRROR_CONFIG: writeConfigFile({ api: { maxAttempts: 2, baseRetryDelayMs: 5, maxRetryDelayMs: 10 } }),
    };
    const result = await backfill(`group:${GROUP}`, env);
    expect(result.code).toBe(1);
    expect(oneLine(result)).toMatch(
      /failed: ECONNREFUSED \(connection refused; check EVENTS_API_BASE_URL\) \(gave up after 2 attempts in \d+ ms\)$/,
    );
  });
});

describe('the warehouse and Redis: one line with what to do, exit 1', () => {
  it.concurrent('PostgreSQL unreachable', async () => {
    const result = await runCli(['status'], { DATABASE_URL: 'postgres://127.0.0.1:1/warehouse' });
    expect(result.code).toBe(1);
    expect(oneLine(result)).toBe(
      'cannot open the warehouse at postgres://127.0.0.1:1/warehouse: connect ECONNREFUSED 127.0.0.1:1; check DATABASE_URL',
    );
  });

  it.concurrent('a warehouse that is not migrated', async () => {
    const result = await runCli(['sync', '--once'], { ...envFor(OWNER), EVENTS_SCOPES: `group:${GROUP}`, DATABASE_URL: unmigrated.url });
    expect(result.code).toBe(1);
    expect(oneLine(result)).toBe('warehouse events_mirror is not migrated: run npx events-mirror migrate');
  });

  it.concurrent('a warehouse migrated by a newer events-mirror', async () => {
    const result = await runCli(['migrate'], { DATABASE_URL: newer.url });
    expect(result.code).toBe(1);
    expect(oneLine(result)).toBe(
      'warehouse events_mirror is newer than this events-mirror: it has migrations this version does not know (2099_01_01_000000_from_the_future); upgrade events-mirror',
    );
  });

  it.concurrent(
    'Redis unreachable for a one-shot command: no stack traces, then one line',
    async () => {
      const result = await runCli(['scheduler', '--once'], { EVENTS_SCOPES: `group:${GROUP}`, REDIS_URL: 'redis://127.0.0.1:1' });
      expect(result.code).toBe(1);
      expect(result.stderr).not.toMatch(/\n\s+at /);
      const lines = result.stderr.trim().split('\n');
      expect(lines.at(-1)).toBe(
        'events-mirror: Redis at redis://127.0.0.1:1 did not answer within 10000 ms: check REDIS_URL and that Redis is running',
      );
      // Before it, at most the one warning that Redis is down.
      expect(lines.slice(0, -1).every((line) => line.includes('unreachable: retrying until it is back'))).toBe(true);
    },
    // The command waits 10 s for Redis on purpose; the rest is start-up, slow when the suite runs files in parallel.
    60_000,
  );
});

describe('warnings and notes of a run that goes on', () => {
  it.concurrent('malformed events are set aside with the reason, and the run succeeds', async () => {
    const result = await runCli(['sync', '--once', '--scope', `group:${MALFORMED_GROUP}`], fixture.envWith({}));
    expect(result.code).toBe(0);
    const warnings = result.stderr.split('\n').filter((line) => line.includes('set aside in rejected_events'));
    expect(warnings.length).toBeGreaterThan(0);
    const { level, msg } = JSON.parse(warnings[0]!) as { level: number; msg: string };
    expect(level).toBe(40);
    expect(msg).toMatch(/^group:grpthree: \d+ events? set aside in rejected_events \((?:id|created)[^)]*\); the rest of the page landed$/);
  });

  it.concurrent('a scope another runner holds is skipped, not failed', async () => {
    let warehouse: Warehouse | undefined;
    try {
      warehouse = await createWarehouse({ url: fixture.database.url, schema: 'events_mirror', dataDir: 'unused' });
      const release = await scopeLockFor(warehouse).tryAcquire(`group:${LOCKED_GROUP}`);
      expect(release).toBeDefined();
      const result = await runCli(['sync', '--once', '--scope', `group:${LOCKED_GROUP}`], { ...fixture.envWith({}), LOG_LEVEL: 'info' });
      await release?.();
      expect(result.code).toBe(0);
      expect(result.stderr).toContain('group:grptwo is already being synced by another runner: skipped');
      expect(result.stdout).toMatch(/group:grptwo .*skipped/);
    } finally {
      await warehouse?.close();
    }
  });
});
