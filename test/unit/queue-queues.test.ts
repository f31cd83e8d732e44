import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import {
  backfillJobData,
  backfillJobId,
  backfillJobSchema,
  pollJobData,
  pollJobSchema,
  schedulerIdFor,
  scopeOfSchedulerId,
  settingsFromJob,
  spreadOffsetMs,
  windowFromJob,
} from '../../src/queue/queues.js';
import { parseScope } from '../../src/scope.js';

const SECRET = 'private-key-that-must-never-travel';

function configWith(scopes: string[]) {
  return loadConfig({
    env: { EVENTS_API_PUBLIC_KEY: 'pub', EVENTS_API_PRIVATE_KEY: SECRET, EVENTS_SCOPES: scopes.join(',') },
    overrides: { sync: { eventTypes: ['CLUSTER_CREATED'], startDate: '2026-11-01' } },
  });
}

describe('queue payloads', () => {
  it('carry the scope settings and nothing secret', () => {
    const config = configWith(['group:abc']);
    const settings = config.scopes[0]!;
    const poll = pollJobData(settings);
    expect(poll).toEqual({ scope: 'group:abc', eventTypes: ['CLUSTER_CREATED'], includeRaw: false, startDate: '2026-11-01' });
    const window = { minDate: new Date('2026-11-01T00:00:00Z'), maxDate: new Date('2026-11-01T06:00:00Z') };
    const backfill = backfillJobData(settings, window);
    for (const payload of [poll, backfill]) {
      expect(JSON.stringify(payload)).not.toContain(SECRET);
      expect(JSON.stringify(payload)).not.toContain('pub');
    }
    expect(pollJobSchema.parse(poll)).toEqual(poll);
    expect(windowFromJob(backfillJobSchema.parse(backfill))).toEqual(window);
    expect(settingsFromJob(poll).scope).toEqual(parseScope('group:abc'));
  });

  it('refuse a malformed payload', () => {
    expect(pollJobSchema.safeParse({ scope: 'cluster:x', eventTypes: [], includeRaw: false }).success).toBe(false);
    expect(pollJobSchema.safeParse({ scope: 'org:x', eventTypes: [], includeRaw: false, privateKey: 'x' }).success).toBe(false);
    expect(
      backfillJobSchema.safeParse({ scope: 'org:x', eventTypes: [], includeRaw: false, minDate: 'yesterday', maxDate: '2026-11-01' })
        .success,
    ).toBe(false);
  });
});

describe('ids', () => {
  it('name one scheduler per scope and read the scope back', () => {
    for (const key of ['group:abc', 'org:5f00aa', 'group:a-b_c', 'org:x.y'.replace('.', '-')]) {
      const scope = parseScope(key);
      const id = schedulerIdFor(scope);
      expect(id).not.toContain(':');
      expect(scopeOfSchedulerId(id)).toEqual(scope);
    }
    expect(schedulerIdFor(parseScope('group:abc'))).not.toBe(schedulerIdFor(parseScope('org:abc')));
    expect(scopeOfSchedulerId('nightly-report')).toBeUndefined();
    expect(scopeOfSchedulerId('poll.cluster.abc')).toBeUndefined();
  });

  it('give each backfill window a stable id without colons', () => {
    const scope = parseScope('group:abc');
    const w1 = { minDate: new Date('2026-11-01T00:00:00Z'), maxDate: new Date('2026-11-01T06:00:00Z') };
    const w2 = { minDate: new Date('2026-11-01T06:00:00Z'), maxDate: new Date('2026-11-01T12:00:00Z') };
    const id = backfillJobId(scope, w1);
    expect(id).toBe('backfill.group.abc.20261101T000000Z.20261101T060000Z');
    expect(id).not.toContain(':');
    expect(backfillJobId(scope, { ...w1 })).toBe(id);
    expect(backfillJobId(scope, w2)).not.toBe(id);
    expect(backfillJobId(parseScope('org:abc'), w1)).not.toBe(id);
  });
});

describe('spreadOffsetMs', () => {
  it('is stable, inside the period and never zero', () => {
    for (const every of [1_000, 60_000, 3_600_000]) {
      for (let i = 0; i < 200; i++) {
        const offset = spreadOffsetMs(`group:${i}`, every);
        expect(offset).toBeGreaterThan(0);
        expect(offset).toBeLessThan(every);
        expect(spreadOffsetMs(`group:${i}`, every)).toBe(offset);
      }
    }
  });

  it('spreads a thousand scopes over the minute', () => {
    const perSecond = new Array<number>(60).fill(0);
    for (let i = 0; i < 1000; i++) perSecond[Math.floor(spreadOffsetMs(`group:6a${String(i).padStart(22, '0')}`, 60_000) / 1000)]! += 1;
    // Uniform would be ~17 a second; all in one second is what the spread prevents.
    expect(Math.max(...perSecond)).toBeLessThan(40);
    expect(perSecond.filter((n) => n === 0).length).toBeLessThan(3);
  });
});
