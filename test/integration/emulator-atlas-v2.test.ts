/**
 * The emulator's Atlas Administration API v2 dialect over real HTTP (Bearer tokens of a service
 * account, so each request is one exchange): the versioned Accept check, includeCount,
 * excludedEventType, clusterNames, the eventTypes catalogue, token buckets with their headers and
 * 429 body, and TIMEOUT_WHILE_PAGING past a page depth when the count is asked.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/server.js';

const ORG = 'o1';
const GROUP = 'g1';
const ACCOUNT = { clientId: 'mdb_sa_id_v2', clientSecret: 'mdb_sa_sk_v2-secret', roles: [{ orgId: ORG, roleName: 'ORG_OWNER' }] };
const V2_ACCEPT = 'application/vnd.atlas.2023-01-01+json';

let emulator: RunningEmulator;
let token: string;

beforeAll(async () => {
  emulator = await startEmulator({
    port: 0,
    seed: 5,
    orgs: [ORG],
    groups: [GROUP],
    eventsPerScope: 600,
    days: 3,
    serviceAccounts: [ACCOUNT],
    tokenLimits: { perWindow: 1000 },
    atlasVersions: { retired: ['2019-01-01'] },
  });
  const response = await fetch(`${emulator.url}/api/oauth/token`, {
    method: 'POST',
    headers: {
      authorization: `Basic ${Buffer.from(`${ACCOUNT.clientId}:${ACCOUNT.clientSecret}`).toString('base64')}`,
      'content-type': 'application/x-www-form-urlencoded',
    },
    body: 'grant_type=client_credentials',
  });
  token = ((await response.json()) as { access_token: string }).access_token;
});
afterEach(() => emulator.setFaults({ tokenBuckets: undefined, timeoutPagingDepth: 0 }));
afterAll(async () => {
  await emulator.close();
});

async function get(path: string, accept: string | null = V2_ACCEPT) {
  const response = await fetch(`${emulator.atlasV2BaseUrl}${path}`, {
    headers: { authorization: `Bearer ${token}`, ...(accept === null ? {} : { accept }) },
  });
  return { status: response.status, headers: response.headers, body: (await response.json()) as Record<string, unknown> };
}

type Listed = { results: Array<Record<string, unknown>>; totalCount?: number; links: Array<{ rel: string; href: string }> };

describe('the Atlas v2 dialect of the emulator', () => {
  it('refuses a request without a versioned Accept (406), an unknown version (400) and a retired one (410)', async () => {
    const path = `/groups/${GROUP}/events`;
    expect((await get(path, 'application/json')).status).toBe(406);
    expect((await get(path, null)).status).toBe(406);
    const unknown = await get(path, 'application/vnd.atlas.2024-05-30+json');
    expect([unknown.status, unknown.body.errorCode]).toEqual([400, 'INVALID_VERSION_DATE']);
    const gone = await get(path, 'application/vnd.atlas.2019-01-01+json');
    expect([gone.status, gone.body.errorCode]).toEqual([410, 'VERSION_GONE']);
    expect((await get(path)).status).toBe(200);
  });

  it('serves the same events as v1, with the count unless includeCount=false', async () => {
    const all = emulator.dataset.allEvents(`group:${GROUP}`).filter((e) => typeof e.id === 'string');
    const counted = (await get(`/groups/${GROUP}/events?itemsPerPage=500`)).body as unknown as Listed;
    expect(counted.totalCount).toBe(emulator.dataset.count(`group:${GROUP}`));
    const uncounted = (await get(`/groups/${GROUP}/events?itemsPerPage=500&includeCount=false`)).body as unknown as Listed;
    expect(uncounted.totalCount).toBeUndefined();
    expect(uncounted.results.map((e) => e.id)).toEqual(counted.results.map((e) => e.id));
    expect(uncounted.links.some((link) => link.rel === 'next')).toBe(true);
    expect(uncounted.links.find((link) => link.rel === 'self')?.href).toContain('/api/atlas/v2/groups/');
    expect(all.length).toBeGreaterThan(500);
  });

  it('leaves out excluded types and keeps only the clusters asked for, on the project feed only', async () => {
    const page = (await get(`/groups/${GROUP}/events?itemsPerPage=500&excludedEventType=DATA_EXPLORER&excludedEventType=HOST_DOWN`))
      .body as unknown as Listed;
    const truth = emulator.dataset
      .allEvents(`group:${GROUP}`)
      .filter((e) => e.eventTypeName !== 'DATA_EXPLORER' && e.eventTypeName !== 'HOST_DOWN');
    expect(page.totalCount).toBe(truth.length);
    expect(page.results.some((e) => e.eventTypeName === 'DATA_EXPLORER' || e.eventTypeName === 'HOST_DOWN')).toBe(false);

    const cluster = emulator.dataset.allEvents(`group:${GROUP}`).find((e) => typeof e.clusterName === 'string')?.clusterName as string;
    const clustered = (await get(`/groups/${GROUP}/events?itemsPerPage=500&clusterNames=${cluster}`)).body as unknown as Listed;
    expect(clustered.totalCount).toBe(emulator.dataset.allEvents(`group:${GROUP}`).filter((e) => e.clusterName === cluster).length);
    expect(clustered.results.every((e) => e.clusterName === cluster)).toBe(true);

    const org = await get(`/orgs/${ORG}/events?excludedEventType=JOINED_ORG`);
    expect([org.status, org.body.errorCode]).toEqual([400, 'INVALID_QUERY_PARAMETER']);
  });

  it('lists the eventTypes catalogue, paged, with descriptions; removed types leave it', async () => {
    const first = (await get('/eventTypes?itemsPerPage=10')).body as unknown as Listed;
    expect(first.results[0]).toEqual({ eventType: expect.any(String), description: expect.any(String), alertable: expect.any(Boolean) });
    expect(first.totalCount).toBeGreaterThan(10);
    emulator.catalog.remove('HOST_DOWN');
    const all = (await get('/eventTypes?itemsPerPage=500')).body as unknown as Listed;
    expect(all.results.map((e) => e.eventType)).not.toContain('HOST_DOWN');
    expect(all.results.find((e) => e.eventType === 'HOST_RECOVERED')?.description).toBe('Host recovered');
    emulator.catalog.add('HOST_DOWN');
  });

  it('meters each scope with a token bucket: headers on every answer, a 429 with its parameters when empty', async () => {
    emulator.setFaults({
      tokenBuckets: { group: { capacity: 3, refill: 1 }, org: { capacity: 5, refill: 2 }, periodSeconds: 3600, hints: true },
    });
    const answers = [];
    for (let i = 0; i < 4; i += 1) answers.push(await get(`/groups/${GROUP}/events?itemsPerPage=1`));
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 429]);
    expect(answers.map((a) => a.headers.get('ratelimit-remaining'))).toEqual(['2', '1', '0', '0']);
    expect(answers[0]!.headers.get('ratelimit-limit')).toBe('3');
    const refused = answers[3]!;
    expect(refused.body.errorCode).toBe('RATE_LIMITED_TOKEN_BUCKET');
    expect(refused.body.parameters).toEqual([`/api/atlas/v2/groups/${GROUP}/events`, 3600, 3, 1, 3600]);
    expect(refused.headers.get('retry-after')).toBe('3600');
    // The organization's bucket is another one.
    expect((await get(`/orgs/${ORG}/events?itemsPerPage=1`)).headers.get('ratelimit-remaining')).toBe('4');

    emulator.setFaults({
      tokenBuckets: { group: { capacity: 1, refill: 1 }, org: { capacity: 1, refill: 1 }, periodSeconds: 60, hints: false },
    });
    const quiet = [await get(`/groups/${GROUP}/events?itemsPerPage=1`), await get(`/groups/${GROUP}/events?itemsPerPage=1`)];
    expect(quiet.map((a) => a.status)).toEqual([200, 429]);
    expect(quiet.map((a) => a.headers.get('ratelimit-remaining'))).toEqual([null, null]);
    expect(quiet[1]!.headers.get('retry-after')).toBe('60');
    expect(quiet[1]!.body.parameters).toEqual([]);
  });

  it('times out deep pages when the count is asked, and answers them without it', async () => {
    emulator.setFaults({ timeoutPagingDepth: 2 });
    expect((await get(`/groups/${GROUP}/events?itemsPerPage=100&pageNum=2`)).status).toBe(200);
    const deep = await get(`/groups/${GROUP}/events?itemsPerPage=100&pageNum=3`);
    expect([deep.status, deep.body.errorCode]).toEqual([500, 'TIMEOUT_WHILE_PAGING']);
    expect((await get(`/groups/${GROUP}/events?itemsPerPage=100&pageNum=3&includeCount=false`)).status).toBe(200);
  });
});
