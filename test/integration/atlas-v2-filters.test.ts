/**
 * A project's excludeEventTypes and clusterNames on Atlas v2, as a user runs them: `sync --once`
 * against the emulator over HTTP into PostgreSQL holds exactly the events the service's filters
 * let through, `reconcile` finds the filtered counts consistent, and removing the filters (a
 * widening) reads the scope's history again so that it holds every event; with the filters back,
 * `reconcile` finds the filtered counts consistent with the events held.
 */
import { sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { createWarehouse } from '../../src/warehouse/database.js';
import { runCli } from '../helpers/cli.js';
import { mirroredIds } from '../helpers/mirror.js';
import { daysAgo, startSyncFixture } from '../helpers/sync-fixture.js';

const ORG = '5f0000000000000000000358';
const GROUP = '6a0000000000000000000358';

const cleanups: Array<() => Promise<unknown>> = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

describe('Atlas v2 project filters', () => {
  it('lands only what excludeEventTypes and clusterNames let through, reads all again once they are removed, reconciles with them back', async () => {
    const f = await startSyncFixture(
      { seed: 358, orgs: [ORG], projects: [{ id: GROUP, orgId: ORG, name: 'atlas' }], eventsPerScope: 1500, days: 2 },
      { EVENTS_START_DATE: daysAgo(3).toISOString() },
    );
    cleanups.push(() => f.close());
    const scope = `group:${GROUP}`;
    const all = f.emulator.dataset.allEvents(scope);
    const validIds = f.emulator.dataset.validIds(scope);
    const byType = new Map<string, number>();
    for (const e of all) byType.set(e.eventTypeName as string, (byType.get(e.eventTypeName as string) ?? 0) + 1);
    const excluded = [...byType].sort((a, b) => b[1] - a[1])[0]![0];
    const clusters = [...new Set(all.map((e) => e.clusterName).filter((c): c is string => typeof c === 'string'))].sort();
    expect(clusters.length).toBeGreaterThan(1);
    // Cluster events of the first cluster, and (a separate scope setting) never the excluded type.
    const kept = all.filter((e) => validIds.has(e.id as string) && e.eventTypeName !== excluded && e.clusterName === clusters[0]);
    expect(kept.length).toBeGreaterThan(10);

    const envWith = (filters: object) => ({
      ...f.envWith({ api: { itemsPerPage: 100 }, scopes: [{ scope, ...filters }] }),
      EVENTS_SCOPES: undefined,
      EVENTS_API_BASE_URL: f.emulator.atlasV2BaseUrl,
      LOG_LEVEL: 'info',
    });
    const filtered = envWith({ excludeEventTypes: [excluded], clusterNames: [clusters[0]] });
    const first = await runCli(['sync', '--once'], filtered);
    expect(first.code, first.stderr).toBe(0);
    const warehouse = await createWarehouse({ url: f.database.url, schema: 'events_mirror', dataDir: 'unused' });
    cleanups.push(() => warehouse.close());
    expect(await mirroredIds(warehouse.db, scope)).toEqual(kept.map((e) => e.id as string).sort());

    // The filters removed: a widening, so the whole history is read again.
    const second = await runCli(['sync', '--once'], envWith({}));
    expect(second.code, second.stderr).toBe(0);
    expect(second.stderr).toMatch(/are no longer excluded; every cluster is now read \(was only some\) since its checkpoint was made/);
    expect(await mirroredIds(warehouse.db, scope)).toEqual([...validIds].sort());

    // The filters back (a narrowing): nothing is read again, the events held stay, and reconcile
    // compares the service's filtered counts with the held events the filters let through.
    const third = await runCli(['sync', '--once'], filtered);
    expect(third.code, third.stderr).toBe(0);
    expect(third.stderr).not.toMatch(/since its checkpoint was made/);
    expect(await mirroredIds(warehouse.db, scope)).toEqual([...validIds].sort());
    const reconcile = await runCli(['reconcile', '--from', daysAgo(4).toISOString()], filtered);
    expect(reconcile.code, reconcile.stdout + reconcile.stderr).toBe(0);
    const reRead = await warehouse.db
      .selectFrom('reconcile_runs')
      .select(sql<number>`sum(windows_reread)::int`.as('n'))
      .executeTakeFirstOrThrow();
    expect(reRead.n).toBe(0);
  });
});
