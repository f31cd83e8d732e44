/**
 * A service account's token is minted again only when the token itself is refused. A 401
 * `USER_CANNOT_ACCESS_GROUP` for a project the account has no role on is that scope's answer:
 * it used to throw the shared token away on every poll of every unreadable scope, until the token
 * endpoint's limit stopped the readable scope too. The emulator over real HTTP, its token endpoint
 * counting the tokens minted; the CLI polling into a real PostgreSQL warehouse.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ServiceAccountGrant } from '../../src/emulator/server.js';
import { spawnCli, waitForExit } from '../helpers/cli.js';
import { mirroredIds } from '../helpers/mirror.js';
import { daysAgo, startSyncFixture, type SyncFixture } from '../helpers/sync-fixture.js';
import { createWarehouse, type Warehouse } from '../../src/warehouse/database.js';

const ORG = '5f00000000000000000003b0';
const READABLE = 'group:6a00000000000000000003b1';
const UNREADABLE = ['group:6a00000000000000000003b2', 'group:6a00000000000000000003b3'];
const ACCOUNT: ServiceAccountGrant = {
  clientId: 'mdb_sa_id_churn01',
  clientSecret: 'mdb_sa_sk_churn-secret-5d1c',
  roles: [{ groupId: READABLE.slice(6), roleName: 'GROUP_READ_ONLY' }],
};
const PASSES = 3;

describe('service account token refusals', () => {
  let fixture: SyncFixture;
  let warehouse: Warehouse;

  beforeAll(async () => {
    fixture = await startSyncFixture(
      {
        seed: 303,
        orgs: [ORG],
        groups: [READABLE, ...UNREADABLE].map((scope) => scope.slice(6)),
        eventsPerScope: 200,
        days: 1,
        serviceAccounts: [ACCOUNT],
      },
      { EVENTS_START_DATE: daysAgo(2).toISOString() },
    );
    warehouse = await createWarehouse({ url: fixture.database.url, schema: 'events_mirror', dataDir: 'unused' });
  });
  afterAll(async () => {
    await warehouse?.close();
    await fixture?.close();
  });

  it('keeps its one token while two of three scopes answer USER_CANNOT_ACCESS_GROUP on every poll, and the readable scope syncs', async () => {
    const child = spawnCli(['sync'], {
      ...fixture.envWith({
        credentials: { sa: { type: 'serviceAccount', clientId: ACCOUNT.clientId, clientSecretEnv: 'SA_SECRET' } },
        scopes: [READABLE, ...UNREADABLE].map((scope) => ({ scope, credential: 'sa' })),
      }),
      EVENTS_SCOPES: undefined,
      EVENTS_API_PUBLIC_KEY: undefined,
      EVENTS_API_PRIVATE_KEY: undefined,
      EVENTS_POLL_INTERVAL_SECONDS: '1',
      SA_SECRET: ACCOUNT.clientSecret,
      LOG_LEVEL: 'info',
    });
    const exited = waitForExit(child);
    let stdout = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      if ((stdout.match(/scopes failed[^\n]*\n/g) ?? []).length >= PASSES) child.kill('SIGINT');
    });
    const result = await exited;
    expect(result.signal, result.stderr).toBeNull();

    const summaries = result.stdout.split(/scopes failed[^\n]*\n/).slice(0, PASSES);
    expect(summaries).toHaveLength(PASSES);
    for (const summary of summaries) {
      expect(summary).toMatch(new RegExp(`^${READABLE} .* succeeded$`, 'm'));
      for (const scope of UNREADABLE) expect(summary).toMatch(new RegExp(`^${scope} .* failed$`, 'm'));
      // One problem for the credential, above the summary, names the service's answer.
      expect(summary).toMatch(/^PROBLEM .*USER_CANNOT_ACCESS_GROUP/m);
    }
    const { issued, refused } = fixture.emulator.tokens();
    expect({ issued, refused }, `tokens minted over ${PASSES} passes`).toEqual({ issued: 1, refused: 0 });
    expect(result.stderr).not.toContain('minting a new one');
    expect(await mirroredIds(warehouse.db, READABLE)).toEqual([...fixture.emulator.dataset.validIds(READABLE)].sort());
    for (const scope of UNREADABLE) expect(await mirroredIds(warehouse.db, scope)).toEqual([]);
  }, 300_000);
});
