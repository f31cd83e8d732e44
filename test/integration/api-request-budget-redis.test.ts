/** The Redis request budget against the real Redis, shared by two "workers" (two connections). */
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REDIS_URL } from '../helpers/services.js';
import { redisRequestBudget } from '../../src/api/request-budget.js';
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
});
