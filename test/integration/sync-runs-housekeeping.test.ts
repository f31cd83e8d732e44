/**
 * sync_runs stays bounded and honest: runs past the retention are deleted, and runs a crash left
 * `running` are marked `abandoned` once nobody holds their scope — never a run whose scope a
 * runner holds, never a recent one. `sync` does it after each pass; workers every few minutes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scopeLockFor } from '../../src/sync/lock.js';
import { createWarehouse, type Warehouse } from '../../src/warehouse/database.js';
import { runCli } from '../helpers/cli.js';
import { daysAgo, startSyncFixture, type SyncFixture } from '../helpers/sync-fixture.js';

const HOUR = 3_600_000;

describe('sync_runs housekeeping', () => {
  let fixture: SyncFixture;
  let warehouse: Warehouse;

  beforeAll(async () => {
    fixture = await startSyncFixture(
      { seed: 221, orgs: ['5f0000000000000000000221'], groups: [], eventsPerScope: 100, days: 1 },
      { EVENTS_START_DATE: daysAgo(1).toISOString(), EVENTS_RUN_RETENTION_DAYS: '30' },
    );
    warehouse = await createWarehouse({ url: fixture.database.url, schema: 'events_mirror', dataDir: 'unused' });
  });
  afterAll(async () => {
    await warehouse?.close();
    await fixture?.close();
  });

  it('deletes runs past the retention and marks cut-off runs abandoned, sparing held scopes and recent runs', async () => {
    const db = warehouse.db;
    const run = (scope: string, status: 'running' | 'succeeded', startedMsAgo: number) => ({
      scope,
      mode: 'poll',
      window_start: new Date(Date.now() - startedMsAgo - HOUR),
      window_end: new Date(Date.now() - startedMsAgo),
      started_at: new Date(Date.now() - startedMsAgo),
      status,
    });
    await db
      .insertInto('sync_runs')
      .values([
        run('group:old', 'succeeded', 40 * 24 * HOUR),
        run('group:kept', 'succeeded', 2 * 24 * HOUR),
        run('group:crashed', 'running', 2 * HOUR),
        run('group:held', 'running', 2 * HOUR),
        run('group:young', 'running', 60_000),
      ])
      .execute();
    const held = await scopeLockFor(warehouse).tryAcquire('group:held');
    try {
      const result = await runCli(['sync', '--once'], { ...fixture.env, LOG_LEVEL: 'info' });
      expect(result.code, result.stderr).toBe(0);
      expect(result.stderr).toContain('sync_runs housekeeping: 1 runs past the retention deleted, 1 cut-off runs marked abandoned');
    } finally {
      await held?.();
    }
    const rows = await db
      .selectFrom('sync_runs')
      .select(['scope', 'status', 'error'])
      .where('scope', 'in', ['group:old', 'group:kept', 'group:crashed', 'group:held', 'group:young'])
      .orderBy('scope')
      .execute();
    expect(rows.map((r) => `${r.scope} ${r.status}`)).toEqual([
      'group:crashed abandoned',
      'group:held running',
      'group:kept succeeded',
      'group:young running',
    ]);
    expect(rows[0]!.error).toMatch(/cut off before it finished/);
  }, 120_000);
});
