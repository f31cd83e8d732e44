/**
 * An organization of thousands of projects: its listing is written in bounded batches (one
 * statement of 7,000 rows would pass PostgreSQL's 65,535 bind parameters), a sample of the
 * projects found is mirrored in full, and a listing that fails is an error that `status` and the
 * metric show, while the projects found before stay polled.
 */
import { Redis } from 'ioredis';
import { Registry } from 'prom-client';
import { afterAll, describe, expect, it } from 'vitest';
import { registerFleetMetrics } from '../../src/queue/fleet-metrics.js';
import { createSyncQueue } from '../../src/queue/scheduler.js';
import { silentLogger } from '../../src/logger.js';
import { discoverScopes } from '../../src/sync/discovery.js';
import { syncScope } from '../../src/sync/sync-scope.js';
import { listKnownScopes } from '../../src/warehouse/scopes.repository.js';
import { runCli } from '../helpers/cli.js';
import { expectMirrorEqualsEmulator } from '../helpers/mirror.js';
import { REDIS_URL } from '../helpers/services.js';
import { daysAgo, startSyncFixture, type SyncFixture } from '../helpers/sync-fixture.js';

const ORG = '5f0000000000000000000341';
const PROJECTS = 7_000;
const projectId = (i: number) => `6a${(0x340000 + i).toString(16).padStart(22, '0')}`;

const fixtures: SyncFixture[] = [];
afterAll(async () => {
  for (const fixture of fixtures) await fixture.close();
});

describe('an organization of 7,000 projects', () => {
  it(
    'is discovered in bounded batches, a sample mirrored; a failed listing shows in status and the metric',
    { timeout: 240_000 },
    async () => {
      const fixture = await startSyncFixture(
        {
          seed: 341,
          orgs: [ORG],
          projects: Array.from({ length: PROJECTS }, (_, i) => ({ id: projectId(i), orgId: ORG })),
          eventsPerScope: 20,
          days: 1,
        },
        { EVENTS_START_DATE: daysAgo(2).toISOString() },
      );
      fixtures.push(fixture);
      delete fixture.env.EVENTS_SCOPES; // the organization alone is configured
      const settings = { scopes: [{ scope: `org:${ORG}`, discoverProjects: true }] };
      const runtime = await fixture.runtime(settings);
      const deps = { clients: runtime.clients, db: runtime.warehouse.db, logger: silentLogger(), now: () => new Date() };
      const configured = fixture.config(settings).scopes;
      expect(configured.map((s) => s.scope.key)).toEqual([`org:${ORG}`]);

      const found = await discoverScopes(deps, configured);
      expect(found.orgs).toMatchObject([{ org: `org:${ORG}`, outcome: 'listed', projects: PROJECTS }]);
      expect(found.orgs[0]!.added).toHaveLength(PROJECTS);
      expect(found.scopes).toHaveLength(PROJECTS + 1);
      const known = await listKnownScopes(runtime.warehouse.db);
      expect(known.filter((k) => k.origin === 'discovered' && k.discoveredBy === `org:${ORG}` && !k.removedAt)).toHaveLength(PROJECTS);

      // A sample of the projects found, mirrored in full.
      const sample = [0, 1, 2_345, 4_999, PROJECTS - 1].map((i) => found.scopes.find((s) => s.scope.key === `group:${projectId(i)}`)!);
      for (const scope of sample) expect((await syncScope(runtime.ctx, scope, { mode: 'sync' })).status).toBe('succeeded');
      await expectMirrorEqualsEmulator(
        runtime.warehouse.db,
        fixture.emulator.dataset,
        sample.map((s) => s.scope.key),
      );

      // The listing fails (the API keeps answering 503): an error counted on the organization,
      // the 7,000 found before still polled.
      fixture.emulator.setFaults({ rate5xx: 1 });
      const failed = await discoverScopes(deps, configured);
      fixture.emulator.setFaults({ rate5xx: 0 });
      expect(failed.orgs).toMatchObject([{ org: `org:${ORG}`, outcome: 'failed', projects: PROJECTS }]);
      expect(failed.scopes).toHaveLength(PROJECTS + 1);

      const env = fixture.envWith(settings);
      const status = await runCli(['status'], env);
      expect(status.code, status.stderr).toBe(0);
      expect(status.stdout).toContain('project listings: 1 of 1 FAILING');
      const orgLine = status.stdout.split('\n').find((l) => l.startsWith(`org:${ORG} `) && l.includes('failing')) ?? '';
      expect(orgLine).toMatch(/failing \(1 in a row since \S+\)/);
      expect(orgLine).toContain('7,000');
      expect(orgLine).toContain('503');

      const connection = new Redis(REDIS_URL, { maxRetriesPerRequest: null });
      const queue = createSyncQueue(connection, `em-fleet-${process.pid}`);
      try {
        const registry = new Registry();
        registerFleetMetrics(registry, { queue, db: runtime.warehouse.db });
        const text = await registry.metrics();
        expect(text).toContain(`events_mirror_discovery_listing_failures{org="org:${ORG}"} 1`);
        expect(text).toMatch(/events_mirror_poll_oldest_waiting_seconds 0\n/);

        // Listed again: the failure clears, in status and the metric.
        expect((await discoverScopes(deps, configured)).orgs[0]!.outcome).toBe('listed');
        expect(await registry.metrics()).toContain(`events_mirror_discovery_listing_failures{org="org:${ORG}"} 0`);
        const again = await runCli(['status'], env);
        expect(again.stdout).toContain('project listings: 1 ok');
      } finally {
        await queue.close();
        connection.disconnect();
      }
    },
  );
});
