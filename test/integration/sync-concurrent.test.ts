import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWarehouse } from '../../src/warehouse/database.js';
import { spawnCli, waitForExit } from '../helpers/cli.js';
import { expectMirrorEqualsEmulator } from '../helpers/mirror.js';
import { daysAgo, startSyncFixture, type SyncFixture } from '../helpers/sync-fixture.js';

describe('two sync --once processes started at the same time on the same scopes', () => {
  let fixture: SyncFixture;

  beforeAll(async () => {
    fixture = await startSyncFixture(
      {
        seed: 53,
        orgs: ['5f0000000000000000000041'],
        groups: ['6a0000000000000000000041', '6a0000000000000000000042'],
        eventsPerScope: 2000,
        days: 2,
        faults: { latencyMs: 5, malformedRate: 0.01 },
      },
      { EVENTS_START_DATE: daysAgo(3).toISOString() },
    );
  });
  afterAll(async () => fixture?.close());

  it('both succeed, no scope is read by both at once, and the mirror is exact', async () => {
    const env = fixture.envWith({ api: { itemsPerPage: 100 } });
    const [a, b] = await Promise.all([waitForExit(spawnCli(['sync', '--once'], env)), waitForExit(spawnCli(['sync', '--once'], env))]);
    expect(a.code, a.stderr).toBe(0);
    expect(b.code, b.stderr).toBe(0);
    const warehouse = await createWarehouse({ url: fixture.database.url, schema: 'events_mirror', dataDir: 'unused' });
    try {
      await expectMirrorEqualsEmulator(warehouse.db, fixture.emulator.dataset, fixture.emulator.dataset.scopes());
      const runs = await warehouse.db
        .selectFrom('sync_runs')
        .select(['scope', 'status', 'started_at', 'finished_at'])
        .where('status', '=', 'succeeded')
        .orderBy('started_at')
        .execute();
      for (const scope of fixture.emulator.dataset.scopes()) {
        const mine = runs.filter((r) => r.scope === scope);
        expect(mine.length).toBeGreaterThan(0);
        for (let i = 1; i < mine.length; i++) {
          // A scope's windows never overlap in time: one runner at a time.
          expect(mine[i]!.started_at.getTime()).toBeGreaterThanOrEqual(mine[i - 1]!.finished_at!.getTime());
        }
      }
    } finally {
      await warehouse.close();
    }
  });
});
