import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scopeSettings } from '../../src/config.js';
import { parseScope } from '../../src/scope.js';
import { syncScope } from '../../src/sync/sync-scope.js';
import { expectMirrorEqualsEmulator } from '../helpers/mirror.js';
import { daysAgo, startSyncFixture, type SyncFixture } from '../helpers/sync-fixture.js';

describe('sync with every client fault switched on at once', () => {
  let fixture: SyncFixture;

  beforeAll(async () => {
    fixture = await startSyncFixture(
      {
        seed: 31,
        orgs: ['5f0000000000000000000021'],
        groups: ['6a0000000000000000000021', '6a0000000000000000000022'],
        eventsPerScope: 1500,
        days: 3,
        nonceTtlSeconds: 1,
        faults: {
          rate429: 0.1,
          retryAfterSeconds: 1,
          rate5xx: 0.1,
          dropRate: 0.04,
          cutBodyRate: 0.04,
          latencyMs: 3,
          malformedRate: 0.02,
        },
      },
      { EVENTS_START_DATE: daysAgo(4).toISOString() },
    );
  });
  afterAll(async () => fixture?.close());

  it('still lands every event exactly once', async () => {
    const overrides = { api: { itemsPerPage: 100, maxAttempts: 12 }, sync: { windowSeconds: 86_400 } };
    const runtime = await fixture.runtime(overrides);
    const config = fixture.config(overrides);
    const { dataset } = fixture.emulator;
    const scopes = dataset.scopes();
    const results = await Promise.all(
      scopes.map((key) => syncScope(runtime.ctx, scopeSettings(config, parseScope(key)), { mode: 'sync' })),
    );
    for (const result of results) expect(result.status, `${result.scope}: ${String(result.error)}`).toBe('succeeded');
    const stats = fixture.emulator.stats();
    // The faults really fired: retries happened on every kind.
    expect(stats.byStatus[429] ?? 0).toBeGreaterThan(0);
    expect((stats.byStatus[500] ?? 0) + (stats.byStatus[503] ?? 0)).toBeGreaterThan(0);
    expect(stats.staleChallenges).toBeGreaterThan(0);
    await expectMirrorEqualsEmulator(runtime.warehouse.db, dataset, scopes);
  });
});
