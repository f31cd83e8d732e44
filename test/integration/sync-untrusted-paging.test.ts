/**
 * Paging must not trust `links` or `totalCount`. The service's count can be an estimate, its links
 * follow the count, and a proxy can cut them: a full page that says it is the last used to end the
 * window and the checkpoint moved past the rest. Against the emulator serving pages without links,
 * and pages whose totalCount is a third of the truth, every event still lands. Nor may paging trust
 * the server to end: one that answers every pageNum with the same full page (or with new items far
 * past its count) used to be read forever, requests and memory rising; such a walk now stops with an
 * error naming the scope and the endpoint.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { scopeSettings } from '../../src/config.js';
import type { FaultOptions } from '../../src/emulator/server.js';
import { silentLogger } from '../../src/logger.js';
import { parseScope } from '../../src/scope.js';
import { discoverScopes } from '../../src/sync/discovery.js';
import { syncScope } from '../../src/sync/sync-scope.js';
import { expectMirrorEqualsEmulator } from '../helpers/mirror.js';
import { startStubFeedSync, syncThroughStub, type StubFeedSync } from '../helpers/stub-feed.js';
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

describe('a server whose pages never end', () => {
  const GROUP_ID = '6a0000000000000000000327';
  const ORG_ID = '5f0000000000000000000327';
  /** Today's code reads on until this page; then the stub ends the walk with an empty page. */
  const LAST_SERVED = 20;
  const created = new Date(Math.floor(Date.now() / 1000 - 600) * 1000).toISOString().replace('.000Z', 'Z');
  const events = (from: number) =>
    Array.from({ length: 500 }, (_, i) => ({ id: `e${from + i}`, created, eventTypeName: 'JOINED_GROUP', groupId: GROUP_ID }));
  let stub: StubFeedSync | undefined;
  afterEach(async () => stub?.close());

  async function syncAgainst(page: (pageNum: number) => unknown[]) {
    const requests: number[] = [];
    stub = await startStubFeedSync('postgres', [`group:${GROUP_ID}`], (_path, pageNum) => {
      requests.push(pageNum);
      return pageNum > LAST_SERVED ? [] : page(pageNum);
    });
    const result = await syncThroughStub(stub, `group:${GROUP_ID}`);
    return { result, requests };
  }

  it('the same 500 events for every pageNum: stopped at the second page, the error names the scope and the endpoint', async () => {
    const page = events(0);
    const { result, requests } = await syncAgainst(() => page);
    expect(result.status).toBe('failed');
    expect(String(result.error)).toBe(
      `PermanentError: GET /groups/${GROUP_ID}/events for group:${GROUP_ID}: page 2 lists only events that earlier pages listed ` +
        '(the service is repeating its pages); stopped after 2 pages (the next run reads them again)',
    );
    expect(Math.max(...requests)).toBe(2);
  });

  it('new events on every page past a totalCount of 500: stopped at four times the pages the count needs, plus ten', async () => {
    const { result, requests } = await syncAgainst((pageNum) => events(pageNum * 500));
    expect(result.status).toBe('failed');
    expect(String(result.error)).toBe(
      `PermanentError: GET /groups/${GROUP_ID}/events for group:${GROUP_ID}: page 15 is past what a totalCount of 500 allows ` +
        '(1 page(s) of 500; read up to 14); stopped after 15 pages (the next run reads them again)',
    );
    expect(Math.max(...requests)).toBe(15);
  });

  it('the same 500 projects for every pageNum: the listing fails naming the organization and the endpoint, the configured scopes stay', async () => {
    const projects = Array.from({ length: 500 }, (_, i) => ({ id: `6b${String(i).padStart(22, '0')}`, name: `p${i}`, orgId: ORG_ID }));
    const requests: number[] = [];
    stub = await startStubFeedSync('postgres', [`org:${ORG_ID}`], (path, pageNum) => {
      if (!path.endsWith('/groups')) return [];
      requests.push(pageNum);
      return pageNum > LAST_SERVED ? [] : projects;
    });
    const { runtime, config } = stub;
    const discovery = await discoverScopes(
      { clients: runtime.clients, db: runtime.warehouse.db, logger: silentLogger(), now: () => new Date() },
      [{ ...scopeSettings(config, parseScope(`org:${ORG_ID}`)), discoverProjects: true }],
    );
    expect(discovery.orgs).toMatchObject([
      {
        outcome: 'failed',
        error:
          `GET /orgs/${ORG_ID}/groups for org:${ORG_ID}: page 2 lists only projects that earlier pages listed ` +
          '(the service is repeating its pages); stopped after 2 pages (the next run reads them again)',
      },
    ]);
    expect(discovery.scopes.map((s) => s.scope.key)).toEqual([`org:${ORG_ID}`]);
    expect(Math.max(...requests)).toBe(2);
  });
});
