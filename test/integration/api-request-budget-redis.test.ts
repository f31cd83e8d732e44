/** The Redis request budget against the real Redis, shared by two "workers" (two connections). */
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REDIS_URL } from '../helpers/services.js';
import { HINT_TTL_MS, forgetRequestBudget, redisRequestBudget } from '../../src/api/request-budget.js';
import { parseScope } from '../../src/scope.js';

const prefix = `events-mirror-test:${randomUUID()}`;
let redisA: Redis;
let redisB: Redis;

beforeAll(() => {
  redisA = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
  redisB = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
});
afterAll(async () => {
  const keys = await redisA.keys(`${prefix}*`);
  if (keys.length > 0) await redisA.del(...keys);
  await Promise.all([redisA.quit(), redisB.quit()]);
});

async function settlesSoon(promise: Promise<unknown>): Promise<boolean> {
  let settled = false;
  void promise.then(
    () => (settled = true),
    () => (settled = true),
  );
  await new Promise((resolve) => setTimeout(resolve, 100));
  return settled;
}

describe('redisRequestBudget', () => {
  it('shares one per-scope budget between workers', async () => {
    const a = redisRequestBudget(redisA, { group: 3, org: 10 }, `${prefix}:shared`);
    const b = redisRequestBudget(redisB, { group: 3, org: 10 }, `${prefix}:shared`);
    const g = parseScope('group:g1');
    await a.take(g);
    await a.take(g);
    await b.take(g);
    const controller = new AbortController();
    const held = b.take(g, controller.signal);
    expect(await settlesSoon(held)).toBe(false);
    controller.abort();
    await expect(held).rejects.toThrow(/abort/i);
    expect(await settlesSoon(a.take(parseScope('group:g2')))).toBe(true);
    expect(await settlesSoon(b.take(parseScope('org:o1')))).toBe(true);
  });

  it('a pause from one worker holds the scope back for the other, never shortened, never forever', async () => {
    const a = redisRequestBudget(redisA, { group: 100, org: 100 }, `${prefix}:pause`);
    const b = redisRequestBudget(redisB, { group: 100, org: 100 }, `${prefix}:pause`);
    const g = parseScope('group:g1');
    await a.pause(g, 30_000);
    await a.pause(g, 200); // shorter: keeps the 30 s pause
    const ttl = await redisA.pttl(`${prefix}:pause:budget:group:group:g1`);
    expect(ttl).toBeGreaterThan(25_000);
    const controller = new AbortController();
    const held = b.take(g, controller.signal);
    expect(await settlesSoon(held)).toBe(false);
    controller.abort();
    await expect(held).rejects.toThrow();

    const other = parseScope('group:g9');
    await b.pause(other, 300); // under a second: rounded up to one, with an expiry
    const shortTtl = await redisA.pttl(`${prefix}:pause:budget:group:group:g9`);
    expect(shortTtl).toBeGreaterThan(0);
    expect(shortTtl).toBeLessThanOrEqual(1000);
  });

  it("follows what one worker heard of a scope's token bucket on every worker, for a while", async () => {
    const a = redisRequestBudget(redisA, { group: 3, org: 10 }, `${prefix}:heard`);
    const b = redisRequestBudget(redisB, { group: 3, org: 10 }, `${prefix}:heard`);
    const g = parseScope('group:g1');
    // Worker A hears 100 left: worker B sends more than its configured 3 a minute.
    await a.heard!(g, { remaining: 100, capacity: 300, refillPerSecond: undefined });
    for (let i = 0; i < 6; i += 1) expect(await settlesSoon(b.take(g))).toBe(true);
    const ttl = await redisA.pttl(`${prefix}:heard:budget:heard:group:g1`);
    expect(ttl).toBeGreaterThan(HINT_TTL_MS - 5_000);
    expect(ttl).toBeLessThanOrEqual(HINT_TTL_MS);
    // A refusal: none left, refilling 20 a second; the reserve is 15, so B waits about 0.8 s.
    await a.heard!(g, { remaining: 0, capacity: 300, refillPerSecond: 20 });
    const started = performance.now();
    const held = b.take(g);
    expect(await settlesSoon(held)).toBe(false);
    await held;
    expect(performance.now() - started).toBeGreaterThan(600);
    // forget drops what was heard with the rest of the scope's budget.
    await forgetRequestBudget(redisA, `${prefix}:heard`, g);
    expect(await redisA.exists(`${prefix}:heard:budget:heard:group:g1`)).toBe(0);
  });
});
