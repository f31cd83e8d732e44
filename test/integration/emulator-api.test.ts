/**
 * Every query parameter, response header and error of the emulator, over real HTTP with an npm
 * Digest client (digest-fetch).
 */
import DigestClient from 'digest-fetch';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiEvent, ListEventsResponse } from '../../src/events/types.js';
import type { ApiKeyGrant } from '../../src/emulator/keys.js';
import { startTestEmulator, type RunningEmulator } from '../helpers/emulator.js';

interface Answer {
  status: number;
  headers: Headers;
  text: string;
  json: any;
}

const ORG = '5f00000000000000000000aa';
const OTHER_ORG = '5f00000000000000000000bb';
const G1 = '6000000000000000000000a1';
const G2 = '6000000000000000000000a2';

const KEYS: ApiKeyGrant[] = [
  {
    publicKey: 'ownerkey',
    privateKey: 'owner-secret',
    roles: [
      { orgId: ORG, roleName: 'ORG_OWNER' },
      { orgId: OTHER_ORG, roleName: 'ORG_OWNER' },
    ],
  },
  { publicKey: 'g1reader', privateKey: 'g1-secret', roles: [{ groupId: G1, roleName: 'GROUP_READ_ONLY' }] },
  { publicKey: 'orgmember', privateKey: 'member-secret', roles: [{ orgId: ORG, roleName: 'ORG_MEMBER' }] },
  { publicKey: 'billing', privateKey: 'billing-secret', roles: [{ orgId: ORG, roleName: 'ORG_BILLING_ADMIN' }] },
];

describe('emulator API surface', () => {
  let emulator: RunningEmulator;
  const clients = new Map<string, DigestClient>();

  beforeAll(async () => {
    emulator = await startTestEmulator({ orgs: [ORG, OTHER_ORG], groups: [G1, G2], keys: KEYS, eventsPerScope: 400 });
    for (const key of KEYS) clients.set(key.publicKey, new DigestClient(key.publicKey, key.privateKey));
  });
  afterAll(() => emulator.close());

  async function get(path: string, keyName = 'ownerkey', init: { method?: string } = {}): Promise<Answer> {
    const url = path.startsWith('http') ? path : `${emulator.baseUrl}${path}`;
    const res = await (clients.get(keyName) as DigestClient).fetch(url, {
      method: init.method ?? 'GET',
      headers: { Accept: 'application/json' },
    });
    const text = await res.text();
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    return { status: res.status, headers: res.headers, text, json };
  }

  const list = (answer: Answer): ListEventsResponse => answer.json as ListEventsResponse;
  const rels = (answer: Answer): string[] => list(answer).links.map((link) => link.rel);
  const errorBody = (status: number, errorCode: string) => ({
    detail: expect.any(String),
    error: status,
    errorCode,
    parameters: expect.any(Array),
    reason: expect.any(String),
  });

  it('defaults to 100 items, page 1, newest first, with totalCount and self/next links', async () => {
    const answer = await get(`/groups/${G1}/events`);
    expect(answer.status).toBe(200);
    const body = list(answer);
    expect(Object.keys(body)).toEqual(['links', 'results', 'totalCount']);
    expect(body.results).toHaveLength(100);
    expect(body.totalCount).toBe(400);
    expect(body.results.map((e) => e.id)).toEqual(
      emulator.dataset
        .allEvents(`group:${G1}`)
        .slice(0, 100)
        .map((e) => e.id),
    );
    expect(body.links).toEqual([
      { rel: 'self', href: `${emulator.baseUrl}/groups/${G1}/events?pageNum=1&itemsPerPage=100` },
      { rel: 'next', href: `${emulator.baseUrl}/groups/${G1}/events?pageNum=2&itemsPerPage=100` },
    ]);
    expect(answer.headers.get('x-mongodb-service-version')).toMatch(/^gitHash=[0-9a-f]+; versionString=.+$/);
    expect(answer.headers.get('strict-transport-security')).toBe('max-age=300');
    expect(answer.headers.get('vary')).toBe('Accept-Encoding');
    expect(answer.headers.get('content-type')).toBe('application/json');
    expect(answer.headers.get('content-length')).toBe(String(Buffer.byteLength(answer.text)));
    expect(answer.headers.get('date')).toEqual(expect.any(String));
  });

  it('pages with pageNum and itemsPerPage (max 500), previous after page 1, empty past the end', async () => {
    const all = emulator.dataset.allEvents(`group:${G1}`);
    const page2 = await get(`/groups/${G1}/events?itemsPerPage=150&pageNum=2`);
    expect(list(page2).results.map((e) => e.id)).toEqual(all.slice(150, 300).map((e) => e.id));
    expect(rels(page2)).toEqual(['previous', 'self', 'next']);
    const last = await get(`/groups/${G1}/events?itemsPerPage=150&pageNum=3`);
    expect(list(last).results).toHaveLength(100);
    expect(rels(last)).toEqual(['previous', 'self']);
    const max = await get(`/groups/${G1}/events?itemsPerPage=500`);
    expect(list(max).results).toHaveLength(400);
    expect(rels(max)).toEqual(['self']);
    const past = await get(`/groups/${G1}/events?itemsPerPage=500&pageNum=9`);
    expect(past.status).toBe(200);
    expect(list(past)).toMatchObject({ results: [], totalCount: 400 });
  });

  it('filters by one or several eventType values', async () => {
    const all = emulator.dataset.allEvents(`group:${G1}`);
    const one = await get(`/groups/${G1}/events?eventType=DATA_EXPLORER&itemsPerPage=500`);
    expect(list(one).results.map((e) => e.id)).toEqual(all.filter((e) => e.eventTypeName === 'DATA_EXPLORER').map((e) => e.id));
    const two = await get(`/groups/${G1}/events?eventType=DATA_EXPLORER&eventType=OUTSIDE_METRIC_THRESHOLD&itemsPerPage=500`);
    const expected = all.filter((e) => e.eventTypeName === 'DATA_EXPLORER' || e.eventTypeName === 'OUTSIDE_METRIC_THRESHOLD');
    expect(list(two).results.map((e) => e.id)).toEqual(expected.map((e) => e.id));
    expect(list(two).totalCount).toBe(expected.length);
    const none = await get(`/groups/${G1}/events?eventType=NEVER_GENERATED_TYPE`);
    expect(list(none)).toMatchObject({ results: [], totalCount: 0 });
  });

  it('filters by minDate and maxDate, both inclusive', async () => {
    const all = emulator.dataset.allEvents(`org:${ORG}`);
    const minDate = all[300]?.created as string;
    const maxDate = all[50]?.created as string;
    const answer = await get(`/orgs/${ORG}/events?minDate=${minDate}&maxDate=${maxDate}&itemsPerPage=500`);
    const expected = all.filter((e) => (e.created as string) >= minDate && (e.created as string) <= maxDate);
    expect(list(answer).results.map((e) => e.id)).toEqual(expected.map((e) => e.id));
    expect(list(answer).results[0]?.created).toBe(maxDate);
    expect(list(answer).results.at(-1)?.created).toBe(minDate);
    const onlyMin = await get(`/orgs/${ORG}/events?minDate=${minDate}&itemsPerPage=500`);
    expect(list(onlyMin).totalCount).toBe(all.filter((e) => (e.created as string) >= minDate).length);
  });

  it('adds raw with includeRaw=true only', async () => {
    const withRaw = await get(`/groups/${G1}/events?includeRaw=true&itemsPerPage=5`);
    expect(list(withRaw).results.every((e) => typeof e.raw === 'object' && e.raw !== null && '_t' in e.raw)).toBe(true);
    const without = await get(`/groups/${G1}/events?includeRaw=false&itemsPerPage=5`);
    expect(list(without).results.every((e) => e.raw === undefined)).toBe(true);
  });

  it('pretty-prints with pretty=true and keeps pretty and every other parameter in links', async () => {
    const answer = await get(`/groups/${G1}/events?pretty=true&eventType=DATA_EXPLORER&itemsPerPage=2`);
    expect(answer.text).toContain('\n  "links": [');
    expect(list(answer).links.find((l) => l.rel === 'next')?.href).toBe(
      `${emulator.baseUrl}/groups/${G1}/events?pretty=true&eventType=DATA_EXPLORER&itemsPerPage=2&pageNum=2`,
    );
    expect((await get(`/groups/${G1}/events?itemsPerPage=2`)).text).not.toContain('\n');
  });

  it('wraps with envelope=true: status in a list body, {status, content} for errors, always HTTP 200', async () => {
    const ok = await get(`/groups/${G1}/events?envelope=true&itemsPerPage=1`);
    expect(ok.status).toBe(200);
    expect(ok.json).toMatchObject({ status: 200, totalCount: 400 });
    const missing = await get(`/groups/6000000000000000000000ff/events?envelope=true`);
    expect(missing.status).toBe(200);
    expect(missing.json).toEqual({ status: 404, content: errorBody(404, 'GROUP_NOT_FOUND') });
    const bad = await get(`/groups/${G1}/events?envelope=true&itemsPerPage=501`);
    expect(bad.json).toEqual({ status: 400, content: errorBody(400, 'INVALID_QUERY_PARAMETER') });
    const single = await get(`/groups/${G1}/events/${list(ok).results[0]?.id}?envelope=true`);
    expect(single.json).toEqual({ status: 200, content: list(ok).results[0] });
  });

  it('serves each event at its self link, for projects and organizations', async () => {
    for (const path of [`/groups/${G1}/events?itemsPerPage=3&includeRaw=true`, `/orgs/${ORG}/events?itemsPerPage=3`]) {
      const raw = path.includes('includeRaw');
      for (const event of list(await get(path)).results) {
        const self = await get(`${event.links?.[0]?.href}${raw ? '?includeRaw=true' : ''}`);
        expect(self.status).toBe(200);
        expect(self.json as ApiEvent).toEqual(event);
        expect(self.headers.get('strict-transport-security')).toBe('max-age=300');
      }
    }
    const orgEvent = list(await get(`/orgs/${ORG}/events?itemsPerPage=1`)).results[0];
    expect((await get(`/groups/${G1}/events/${orgEvent?.id}`)).json).toEqual(errorBody(404, 'RESOURCE_NOT_FOUND'));
    expect((await get(`/groups/${G1}/events/abc`)).status).toBe(404);
  });

  it('answers bad parameters with 400 and the service error codes', async () => {
    const cases: Array<[string, string]> = [
      ['itemsPerPage=501', 'INVALID_QUERY_PARAMETER'],
      ['itemsPerPage=0', 'INVALID_QUERY_PARAMETER'],
      ['itemsPerPage=ten', 'INVALID_QUERY_PARAMETER'],
      ['pageNum=0', 'INVALID_QUERY_PARAMETER'],
      ['includeRaw=maybe', 'INVALID_QUERY_PARAMETER'],
      ['pretty=yes', 'INVALID_QUERY_PARAMETER'],
      ['envelope=1', 'INVALID_QUERY_PARAMETER'],
      ['minDate=last-tuesday', 'INVALID_DATE_FORMAT'],
      ['maxDate=2026-13-01T00:00:00Z', 'INVALID_DATE_FORMAT'],
      ['minDate=2026-11-01T00:00:00.123Z', 'FRACTIONAL_TIMESTAMP'],
      ['minDate=2026-11-02T00:00:00Z&maxDate=2026-11-01T00:00:00Z', 'INVALID_DATE_RANGE'],
      ['eventType=not-a-type', 'INVALID_ENUM_VALUE'],
    ];
    for (const [query, code] of cases) {
      const answer = await get(`/groups/${G1}/events?${query}`);
      expect({ query, status: answer.status, body: answer.json }).toEqual({ query, status: 400, body: errorBody(400, code) });
      expect(answer.headers.get('content-type')).toBe('application/json');
    }
  });

  it('answers unknown scopes 404, and paths and methods it does not serve', async () => {
    expect((await get('/groups/6000000000000000000000ff/events')).json).toEqual(errorBody(404, 'GROUP_NOT_FOUND'));
    expect((await get('/orgs/5f00000000000000000000ff/events')).json).toEqual(errorBody(404, 'ORG_NOT_FOUND'));
    const unknownPath = await get(`/groups/${G1}/alerts`);
    expect(unknownPath.status).toBe(404);
    expect(unknownPath.json).toEqual(errorBody(404, 'RESOURCE_NOT_FOUND'));
    const post = await get(`/groups/${G1}/events`, 'ownerkey', { method: 'POST' });
    expect(post.status).toBe(405);
    expect(post.json).toEqual(errorBody(405, 'METHOD_NOT_ALLOWED'));
    expect(post.headers.get('allow')).toBe('GET');
  });

  it('enforces roles: 401 USER_CANNOT_ACCESS_* without a Digest challenge', async () => {
    expect((await get(`/groups/${G1}/events`, 'g1reader')).status).toBe(200);
    const otherGroup = await get(`/groups/${G2}/events`, 'g1reader');
    expect(otherGroup.status).toBe(401);
    expect(otherGroup.json).toEqual(errorBody(401, 'USER_CANNOT_ACCESS_GROUP'));
    expect(otherGroup.headers.get('www-authenticate')).toBeNull();
    const org = await get(`/orgs/${ORG}/events`, 'g1reader');
    expect(org.json).toEqual(errorBody(401, 'USER_CANNOT_ACCESS_ORG'));
    expect(org.headers.get('www-authenticate')).toBeNull();
    expect((await get(`/orgs/${ORG}/events`, 'orgmember')).status).toBe(200);
    expect((await get(`/groups/${G1}/events`, 'orgmember')).json).toEqual(errorBody(401, 'USER_CANNOT_ACCESS_GROUP'));
    expect((await get(`/orgs/${ORG}/events`, 'billing')).json).toEqual(errorBody(401, 'USER_CANNOT_ACCESS_ORG'));
    // ORG_OWNER of the projects' organization reads them; the second org has no projects.
    expect((await get(`/groups/${G2}/events`, 'ownerkey')).status).toBe(200);
    expect((await get(`/orgs/${OTHER_ORG}/events`, 'ownerkey')).status).toBe(200);
  });

  it('counts requests by status and challenges in stats()', async () => {
    const before = emulator.stats();
    await get(`/groups/${G1}/events?itemsPerPage=1`);
    await get(`/groups/${G1}/events?itemsPerPage=0`);
    const after = emulator.stats();
    expect(after.byStatus[200]).toBe((before.byStatus[200] ?? 0) + 1);
    expect(after.byStatus[400]).toBe((before.byStatus[400] ?? 0) + 1);
    expect(after.requests).toBeGreaterThanOrEqual(before.requests + 2);
  });
});
