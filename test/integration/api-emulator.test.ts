/**
 * The client against the project's emulator over real HTTP, each fault switched on: every page
 * arrives, in order, with the emulator's events, and every request the emulator saw is one the
 * client counted (no duplicates beyond retries and challenges).
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ApiCredentialsError, ApiError } from '../../src/api/api-error.js';
import { EventsClient, type EventsClientOptions, type EventsPage } from '../../src/api/client.js';
import { unlimitedRequestBudget } from '../../src/api/request-budget.js';
import { startEmulator, type RunningEmulator } from '../../src/emulator/server.js';
import { parseScope, type Scope } from '../../src/scope.js';

const ORG = 'o1';
const GROUPS = ['g1', 'g2', 'g3'];
const FULL_KEY = { publicKey: 'full-pub', privateKey: 'full-priv-3b9e6f1d', roles: [{ orgId: ORG, roleName: 'ORG_OWNER' }] };
const G1_KEY = { publicKey: 'g1-pub', privateKey: 'g1-priv-0c4d', roles: [{ groupId: 'g1', roleName: 'GROUP_READ_ONLY' }] };
const ITEMS_PER_PAGE = 100;
const EVENTS_PER_SCOPE = 1250; // 13 pages of 100

let emulator: RunningEmulator;
let clients: EventsClient[] = [];
const clock = { offsetMs: 0 };
const window = () => ({
  minDate: new Date(Date.now() + clock.offsetMs - 10 * 86_400_000),
  maxDate: new Date(Date.now() + clock.offsetMs + 86_400_000),
});

beforeAll(async () => {
  emulator = await startEmulator({
    port: 0,
    seed: 11,
    orgs: [ORG],
    groups: GROUPS,
    eventsPerScope: EVENTS_PER_SCOPE,
    days: 3,
    nonceTtlSeconds: 60,
    now: () => Date.now() + clock.offsetMs,
    keys: [FULL_KEY, G1_KEY] as never,
    faults: { malformedRate: 0.02 },
  });
});
afterEach(async () => {
  await Promise.all(clients.map((c) => c.close()));
  clients = [];
  emulator.setFaults({ rate429: 0, retryAfterSeconds: undefined, rate5xx: 0, dropRate: 0, cutBodyRate: 0, latencyMs: 0 });
});
afterAll(async () => {
  await emulator.close();
});

function client(overrides: Partial<EventsClientOptions> = {}): EventsClient {
  const made = new EventsClient({
    baseUrl: emulator.baseUrl,
    publicKey: FULL_KEY.publicKey,
    privateKey: FULL_KEY.privateKey,
    itemsPerPage: ITEMS_PER_PAGE,
    budget: unlimitedRequestBudget(),
    retry: { maxAttempts: 12, baseDelayMs: 1, maxDelayMs: 10 },
    requestTimeoutMs: 5_000,
    ...overrides,
  });
  clients.push(made);
  return made;
}

async function collect(c: EventsClient, scope: Scope, afterPage?: () => void): Promise<EventsPage[]> {
  const pages: EventsPage[] = [];
  for await (const page of c.pages(scope, window())) {
    pages.push(page);
    afterPage?.();
  }
  return pages;
}

/** Every page in order, the emulator's events exactly, malformed ones rejected with a reason. */
function expectComplete(scope: Scope, pages: EventsPage[]): void {
  const expected = emulator.dataset.allEvents(scope.key);
  expect(pages.map((p) => p.pageNum)).toEqual(Array.from({ length: Math.ceil(expected.length / ITEMS_PER_PAGE) }, (_, i) => i + 1));
  const validIds = emulator.dataset.validIds(scope.key);
  const received = pages.flatMap((p) => p.events.map((e) => e.id));
  expect(received).toEqual(expected.map((e) => e.id).filter((id): id is string => typeof id === 'string' && validIds.has(id)));
  expect(pages.reduce((n, p) => n + p.rejected.length, 0)).toBe(expected.length - validIds.size);
  expect(pages.every((p) => p.totalCount === expected.length)).toBe(true);
}

/** The emulator saw exactly the requests the client counted, and answered each page once with a whole 200. */
function expectNoDuplicates(before: ReturnType<RunningEmulator['stats']>, pages: EventsPage[]): ReturnType<RunningEmulator['stats']> {
  const after = emulator.stats();
  const delta = (key: 'requests' | 'cutBodies' | 'dropped' | 'challenges' | 'staleChallenges') => after[key] - before[key];
  const ok = (after.byStatus[200] ?? 0) - (before.byStatus[200] ?? 0);
  expect(delta('requests')).toBe(pages.reduce((n, p) => n + p.requests, 0));
  expect(ok - delta('cutBodies')).toBe(pages.length);
  return after;
}

const g1 = parseScope('group:g1');

describe('EventsClient against the emulator', () => {
  it('reads a window in one request per page after the first challenge', async () => {
    const before = emulator.stats();
    const pages = await collect(client(), g1);
    expectComplete(g1, pages);
    expectNoDuplicates(before, pages);
    expect(pages.map((p) => p.requests)).toEqual([2, ...Array(pages.length - 1).fill(1)]);
    expect(pages.some((p) => p.rejected.length > 0)).toBe(true);
  });

  it('honours Retry-After on 429s', async () => {
    emulator.setFaults({ rate429: 0.25, retryAfterSeconds: 2 });
    const waits: number[] = [];
    const before = emulator.stats();
    const pages = await collect(client({ sleep: async (ms) => void waits.push(ms) }), g1);
    expectComplete(g1, pages);
    const after = expectNoDuplicates(before, pages);
    const rateLimited = (after.byStatus[429] ?? 0) - (before.byStatus[429] ?? 0);
    expect(rateLimited).toBeGreaterThan(0);
    expect(waits).toEqual(Array(rateLimited).fill(2000));
  });

  it('backs off on 429s without Retry-After', async () => {
    emulator.setFaults({ rate429: 0.25 });
    const waits: number[] = [];
    const before = emulator.stats();
    const pages = await collect(client({ sleep: async (ms) => void waits.push(ms) }), g1);
    expectComplete(g1, pages);
    expectNoDuplicates(before, pages);
    expect(waits.length).toBeGreaterThan(0);
    expect(waits.every((ms) => ms >= 0 && ms <= 10)).toBe(true);
  });

  it.each([
    ['5xx', { rate5xx: 0.25 }],
    ['dropped connections', { dropRate: 0.2 }],
    ['bodies cut short', { cutBodyRate: 0.25 }],
    ['latency', { latencyMs: 20 }],
    ['everything at once', { rate5xx: 0.1, dropRate: 0.1, cutBodyRate: 0.1, rate429: 0.1, retryAfterSeconds: 0, latencyMs: 5 }],
  ])('survives %s', async (_name, faults) => {
    emulator.setFaults(faults);
    const before = emulator.stats();
    const pages = await collect(client(), g1);
    expectComplete(g1, pages);
    const after = expectNoDuplicates(before, pages);
    if ('dropRate' in faults && faults.dropRate >= 0.2) expect(after.dropped).toBeGreaterThan(before.dropped);
    if ('cutBodyRate' in faults && faults.cutBodyRate >= 0.25) expect(after.cutBodies).toBeGreaterThan(before.cutBodies);
  });

  it('answers stale nonces (expiring every few requests) without failing', async () => {
    const before = emulator.stats();
    // The emulator's clock moves 25 s per page, so its 60 s nonces expire every third page.
    const pages = await collect(client(), g1, () => (clock.offsetMs += 25_000));
    expectComplete(g1, pages);
    const after = expectNoDuplicates(before, pages);
    const stale = after.staleChallenges - before.staleChallenges;
    expect(stale).toBeGreaterThanOrEqual(3);
    expect(pages.reduce((n, p) => n + p.requests, 0)).toBe(pages.length + 1 + stale);
  });

  it('reads several scopes concurrently, with pages of one scope in parallel, under faults', async () => {
    emulator.setFaults({ rate5xx: 0.05, dropRate: 0.05, cutBodyRate: 0.05 });
    const shared = client();
    const scopes = [...GROUPS.map((g) => parseScope(`group:${g}`)), parseScope(`org:${ORG}`)];
    const before = emulator.stats();
    const results = await Promise.all(
      scopes.map(async (scope) => {
        const pageCount = Math.ceil(emulator.dataset.count(scope.key) / ITEMS_PER_PAGE);
        const pages = await Promise.all(
          Array.from({ length: pageCount }, (_, i) => shared.listEvents(scope, { ...window(), pageNum: i + 1 })),
        );
        return { scope, pages };
      }),
    );
    for (const { scope, pages } of results) expectComplete(scope, pages);
    expectNoDuplicates(
      before,
      results.flatMap((r) => r.pages),
    );
  });

  it('parses the envelope form, for lists and errors', async () => {
    const c = client();
    const page = await c.listEvents(g1, { ...window(), envelope: true });
    expect(page.events.length + page.rejected.length).toBe(ITEMS_PER_PAGE);
    await expect(c.listEvents(parseScope('group:nope'), { envelope: true })).rejects.toMatchObject({
      status: 404,
      errorCode: 'GROUP_NOT_FOUND',
    });
  });

  it('reports a key without a role on the project as permanent, without retrying', async () => {
    const c = client({ publicKey: G1_KEY.publicKey, privateKey: G1_KEY.privateKey });
    expect((await c.listEvents(g1, window())).events.length).toBeGreaterThan(0);
    const before = emulator.stats();
    const error = await c.listEvents(parseScope('group:g2'), window()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).not.toBeInstanceOf(ApiCredentialsError);
    expect(error).toMatchObject({ status: 401, errorCode: 'USER_CANNOT_ACCESS_GROUP' });
    expect(emulator.stats().requests - before.requests).toBe(1);
  });

  it('reports a wrong private key as a credential failure naming the public key', async () => {
    const before = emulator.stats();
    const error = await client({ privateKey: 'not-the-key' })
      .listEvents(g1, window())
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiCredentialsError);
    expect((error as Error).message).toContain(FULL_KEY.publicKey);
    expect(emulator.stats().requests - before.requests).toBe(2);
  });
});
