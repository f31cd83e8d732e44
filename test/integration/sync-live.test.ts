import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scopeSettings } from '../../src/config.js';
import { parseScope } from '../../src/scope.js';
import { syncScope } from '../../src/sync/sync-scope.js';
import { getSyncState } from '../../src/warehouse/state.repository.js';
import { expectMirrorEqualsEmulator } from '../helpers/mirror.js';
import { daysAgo, startSyncFixture, type SyncFixture } from '../helpers/sync-fixture.js';

const WINDOW_SECONDS = 600;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('repeated sync while live and late events arrive', () => {
  let fixture: SyncFixture;

  beforeAll(async () => {
    fixture = await startSyncFixture(
      {
        seed: 23,
        orgs: ['5f0000000000000000000011'],
        groups: ['6a0000000000000000000011', '6a0000000000000000000012'],
        eventsPerScope: 600,
        days: 1,
        liveRatePerSecond: 25,
        // Late events land up to 5 minutes in the past: inside the 15-minute lookback.
        faults: { lateEventsMaxSeconds: 300, malformedRate: 0.01 },
      },
      { EVENTS_START_DATE: daysAgo(2).toISOString() },
    );
  });
  afterAll(async () => fixture?.close());

  it('ends equal to the emulator, bursts on window edges included', async () => {
    const overrides = { api: { itemsPerPage: 100 }, sync: { settleSeconds: 1, windowSeconds: WINDOW_SECONDS } };
    const runtime = await fixture.runtime(overrides);
    const config = fixture.config(overrides);
    const { dataset } = fixture.emulator;
    const scopes = dataset.scopes();
    const syncAll = () =>
      Promise.all(scopes.map((key) => syncScope(runtime.ctx, scopeSettings(config, parseScope(key)), { mode: 'sync' })));

    for (let pass = 0; pass < 4; pass++) {
      const nowMs = Date.now();
      const edge = Math.floor(nowMs / (WINDOW_SECONDS * 1000)) * WINDOW_SECONDS * 1000;
      for (const key of scopes) {
        // Many events sharing one second, on an inner window boundary and on the run's maxDate.
        dataset.addEvents(key, 40, { createdMs: edge });
        dataset.addEvents(key, 40, { createdMs: Math.floor(nowMs / 1000) * 1000 - 1000 });
      }
      const results = await syncAll();
      for (const result of results) expect(result.status, `${result.scope}: ${String(result.error)}`).toBe('succeeded');
      await sleep(400);
    }

    fixture.emulator.setLiveRate(0);
    await sleep(2_200); // past the settle time of the last live event
    const final = await syncAll();
    for (const result of final) expect(result.status).toBe('succeeded');
    await expectMirrorEqualsEmulator(runtime.warehouse.db, dataset, scopes);

    for (const key of scopes) {
      const state = await getSyncState(runtime.warehouse.db, key);
      expect(state?.watermark?.getTime()).toBeGreaterThan(Date.now() - 10_000);
      expect(state?.consecutiveFailures).toBe(0);
    }
  });
});
