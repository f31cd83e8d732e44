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
