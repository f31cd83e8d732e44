/**
 * A Cloud Manager-style organization on the v1 API and an Atlas organization on the v2 API,
 * mirrored side by side by one scheduler and two workers (real Redis, PostgreSQL and the emulator
 * over HTTP serving both dialects from one dataset), each organization read with its own named
 * credential, base URL and dialect, its projects discovered: the warehouse ends equal to the
 * emulator's data of both, and the workers read the Atlas source's event type catalogue.
 */
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import type { ApiKeyGrant } from '../../src/emulator/server.js';
import { createWarehouse } from '../../src/warehouse/database.js';
import { expectMirrorEqualsEmulator } from '../helpers/mirror.js';
import { failWhenAnyExits, freePort, obliterateSyncQueue, startCli, waitFor, type CliProcess } from '../helpers/queue-processes.js';
import { REDIS_URL } from '../helpers/services.js';
import { daysAgo, startSyncFixture } from '../helpers/sync-fixture.js';

const ORG_V1 = '5f0000000000000000000361';
const ORG_V2 = '5f0000000000000000000362';
const CLOUD: ApiKeyGrant = { publicKey: 'cloudkey', privateKey: 'cloud-private-36a1', roles: [{ orgId: ORG_V1, roleName: 'ORG_OWNER' }] };
const ATLAS: ApiKeyGrant = { publicKey: 'atlaskey', privateKey: 'atlas-private-36b2', roles: [{ orgId: ORG_V2, roleName: 'ORG_OWNER' }] };

const cleanups: Array<() => Promise<unknown>> = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

describe('v1 and Atlas v2 side by side in one fleet', () => {
  it('one scheduler and two workers mirror a v1 organization and an Atlas v2 organization, with their projects, equal to the emulator', async () => {
    const f = await startSyncFixture(
      {
        seed: 361,
        orgs: [ORG_V1, ORG_V2],
        projects: [
          { id: '6a0000000000000000000361', orgId: ORG_V1, name: 'cloud one' },
          { id: '6a0000000000000000000362', orgId: ORG_V1, name: 'cloud two' },
          { id: '6a0000000000000000000363', orgId: ORG_V2, name: 'atlas one' },
          { id: '6a0000000000000000000364', orgId: ORG_V2, name: 'atlas two' },
        ],
        eventsPerScope: 800,
        days: 2,
        keys: [CLOUD, ATLAS],
        // Counted deep pages time out on v2: the workers ask them again without the count.
        faults: { timeoutPagingDepth: 2 },
      },
      { EVENTS_START_DATE: daysAgo(3).toISOString() },
    );
    cleanups.push(() => f.close());
    const prefix = `em-test-${randomUUID()}`;
    cleanups.push(() => obliterateSyncQueue(REDIS_URL, prefix));
    const env = {
      ...f.envWith({
        api: { itemsPerPage: 100 },
        credentials: {
          cloud: { publicKey: CLOUD.publicKey, privateKeyEnv: 'CLOUD_PRIVATE_KEY', baseUrl: f.emulator.baseUrl },
          atlas: { publicKey: ATLAS.publicKey, privateKeyEnv: 'ATLAS_PRIVATE_KEY', baseUrl: f.emulator.atlasV2BaseUrl },
        },
        scopes: [
          { scope: `org:${ORG_V1}`, credential: 'cloud', discoverProjects: true },
          { scope: `org:${ORG_V2}`, credential: 'atlas', discoverProjects: true },
        ],
      }),
      EVENTS_SCOPES: undefined,
      EVENTS_API_PUBLIC_KEY: undefined,
      EVENTS_API_PRIVATE_KEY: undefined,
      CLOUD_PRIVATE_KEY: CLOUD.privateKey,
      ATLAS_PRIVATE_KEY: ATLAS.privateKey,
      REDIS_PREFIX: prefix,
      EVENTS_POLL_INTERVAL_SECONDS: '2',
      EVENTS_DISCOVERY_INTERVAL_SECONDS: '3',
      SCHEDULER_METRICS_PORT: String(await freePort()),
    };
    const warehouse = await createWarehouse({ url: f.database.url, schema: 'events_mirror', dataDir: 'unused' });
    cleanups.push(() => warehouse.close());
    const processes: CliProcess[] = [
      startCli('scheduler', ['scheduler'], env),
      startCli('worker A', ['worker'], { ...env, METRICS_PORT: String(await freePort()) }),
      startCli('worker B', ['worker'], { ...env, METRICS_PORT: String(await freePort()) }),
    ];
    cleanups.push(() => Promise.all(processes.map((p) => p.stop('SIGKILL').catch(() => undefined))));
    const scopes = f.emulator.dataset.scopes();
    expect(scopes).toHaveLength(6);
    try {
      const died = failWhenAnyExits(processes);
      await Promise.race([
        waitFor(
          'the warehouse equal to the emulator for both organizations and their projects',
          async () => {
            try {
              await expectMirrorEqualsEmulator(warehouse.db, f.emulator.dataset, scopes);
              return true;
            } catch {
              return false;
            }
          },
          90_000,
        ),
        died,
      ]);
      await expectMirrorEqualsEmulator(warehouse.db, f.emulator.dataset, scopes);
      const catalogue = await warehouse.db
        .selectFrom('event_type_catalog')
        .select(sql<number>`count(*)::int`.as('n'))
        .executeTakeFirstOrThrow();
      expect(catalogue.n, 'the workers read the Atlas source’s event type catalogue').toBe(f.emulator.catalog.all().length);
      for (const p of processes) expect((await p.stop('SIGTERM')).code, p.output()).toBe(0);
    } catch (error) {
      throw new Error(`${String(error)}\n${processes.map((p) => p.output()).join('\n')}`, { cause: error });
    }
  }, 150_000);
});
