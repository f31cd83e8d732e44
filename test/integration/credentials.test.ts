/**
 * Several credentials: two organizations, each read only by its own credential (a key pair for one,
 * a service account for the other), every project discovered and mirrored, no default key at all;
 * the service account's tokens are minted once per lifetime, replaced when revoked, and the token
 * endpoint's 429 is waited out. No secret and no token reaches the output or the warehouse.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { ApiError } from '../../src/api/api-error.js';
import { EventsClient } from '../../src/api/client.js';
import { startEmulator, type ApiKeyGrant, type RunningEmulator, type ServiceAccountGrant } from '../../src/emulator/server.js';
import { parseScope } from '../../src/scope.js';
import { createWarehouse } from '../../src/warehouse/database.js';
import { runCli } from '../helpers/cli.js';
import { expectMirrorEqualsEmulator } from '../helpers/mirror.js';
import { daysAgo, startSyncFixture, type SyncFixture } from '../helpers/sync-fixture.js';

const ORG_A = '5f0000000000000000000161';
const ORG_B = '5f0000000000000000000162';
const ORG_C = '5f0000000000000000000163';
const ACME: ApiKeyGrant = { publicKey: 'acmekeys', privateKey: 'acme-private-4f1d9c', roles: [{ orgId: ORG_A, roleName: 'ORG_OWNER' }] };
const CORP: ApiKeyGrant = { publicKey: 'corpkeys', privateKey: 'corp-private-88a0b3', roles: [{ orgId: ORG_C, roleName: 'ORG_OWNER' }] };
const BETA: ServiceAccountGrant = {
  clientId: 'mdb_sa_id_beta01',
  clientSecret: 'mdb_sa_sk_beta-secret-77e2',
  roles: [{ orgId: ORG_B, roleName: 'ORG_OWNER' }],
};

const cleanups: Array<() => Promise<unknown>> = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

describe('one credential per organization', () => {
  it('mirrors three organizations and all their projects, each with its own key pair or service account, and leaks no secret', async () => {
    const fixture: SyncFixture = await startSyncFixture(
      {
        seed: 161,
        orgs: [ORG_A, ORG_B, ORG_C],
        projects: [
          { id: '6a0000000000000000000161', orgId: ORG_A, name: 'A one' },
          { id: '6a0000000000000000000162', orgId: ORG_A, name: 'A two' },
          { id: '6a0000000000000000000163', orgId: ORG_B, name: 'B one' },
          { id: '6a0000000000000000000164', orgId: ORG_C, name: 'C one' },
        ],
        eventsPerScope: 600,
        days: 2,
        keys: [ACME, CORP],
        serviceAccounts: [BETA],
      },
      { EVENTS_START_DATE: daysAgo(3).toISOString() },
    );
    cleanups.push(() => fixture.close());
    const secretDir = mkdtempSync(path.join(tmpdir(), 'em-secret-'));
    const secretFile = path.join(secretDir, 'beta-secret');
    writeFileSync(secretFile, `${BETA.clientSecret}\n`);
    const corpKeyFile = path.join(secretDir, 'corp-private-key');
    writeFileSync(corpKeyFile, CORP.privateKey);
    const env = {
      ...fixture.envWith({
        api: { itemsPerPage: 100 },
        credentials: {
          acme: { publicKey: ACME.publicKey, privateKeyEnv: 'ACME_PRIVATE_KEY' },
          beta: { type: 'serviceAccount', clientIdEnv: 'BETA_CLIENT_ID', clientSecretFile: secretFile },
          corp: { publicKeyEnv: 'CORP_PUBLIC_KEY', privateKeyFile: corpKeyFile },
        },
        scopes: [
          { scope: `org:${ORG_A}`, credential: 'acme', discoverProjects: true },
          { scope: `org:${ORG_B}`, credential: 'beta', discoverProjects: true },
          { scope: `org:${ORG_C}`, credential: 'corp', discoverProjects: true },
        ],
      }),
      EVENTS_SCOPES: undefined,
      EVENTS_API_PUBLIC_KEY: undefined,
      EVENTS_API_PRIVATE_KEY: undefined,
      ACME_PRIVATE_KEY: ACME.privateKey,
      BETA_CLIENT_ID: BETA.clientId,
      CORP_PUBLIC_KEY: CORP.publicKey,
      LOG_LEVEL: 'debug',
    };
    const result = await runCli(['sync', '--once'], env);
    expect(result.code, result.stderr).toBe(0);

    const warehouse = await createWarehouse({ url: fixture.database.url, schema: 'events_mirror', dataDir: 'unused' });
    cleanups.push(() => warehouse.close());
    await expectMirrorEqualsEmulator(warehouse.db, fixture.emulator.dataset, fixture.emulator.dataset.scopes());

    const tokens = fixture.emulator.tokens();
    const requests = fixture.emulator.stats().requests;
    expect(tokens.issued, `one token for ${requests} requests`).toBe(1);
    const { rows } = await sql<{ text: string }>`
      select coalesce(string_agg(r::text, ' '), '') as text from (
        select row_to_json(s)::text as r from events_mirror.sync_runs s
        union all select row_to_json(t)::text from events_mirror.sync_state t
        union all select row_to_json(k)::text from events_mirror.scopes k) all_rows`.execute(warehouse.db);
    for (const secret of [ACME.privateKey, CORP.privateKey, BETA.clientSecret, ...tokens.all]) {
      expect(result.stdout + result.stderr, 'output').not.toContain(secret);
      expect(rows[0]?.text, 'warehouse').not.toContain(secret);
    }
  });

  it('refuses a credential whose secret variable is unset, naming the credential and the variable', async () => {
    const result = await runCli(['status'], {
      DATABASE_URL: 'postgres://127.0.0.1:1/never',
      EVENTS_MIRROR_CONFIG: path.join(
        writeConfigDir({ credentials: { acme: { publicKey: 'acmekeys', privateKeyEnv: 'ACME_PRIVATE_KEY_UNSET' } } }),
        'config.json',
      ),
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('credentials.acme.privateKeyEnv: ACME_PRIVATE_KEY_UNSET is not set (nor ACME_PRIVATE_KEY_UNSET_FILE)');
  });
});

describe('service account tokens against the emulator', () => {
  let emulator: RunningEmulator;
  const scope = parseScope(`org:${ORG_B}`);
  const clientWith = (secret = BETA.clientSecret) =>
    new EventsClient({
      baseUrl: emulator.baseUrl,
      publicKey: '',
      privateKey: '',
      serviceAccount: { credential: 'beta', clientId: BETA.clientId, clientSecret: secret },
      retry: { maxAttempts: 2, baseDelayMs: 50, maxDelayMs: 100 },
    });

  it('mints once per token lifetime, replaces a revoked token, and waits out the endpoint’s 429', async () => {
    // Tokens live 3 s (renewed after 2.7 s); at most 1 token request every 4 s, so the renewal meets a 429.
    emulator = await startEmulator({
      port: 0,
      seed: 162,
      orgs: [ORG_B],
      eventsPerScope: 50,
      days: 1,
      serviceAccounts: [BETA],
      tokenLimits: { ttlSeconds: 3, perWindow: 1, windowSeconds: 4 },
    });
    cleanups.push(() => emulator.close());
    const client = clientWith();
    cleanups.push(() => client.close());
    let requests = 0;
    const until = Date.now() + 7_000;
    while (Date.now() < until) {
      const page = await client.listEvents(scope, { itemsPerPage: 10 });
      expect(page.events.length).toBe(10);
      requests += 1;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const { issued: minted, refused } = emulator.tokens();
    // 7 s of use: a token at 0 s, a renewal at 2.7 s refused (429, Retry-After 2 s) and minted at about 4.7 s.
    expect(refused, 'the token endpoint said 429 at least once').toBeGreaterThanOrEqual(1);
    expect(minted).toBeGreaterThanOrEqual(2);
    expect(minted).toBeLessThanOrEqual(3);
    expect(requests).toBeGreaterThan(minted * 5);

    // A fresh token revoked at once (a rotated secret): the next request hears 401 and replaces it.
    await new Promise((resolve) => setTimeout(resolve, 4_000)); // the old token lapses, the rate window clears
    expect((await client.listEvents(scope, { itemsPerPage: 10 })).events.length).toBe(10);
    const before = emulator.tokens().issued;
    expect(emulator.revokeTokens(BETA.clientId)).toBeGreaterThan(0);
    const after = await client.listEvents(scope, { itemsPerPage: 10 });
    expect(after.events.length).toBe(10);
    expect(emulator.tokens().issued).toBe(before + 1);
  }, 30_000);

  it('says which service account the token endpoint refused, without its secret', async () => {
    const client = clientWith('wrong-secret-value');
    try {
      const error = await client.listEvents(scope, { itemsPerPage: 10 }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ApiError);
      expect((error as Error).message).toContain(`service account ${BETA.clientId} (credential beta) failed: 401 invalid_client`);
      expect((error as Error).message).not.toContain('wrong-secret-value');
    } finally {
      await client.close();
    }
  });
});

function writeConfigDir(value: unknown): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'em-config-'));
  writeFileSync(path.join(dir, 'config.json'), JSON.stringify(value));
  return dir;
}
