import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scopeSettings } from '../../src/config.js';
import { parseScope } from '../../src/scope.js';
import { backfillScope } from '../../src/sync/backfill.js';
import { getSyncState } from '../../src/warehouse/state.repository.js';
import { expectMirrorEqualsEmulator } from '../helpers/mirror.js';
import { daysAgo, startSyncFixture, type SyncFixture } from '../helpers/sync-fixture.js';

describe('backfill of several days across an organization and its projects', () => {
  let fixture: SyncFixture;
  const overrides = { api: { itemsPerPage: 50 }, sync: { windowSeconds: 12 * 3600, maxPagesPerWindow: 2 } };

  beforeAll(async () => {
    fixture = await startSyncFixture({
      seed: 11,
      orgs: ['5f0000000000000000000001'],
      groups: ['6a0000000000000000000001', '6a0000000000000000000002'],
      eventsPerScope: 1200,
      days: 4,
      faults: { malformedRate: 0.01 },
    });
  });
  afterAll(async () => fixture?.close());

  it('holds every event of every scope once and sets malformed ones aside', async () => {
    const runtime = await fixture.runtime(overrides);
    const config = fixture.config(overrides);
    const scopes = fixture.emulator.dataset.scopes();
    expect(scopes).toHaveLength(3);
    for (const key of scopes) {
      const result = await backfillScope(runtime.ctx, scopeSettings(config, parseScope(key)), daysAgo(5), new Date());
      expect(result.windowsSkipped).toBe(0);
      // 1,200 events over 4 days at 50 a page and 2 pages a window: deep windows were split.
      expect(result.totals.windows).toBeGreaterThan(result.windowsTotal);
    }
    await expectMirrorEqualsEmulator(runtime.warehouse.db, fixture.emulator.dataset, scopes);
    for (const key of scopes) expect(await getSyncState(runtime.warehouse.db, key), 'live checkpoint untouched').toBeUndefined();
  });

  it('resumes: a second backfill of the same range skips finished windows and changes nothing', async () => {
    const runtime = await fixture.runtime(overrides);
    const config = fixture.config(overrides);
    const key = fixture.emulator.dataset.scopes()[1]!;
    const from = daysAgo(3);
    const to = daysAgo(1);
    const first = await backfillScope(runtime.ctx, scopeSettings(config, parseScope(key)), from, to);
    expect(first.totals.inserted).toBe(0);
    expect(first.totals.changed).toBe(0);
    const second = await backfillScope(runtime.ctx, scopeSettings(config, parseScope(key)), from, to);
    expect(second.windowsSkipped).toBe(second.windowsTotal);
    expect(second.totals.pages).toBe(0);

    // An event published late into the finished range: only a forced backfill reads it.
    const [late] = fixture.emulator.dataset.addEvents(key, 1, { createdMs: daysAgo(2).getTime() });
    const forced = await backfillScope(runtime.ctx, scopeSettings(config, parseScope(key)), from, to, { force: true });
    expect(forced.windowsSkipped).toBe(0);
    expect(forced.totals.inserted).toBe(1);
    const held = await runtime.warehouse.db.selectFrom('events').select('id').where('id', '=', late!.id!).execute();
    expect(held).toHaveLength(1);
  });
});
