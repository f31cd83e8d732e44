/**
 * The numbers a hostile or broken service sends about its rate limits, over real HTTP (a small
 * server under test/helpers) and the request budget in real Redis: each is clamped to its range
 * (src/api/network-ranges.ts) before it is used or stored, so a scope neither waits for hours nor
 * spins. Counted: API requests, the budget's Redis commands (MONITOR, filtered by this file's key
 * prefix, a script's own commands left out) and TimeoutOverflowWarnings while the client reads.
 */
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ApiTransientError } from '../../src/api/api-error.js';
import { EventsClient } from '../../src/api/client.js';
import { memoryRequestBudget, redisRequestBudget, type RequestBudget } from '../../src/api/request-budget.js';
import { parseScope } from '../../src/scope.js';
import { startHostileApi, type HostileAnswer, type HostileApi } from '../helpers/hostile-api.js';
import { REDIS_URL } from '../helpers/services.js';

const SCOPE = parseScope('group:6a0000000000000000000643');
/** Fast enough that a budget following the configured rate waits a fraction of a second a request. */
const PER_MINUTE = { group: 6_000, org: 6_000 };
const PAGES = 5;

const prefix = `events-mirror-test:${randomUUID()}`;
let redis: Redis;
let monitor: Redis;
let budgetCommands = 0;
let overflowWarnings = 0;
const onWarning = (warning: Error) => {
  if (warning.name === 'TimeoutOverflowWarning') overflowWarnings += 1;
};
let api: HostileApi | undefined;
const clients: EventsClient[] = [];

beforeAll(async () => {
  redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
  monitor = await new Redis(REDIS_URL).monitor();
  // Commands the budget sends (a Lua script's own commands are part of its EVAL).
  monitor.on('monitor', (_time: string, args: string[], source: string) => {
    if (!source.includes('lua') && args.some((arg) => arg.includes(prefix))) budgetCommands += 1;
  });
  process.on('warning', onWarning);
});
afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
  await api?.close();
  api = undefined;
});
afterAll(async () => {
  process.off('warning', onWarning);
  monitor.disconnect();
  const keys = await redis.keys(`${prefix}*`);
  if (keys.length > 0) await redis.del(...keys);
  await redis.quit();
});

async function clientOf(answer: (n: number) => HostileAnswer, budget: RequestBudget, deadlineMs = 60_000): Promise<EventsClient> {
  api = await startHostileApi(answer);
  const client = new EventsClient({
    baseUrl: api.baseUrl,
    publicKey: 'public',
    privateKey: 'private',
    budget,
    retry: { maxAttempts: 3, baseDelayMs: 10, maxDelayMs: 100, deadlineMs },
    requestTimeoutMs: 5_000,
  });
  clients.push(client);
  return client;
}

const window = { minDate: new Date(Date.now() - 86_400_000), maxDate: new Date() };

/**
 * Reads up to PAGES pages one after the other for at most `ms`, then stops the read: what it cost.
 * (The limit only ends a read that would never finish; nothing below asserts a duration.)
 */
async function readFor(client: EventsClient, ms: number): Promise<{ pages: number; commands: number; warnings: number }> {
  const [commandsBefore, warningsBefore] = [budgetCommands, overflowWarnings];
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new Error('read window over')), ms);
  let pages = 0;
  try {
    for (; pages < PAGES; pages += 1) await client.listEvents(SCOPE, window, controller.signal);
  } catch (error) {
    if (!controller.signal.aborted) throw error;
  } finally {
    clearTimeout(timer);
  }
  // MONITOR lines arrive after the commands: let the last ones in.
  await new Promise((resolve) => setTimeout(resolve, 200));
  return { pages, commands: budgetCommands - commandsBefore, warnings: overflowWarnings - warningsBefore };
}

describe('numbers a hostile service sends about its rate limits', () => {
  it('RateLimit-Limit: 1000000 with none remaining: the reads go on, at the configured rate', async () => {
    const client = await clientOf(
      () => ({ headers: { 'RateLimit-Limit': '1000000', 'RateLimit-Remaining': '0' } }),
      memoryRequestBudget(PER_MINUTE),
    );
    const read = await readFor(client, 20_000);
    expect(read.pages).toBe(PAGES);
    expect(api!.requests()).toBe(PAGES);
  });

  it('RateLimit-Limit: 100000000000 on a Redis budget: no spin, no timer overflow, the reads go on', async () => {
    const budget = redisRequestBudget(redis, PER_MINUTE, `${prefix}:huge-limit`);
    const client = await clientOf(() => ({ headers: { 'RateLimit-Limit': '100000000000', 'RateLimit-Remaining': '0' } }), budget);
    const read = await readFor(client, 20_000);
    expect(read.warnings).toBe(0);
    expect(read.pages).toBe(PAGES);
    // A request costs an EVAL to hear its answer and one per wait of at least 20 ms (BUDGET_WAIT_MS):
    // a 260 ms wait for 26 tokens at 100 a second is a handful. A spinning loop made thousands a second.
    expect(read.commands).toBeLessThanOrEqual(PAGES * 20);
  });

  it('a 429 body with refill 1e-9 and capacity 1e15: the scope waits, bounded, without spinning', async () => {
    const tokenBucket429 = {
      status: 429,
      headers: { 'Retry-After': '1' },
      body: JSON.stringify({
        error: 429,
        errorCode: 'RATE_LIMITED_TOKEN_BUCKET',
        detail: 'Resource is rate limited.',
        parameters: ['/groups/x/events', 1, 1e15, 1e-9, 60],
      }),
    };
    const budget = redisRequestBudget(redis, PER_MINUTE, `${prefix}:tiny-refill`);
    const client = await clientOf((n) => (n === 1 ? tokenBucket429 : {}), budget);
    const read = await readFor(client, 3_000);
    expect(read.warnings).toBe(0);
    // The budget now waits for tokens refilled at one a minute (the range's low end), a minute at a
    // time: one request in the window, and a few Redis commands, not a loop's thousands.
    expect(api!.requests()).toBe(1);
    expect(read.commands).toBeLessThanOrEqual(20);
    const ttl = await redis.pttl(`${prefix}:tiny-refill:budget:heard:${SCOPE.key}`);
    expect(ttl).toBeGreaterThan(0);
  });

  it('Retry-After: 100000000: fails at the retry deadline with a clear error, and pauses the scope at most an hour', async () => {
    const budget = redisRequestBudget(redis, PER_MINUTE, `${prefix}:retry-after`);
    const client = await clientOf(
      () => ({ status: 429, headers: { 'Retry-After': '100000000' }, body: '{"error":429,"errorCode":"RATE_LIMITED"}' }),
      budget,
    );
    const failure = await client.listEvents(SCOPE, window).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ApiTransientError);
    expect((failure as Error).message).toMatch(/429 RATE_LIMITED.*retry deadline reached/);
    expect(api!.requests()).toBe(1);
    const pause = await redis.pttl(`${prefix}:retry-after:budget:group:${SCOPE.key}`);
    expect(pause).toBeGreaterThan(0);
    expect(pause).toBeLessThanOrEqual(3_600_000);
  });
});
