import { describe, expect, it } from 'vitest';
import { memoryRequestBudget } from '../../src/api/request-budget.js';
import { parseScope } from '../../src/scope.js';

const group = parseScope('group:g1');
const otherGroup = parseScope('group:g2');
const org = parseScope('org:o1');

/** Resolves to true when the promise settles before a macrotask turn passes. */
async function settlesNow(promise: Promise<unknown>): Promise<boolean> {
  let settled = false;
  void promise.then(
    () => (settled = true),
    () => (settled = true),
  );
  await new Promise((resolve) => setImmediate(resolve));
  return settled;
}

describe('memoryRequestBudget', () => {
  it('lets N requests a minute through per scope, then holds the next back (abortable)', async () => {
    const budget = memoryRequestBudget({ group: 3, org: 5 });
    for (let i = 0; i < 3; i += 1) await budget.take(group);
    const controller = new AbortController();
    const fourth = budget.take(group, controller.signal);
    expect(await settlesNow(fourth)).toBe(false);
    controller.abort();
    await expect(fourth).rejects.toThrow(/abort/i);
    // Other scopes and the org kind have their own budgets.
    expect(await settlesNow(budget.take(otherGroup))).toBe(true);
    for (let i = 0; i < 5; i += 1) expect(await settlesNow(budget.take(org))).toBe(true);
  });

  it('pause() blocks a scope that still had budget', async () => {
    const budget = memoryRequestBudget({ group: 100, org: 100 });
    await budget.pause(group, 30_000);
    const controller = new AbortController();
    const held = budget.take(group, controller.signal);
    expect(await settlesNow(held)).toBe(false);
    controller.abort();
    await expect(held).rejects.toThrow();
    expect(await settlesNow(budget.take(otherGroup))).toBe(true);
  });
});

describe('memoryRequestBudget following the service', () => {
  it("follows the bucket's remaining tokens instead of the configured budget", async () => {
    const budget = memoryRequestBudget({ group: 3, org: 5 });
    await budget.heard!(group, { remaining: 200, capacity: 300, refillPerSecond: undefined });
    // Ten requests where the configured budget allows three a minute: the bucket has room.
    for (let i = 0; i < 10; i += 1) expect(await settlesNow(budget.take(group))).toBe(true);
    // Another scope has heard nothing: the configured budget, as before.
    for (let i = 0; i < 3; i += 1) await budget.take(otherGroup);
    const controller = new AbortController();
    const fourth = budget.take(otherGroup, controller.signal);
    expect(await settlesNow(fourth)).toBe(false);
    controller.abort();
    await expect(fourth).rejects.toThrow(/abort/i);
  });

  it('holds requests back while the bucket is at its reserve, until enough has refilled', async () => {
    const budget = memoryRequestBudget({ group: 100, org: 100 });
    // 300 tokens: a reserve of 15. Ten left, refilling 200 a second: about 30 ms to wait.
    await budget.heard!(group, { remaining: 10, capacity: 300, refillPerSecond: 200 });
    const started = performance.now();
    const held = budget.take(group);
    expect(await settlesNow(held)).toBe(false);
    await held;
    expect(performance.now() - started).toBeGreaterThanOrEqual(20);
    // A refusal (0 left) with the refill rate unknown falls back to the configured rate (100 a minute).
    await budget.heard!(org, { remaining: 0, capacity: 500, refillPerSecond: undefined });
    const controller = new AbortController();
    const orgHeld = budget.take(org, controller.signal);
    expect(await settlesNow(orgHeld)).toBe(false);
    controller.abort();
    await expect(orgHeld).rejects.toThrow(/abort/i);
  });

  it('still honours a pause while following', async () => {
    const budget = memoryRequestBudget({ group: 100, org: 100 });
    await budget.heard!(group, { remaining: 250, capacity: 300, refillPerSecond: 100 });
    await budget.pause(group, 30_000);
    const controller = new AbortController();
    const held = budget.take(group, controller.signal);
    expect(await settlesNow(held)).toBe(false);
    controller.abort();
    await expect(held).rejects.toThrow();
  });
});

describe('memoryRequestBudget following a tiny bucket', () => {
  it('keeps a reserve below the capacity, so a bucket of one or two tokens still lets requests through', async () => {
    const budget = memoryRequestBudget({ group: 100, org: 100 });
    await budget.heard!(group, { remaining: 1, capacity: 1, refillPerSecond: 1 });
    expect(await settlesNow(budget.take(group))).toBe(true);
    await budget.heard!(org, { remaining: 2, capacity: 2, refillPerSecond: 1 });
    expect(await settlesNow(budget.take(org))).toBe(true);
  });
});
