/**
 * Paging must not trust `links` or `totalCount`. The service's count can be an estimate, its links
 * follow the count, and a proxy can cut them: a full page that says it is the last used to end the
 * window and the checkpoint moved past the rest. Against the emulator serving pages without links,
 * and pages whose totalCount is a third of the truth, every event still lands.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { scopeSettings } from '../../src/config.js';
import type { FaultOptions } from '../../src/emulator/server.js';
import { parseScope } from '../../src/scope.js';
import { syncScope } from '../../src/sync/sync-scope.js';
import { expectMirrorEqualsEmulator } from '../helpers/mirror.js';
import { daysAgo, startSyncFixture, type SyncFixture } from '../helpers/sync-fixture.js';

describe.each([
  ['pages without links', { dropLinksRate: 1 }],
  ['a totalCount a third of the truth', { totalCountShare: 0.33 }],
  ['both, on some pages', { dropLinksRate: 0.5, totalCountShare: 0.5 }],
] as Array<[string, Partial<FaultOptions>]>)('a sync against %s', (_name, faults) => {
  let fixture: SyncFixture | undefined;
  afterEach(async () => fixture?.close());

  it('mirrors every event', async () => {
    fixture = await startSyncFixture(
      { seed: 181, orgs: ['5f0000000000000000000181'], groups: ['6a0000000000000000000181'], eventsPerScope: 2_000, days: 2, faults },
      { EVENTS_START_DATE: daysAgo(3).toISOString() },
    );
    // Small pages and a shallow depth: a window holds many full pages, and the split decision
    // (which reads totalCount) is exercised too.
    const overrides = { api: { itemsPerPage: 100 }, sync: { maxPagesPerWindow: 4 } };
    const runtime = await fixture.runtime(overrides);
    const config = fixture.config(overrides);
    const scopes = fixture.emulator.dataset.scopes();
    for (const key of scopes) {
      const result = await syncScope(runtime.ctx, scopeSettings(config, parseScope(key)), { mode: 'sync' });
      expect(result.status, String(result.error)).toBe('succeeded');
    }
    await expectMirrorEqualsEmulator(runtime.warehouse.db, fixture.emulator.dataset, scopes);
  });
});
