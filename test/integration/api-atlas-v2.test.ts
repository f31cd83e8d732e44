/**
 * The client in the Atlas v2 dialect against the emulator over real HTTP: the versioned Accept,
 * the count asked on a window's first page only, a page that times out counting asked again
 * without the count, and a refused resource version as a permanent error naming api.version,
 * kept for every later scope of the source until the version is accepted again; a 410 that is no
 * version refusal (410 GROUP_DELETED) fails its own scope only.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Registry } from 'prom-client';
import { ApiError } from '../../src/api/api-error.js';
import { EventsClient, VERSION_RECHECK_MS, type EventsClientOptions, type EventsPage } from '../../src/api/client.js';
import { createApiMetrics } from '../../src/api/metrics.js';
import { unlimitedRequestBudget } from '../../src/api/request-budget.js';
import { startEmulator, type RunningEmulator } from '../../src/emulator/server.js';
import { parseScope } from '../../src/scope.js';

const ORG = 'o1';
const KEY = { publicKey: 'v2-pub', privateKey: 'v2-priv-5d1e', roles: [{ orgId: ORG, roleName: 'ORG_OWNER' }] };
const ITEMS_PER_PAGE = 100;

let emulator: RunningEmulator;
let clients: EventsClient[] = [];

beforeAll(async () => {
  emulator = await startEmulator({
    port: 0,
    seed: 8,
    orgs: [ORG],
    groups: ['g1', 'g2'],
    eventsPerScope: 750,
    days: 3,
    keys: [KEY] as never,
    atlasVersions: { retired: ['2019-01-01'] },
  });
});
afterEach(async () => {
  await Promise.all(clients.map((c) => c.close()));
  clients = [];
  emulator.setFaults({ timeoutPagingDepth: 0, deletedGroups: [] });
  emulator.setAtlasVersions({ retired: ['2019-01-01'] });
});
afterAll(async () => {
  await emulator.close();
});

function client(overrides: Partial<EventsClientOptions> = {}): EventsClient {
  const made = new EventsClient({
    baseUrl: emulator.atlasV2BaseUrl,
    dialect: 'atlas-v2',
    publicKey: KEY.publicKey,
    privateKey: KEY.privateKey,
    itemsPerPage: ITEMS_PER_PAGE,
    budget: unlimitedRequestBudget(),
    retry: { maxAttempts: 4, baseDelayMs: 1, maxDelayMs: 10 },
    requestTimeoutMs: 5_000,
    ...overrides,
  });
  clients.push(made);
  return made;
}

const window = { minDate: new Date(Date.now() - 10 * 86_400_000), maxDate: new Date(Date.now() + 86_400_000) };

async function collect(c: EventsClient, scopeText: string): Promise<EventsPage[]> {
  const pages: EventsPage[] = [];
  for await (const page of c.pages(parseScope(scopeText), window)) pages.push(page);
  return pages;
}

describe('EventsClient in the atlas-v2 dialect', () => {
  it('reads every event, counting on the first page only', async () => {
    const pages = await collect(client(), 'group:g1');
    const ids = pages.flatMap((p) => p.events.map((e) => e.id));
    expect(new Set(ids)).toEqual(emulator.dataset.validIds('group:g1'));
    expect(pages[0]!.totalCount).toBe(750);
    expect(pages.slice(1).every((p) => p.totalCount === undefined)).toBe(true);
  });

  it('asks a page that timed out counting again without the count', async () => {
    const before = emulator.stats();
    // Counted pages past page 1 time out; page 2 asked with the count, as a window's first page is.
    emulator.setFaults({ timeoutPagingDepth: 1 });
    const page = await client().listEvents(parseScope('group:g1'), {
      ...window,
      pageNum: 2,
      itemsPerPage: ITEMS_PER_PAGE,
      includeCount: true,
      countOptional: true,
    });
    expect(page.events.length).toBe(ITEMS_PER_PAGE);
    expect(page.totalCount).toBeUndefined();
    const after = emulator.stats();
    expect((after.byStatus[500] ?? 0) - (before.byStatus[500] ?? 0)).toBe(1);
  });

  it('fails a refused version at once with a line naming api.version, for every scope of the source', async () => {
    const metrics = createApiMetrics(new Registry());
    const c = client({ apiVersion: '2019-01-01', metrics });
    const failure = await c.listEvents(parseScope('group:g1'), { ...window }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ApiError);
    expect((failure as ApiError).status).toBe(410);
    expect((failure as ApiError).message).toMatch(/410 VERSION_GONE.*set api\.version \(EVENTS_API_VERSION\) to 2023-01-01/);
    expect((await metrics.versionRefused.get()).values).toEqual([{ labels: { source: 'default' }, value: 1 }]);
    const before = emulator.stats().requests;
    const again = await c.listEvents(parseScope('group:g2'), { ...window }).catch((error: unknown) => error);
    expect((again as ApiError).message).toMatch(/^group:g2 not read: .*api\.version/);
    expect(emulator.stats().requests).toBe(before);
  });

  it('fails only its own scope on a 410 that is no version refusal (GROUP_DELETED)', async () => {
    const metrics = createApiMetrics(new Registry());
    const c = client({ metrics });
    emulator.setFaults({ deletedGroups: ['g1'] });
    const failure = await c.listEvents(parseScope('group:g1'), { ...window }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ApiError);
    expect((failure as ApiError).status).toBe(410);
    expect((failure as ApiError).code).toBe('API_GROUP_DELETED');
    expect((failure as ApiError).message).not.toMatch(/version/);
    expect((await metrics.versionRefused.get()).values).toEqual([{ labels: { source: 'default' }, value: 0 }]);
    const other = await c.listEvents(parseScope('group:g2'), { ...window, itemsPerPage: ITEMS_PER_PAGE });
    expect(other.events.length).toBe(ITEMS_PER_PAGE);
  });

  it('asks again after a refused version and clears the refusal when the version is accepted again', async () => {
    const metrics = createApiMetrics(new Registry());
    let clock = Date.now();
    const c = client({ metrics, now: () => clock });
    emulator.setAtlasVersions({ retired: ['2019-01-01', '2023-01-01'] });
    const failure = await c.listEvents(parseScope('group:g1'), { ...window }).catch((error: unknown) => error);
    expect((failure as ApiError).code).toBe('API_VERSION_REFUSED');
    emulator.setAtlasVersions({ retired: ['2019-01-01'] });
    const before = emulator.stats().requests;
    const held = await c.listEvents(parseScope('group:g2'), { ...window }).catch((error: unknown) => error);
    expect((held as ApiError).code).toBe('API_VERSION_REFUSED');
    expect(emulator.stats().requests).toBe(before);
    clock += VERSION_RECHECK_MS;
    const page = await c.listEvents(parseScope('group:g2'), { ...window, itemsPerPage: ITEMS_PER_PAGE });
    expect(page.events.length).toBe(ITEMS_PER_PAGE);
    expect((await metrics.versionRefused.get()).values).toEqual([{ labels: { source: 'default' }, value: 0 }]);
    expect((await c.listEvents(parseScope('group:g1'), { ...window, itemsPerPage: ITEMS_PER_PAGE })).events.length).toBe(ITEMS_PER_PAGE);
  });

  it('lists an organization’s projects on v2', async () => {
    const { projects } = await client().listProjects(parseScope(`org:${ORG}`));
    expect(projects.map((p) => p.id).sort()).toEqual(['g1', 'g2']);
  });
});
