/**
 * A project the mirror discovered can be named alone: `reconcile`, `backfill` and `sync` take
 * `--scope group:<a discovered project>` and read it with its organization's credential (here the
 * only one: there is no default key pair), recovering events published late; a scope neither
 * configured nor discovered is refused, naming the fix.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiKeyGrant } from '../../src/emulator/server.js';
import { createWarehouse, type Warehouse } from '../../src/warehouse/database.js';
import { runCli } from '../helpers/cli.js';
import { expectMirrorEqualsEmulator, mirroredIds } from '../helpers/mirror.js';
import { daysAgo, startSyncFixture, type SyncFixture } from '../helpers/sync-fixture.js';

const HOUR = 3_600_000;
const ORG = '5f0000000000000000000471';
const [PAYMENTS, STOREFRONT] = ['6a0000000000000000000471', '6a0000000000000000000472'];
const ACME: ApiKeyGrant = { publicKey: 'acmekeys47', privateKey: 'acme-private-47', roles: [{ orgId: ORG, roleName: 'ORG_OWNER' }] };

describe('--scope naming a discovered project', () => {
  let fixture: SyncFixture;
  let warehouse: Warehouse;
  let env: Record<string, string | undefined>;

  beforeAll(async () => {
    fixture = await startSyncFixture(
      {
        seed: 471,
        orgs: [ORG],
        projects: [
          { id: PAYMENTS, orgId: ORG, name: 'Payments' },
          { id: STOREFRONT, orgId: ORG, name: 'Storefront' },
        ],
        eventsPerScope: 200,
        days: 2,
        keys: [ACME],
      },
      { EVENTS_START_DATE: daysAgo(3).toISOString() },
    );
    env = {
      ...fixture.envWith({
        sync: { lookbackSeconds: 60 },
        credentials: { acme: { publicKey: ACME.publicKey, privateKeyEnv: 'ACME_PRIVATE_KEY' } },
        scopes: [{ scope: `org:${ORG}`, credential: 'acme', discoverProjects: true }],
      }),
      EVENTS_SCOPES: undefined,
      EVENTS_API_PUBLIC_KEY: undefined,
      EVENTS_API_PRIVATE_KEY: undefined,
      ACME_PRIVATE_KEY: ACME.privateKey,
    };
    warehouse = await createWarehouse({ url: fixture.database.url, schema: 'events_mirror', dataDir: 'unused' });
    const first = await runCli(['sync', '--once'], env);
    expect(first.code, first.stderr).toBe(0);
  });
  afterAll(async () => {
    await warehouse?.close();
    await fixture?.close();
  });

  /** Events published now but created hours ago: behind the lookback, so a sync misses them. */
  const publishLate = async (scope: string): Promise<string[]> => {
    const ids = fixture.emulator.dataset.addEvents(scope, 4, { createdMs: Date.now() - 30 * HOUR }).map((e) => e.id!);
    const synced = await runCli(['sync', '--once'], env);
    expect(synced.code, synced.stderr).toBe(0);
    const held = new Set(await mirroredIds(warehouse.db, scope));
    expect(
      ids.filter((id) => held.has(id)),
      'sync misses events published later than the lookback',
    ).toEqual([]);
    return ids;
  };

  it('reconcile --scope recovers a discovered project with its organization credential', async () => {
    const scope = `group:${PAYMENTS}`;
    await publishLate(scope);
    const result = await runCli(['reconcile', '--scope', scope], env);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain(scope);
    expect(result.stdout).not.toContain(`group:${STOREFRONT}`);
    await expectMirrorEqualsEmulator(warehouse.db, fixture.emulator.dataset, fixture.emulator.dataset.scopes());
  });

  it('backfill --scope re-reads a discovered project with its organization credential', async () => {
    const scope = `group:${STOREFRONT}`;
    await publishLate(scope);
    const result = await runCli(['backfill', '--scope', scope, '--from', daysAgo(3).toISOString()], env);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(new RegExp(`^backfilled ${scope} .*\\(4 new,`, 'm'));
    await expectMirrorEqualsEmulator(warehouse.db, fixture.emulator.dataset, fixture.emulator.dataset.scopes());
  });

  it('sync --once --scope syncs a discovered project alone', async () => {
    const result = await runCli(['sync', '--once', '--scope', `group:${PAYMENTS}`], env);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain(`group:${PAYMENTS}`);
    expect(result.stdout).not.toContain(`group:${STOREFRONT}`);
    expect(result.stdout).not.toContain(`org:${ORG}`);
  });

  it('refuses a scope neither configured nor discovered, naming the fix', async () => {
    const stranger = 'group:6a0000000000000000000479';
    for (const command of [['reconcile'], ['sync', '--once']]) {
      const result = await runCli([...command, '--scope', stranger], env);
      expect(result.code, result.stderr).toBe(2);
      expect(result.stderr).toContain(
        `--scope ${stranger} is neither configured (configured: org:${ORG}) nor a project a configured organization discovered: ` +
          'add it to EVENTS_SCOPES, or add its organization with discoverProjects and run npx events-mirror sync --once, or drop the flag',
      );
    }
    const orgDropped = {
      ...env,
      EVENTS_MIRROR_CONFIG: fixture.envWith({
        credentials: { acme: { publicKey: ACME.publicKey, privateKeyEnv: 'ACME_PRIVATE_KEY' } },
        scopes: [{ scope: `group:${PAYMENTS}`, credential: 'acme' }],
      }).EVENTS_MIRROR_CONFIG,
    };
    const orphan = await runCli(['reconcile', '--scope', `group:${STOREFRONT}`], orgDropped);
    expect(orphan.code, orphan.stderr).toBe(2);
    expect(orphan.stderr).toContain(
      `--scope group:${STOREFRONT} was discovered by org:${ORG}, which is no longer configured: ` +
        `add org:${ORG} (with discoverProjects) or group:${STOREFRONT} to EVENTS_SCOPES`,
    );
    const backfill = await runCli(['backfill', '--scope', stranger, '--from', daysAgo(1).toISOString()], env);
    expect(backfill.code).toBe(2);
    expect(backfill.stderr).toContain(`--scope ${stranger}: no such scope is configured or in the warehouse; known: group:${PAYMENTS}`);
  });
});
