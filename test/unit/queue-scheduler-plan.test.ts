import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { POLL_JOB, POLL_JOB_OPTIONS } from '../../src/queue/queues.js';
import { canonical, planSchedulers, wantedSchedulers, type FoundScheduler, type WantedScheduler } from '../../src/queue/scheduler-plan.js';

function scopes(keys: string[]) {
  return loadConfig({ env: { EVENTS_SCOPES: keys.join(',') } }).scopes;
}

/** What BullMQ's getJobSchedulers returns for a scheduler upserted from `wanted`. */
function asFound(wanted: WantedScheduler, opts: Record<string, unknown> = { ...POLL_JOB_OPTIONS }): FoundScheduler {
  return { key: wanted.id, name: POLL_JOB, every: wanted.every, offset: wanted.offset, template: { data: wanted.data, opts } };
}

describe('planSchedulers', () => {
  const wanted = wantedSchedulers(scopes(['group:a', 'group:b', 'org:c']), 60);

  it('adds every scheduler to an empty Redis', () => {
    const plan = planSchedulers(wanted, []);
    expect(plan.upsert.map((w) => w.id)).toEqual(['poll.group.a', 'poll.group.b', 'poll.org.c']);
    expect(plan.remove).toEqual([]);
  });

  it('changes nothing when Redis already matches (key order and extra BullMQ options aside)', () => {
    const found = wanted.map((w) => asFound(w, { jobId: 'x', ...Object.fromEntries(Object.entries(POLL_JOB_OPTIONS).reverse()) }));
    const plan = planSchedulers(wanted, found);
    expect(plan).toEqual({ upsert: [], remove: [], unchanged: 3 });
  });

  it('updates a scheduler whose interval, payload or options differ', () => {
    const [a, b, c] = wanted as [WantedScheduler, WantedScheduler, WantedScheduler];
    const found = [
      { ...asFound(a), every: 30_000 },
      asFound({ ...b, data: { ...b.data, eventTypes: ['X'] } }),
      asFound(c, { attempts: 1 }),
    ];
    expect(planSchedulers(wanted, found).upsert.map((w) => w.id)).toEqual([a.id, b.id, c.id]);
  });

  it('removes schedulers of scopes no longer configured, and only ours', () => {
    const found = [
      ...wanted.map((w) => asFound(w)),
      { key: 'poll.group.gone', name: POLL_JOB, every: 60_000 },
      { key: 'nightly-report', name: 'report' },
    ];
    const plan = planSchedulers(wanted, found);
    expect(plan.remove).toEqual(['poll.group.gone']);
    expect(plan.upsert).toEqual([]);
  });

  it('spreads scopes over the interval', () => {
    const many = wantedSchedulers(scopes(Array.from({ length: 50 }, (_, i) => `group:g${i}`)), 60);
    expect(new Set(many.map((w) => w.offset)).size).toBeGreaterThan(40);
    for (const w of many) expect(w.every).toBe(60_000);
  });
});

describe('reconcile schedulers', () => {
  const config = scopes(['group:a', 'org:c']);

  it('keeps one reconcile scheduler per scope beside its poll scheduler, unless turned off', () => {
    const wanted = wantedSchedulers(config, 60, { intervalSeconds: 21_600, days: 7 });
    expect(wanted.map((w) => `${w.id} ${w.name} ${w.every}`)).toEqual([
      'poll.group.a poll 60000',
      'poll.org.c poll 60000',
      'reconcile.group.a reconcile 21600000',
      'reconcile.org.c reconcile 21600000',
    ]);
    expect(wanted[2]!.data).toEqual({ scope: 'group:a', eventTypes: [], includeRaw: false, days: 7 });
    expect(wantedSchedulers(config, 60, { intervalSeconds: 0, days: 7 })).toHaveLength(2);
  });

  it('removes the reconcile schedulers once reconcile is turned off, and nothing else', () => {
    const withReconcile = wantedSchedulers(config, 60, { intervalSeconds: 21_600, days: 7 });
    const found = withReconcile.map((w) => ({ ...asFound(w, { ...w.opts }), name: w.name }));
    const plan = planSchedulers(wantedSchedulers(config, 60), found);
    expect(plan.remove).toEqual(['reconcile.group.a', 'reconcile.org.c']);
    expect(plan.upsert).toEqual([]);
  });
});

describe('canonical', () => {
  it('ignores key order but not values', () => {
    expect(canonical({ a: 1, b: { c: 2, d: [1, 2] } })).toBe(canonical({ b: { d: [1, 2], c: 2 }, a: 1 }));
    expect(canonical({ a: 1 })).not.toBe(canonical({ a: 2 }));
    expect(canonical(undefined)).not.toBe(canonical({}));
  });
});

describe('scopes fed by the event export', () => {
  it('are polled every pushedPollIntervalSeconds, the others at the usual period, each reconciled as before', () => {
    const config = loadConfig({
      env: { EVENTS_MIRROR_CONFIG: '', EVENTS_PUSHED_POLL_INTERVAL_SECONDS: '3600' },
      overrides: { scopes: ['group:a', { scope: 'group:b', pushed: true }] },
    });
    expect(config.scheduler.pushedPollIntervalSeconds).toBe(3600);
    const wanted = wantedSchedulers(config.scopes, 60, { intervalSeconds: 21_600, days: 7 }, config.scheduler.pushedPollIntervalSeconds);
    expect(wanted.map((w) => `${w.id} ${w.every}`)).toEqual([
      'poll.group.a 60000',
      'poll.group.b 3600000',
      'reconcile.group.a 21600000',
      'reconcile.group.b 21600000',
    ]);
    expect(wanted[1]!.offset).toBeLessThan(3_600_000);
  });
});
