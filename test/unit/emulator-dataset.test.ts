import { describe, expect, it } from 'vitest';
import type { ApiEvent } from '../../src/events/types.js';
import { Dataset, type DatasetOptions } from '../../src/emulator/dataset.js';
import { Rng } from '../../src/emulator/random.js';
import { parseIsoDate } from '../../src/time.js';

const NOW = Date.UTC(2026, 10, 20, 12, 0, 0);
const BASE = 'http://127.0.0.1:1/api/public/v1.0';
const ORG = 'org:5f0000000000000000000001';
const GROUP = 'group:600000000000000000000002';

function dataset(overrides: Partial<DatasetOptions> = {}): Dataset {
  return new Dataset({
    seed: 9,
    orgs: ['5f0000000000000000000001'],
    groups: ['600000000000000000000002'],
    eventsPerScope: 2000,
    days: 3,
    malformedRate: 0,
    now: () => NOW,
    baseUrl: BASE,
    ...overrides,
  });
}

const seconds = (event: ApiEvent): number => Number.parseInt((event.id as string).slice(0, 8), 16);

/** Brute force: the whole list, filtered the way the API documents it. */
function bruteForce(events: ApiEvent[], filter: { types?: string[]; minSec?: number; maxSec?: number }): ApiEvent[] {
  return events.filter((event) => {
    const sec = seconds(event);
    return (
      (!filter.types || filter.types.includes(event.eventTypeName as string)) &&
      (filter.minSec === undefined || sec >= filter.minSec) &&
      (filter.maxSec === undefined || sec <= filter.maxSec)
    );
  });
}

describe('Dataset', () => {
  it('is deterministic for a seed and differs between seeds', () => {
    expect(dataset().allEvents(GROUP, { includeRaw: true })).toEqual(dataset().allEvents(GROUP, { includeRaw: true }));
    expect(dataset({ seed: 10 }).allEvents(GROUP)[0]).not.toEqual(dataset().allEvents(GROUP)[0]);
  });

  it('generates well-formed events newest first, ties by id descending, with unique ObjectId-like ids', () => {
    const data = dataset();
    for (const scope of [ORG, GROUP]) {
      const events = data.allEvents(scope);
      expect(events).toHaveLength(2000);
      expect(new Set(events.map((e) => e.id)).size).toBe(2000);
      for (const [i, event] of events.entries()) {
        expect(event.id).toMatch(/^[0-9a-f]{24}$/);
        expect(event.created).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
        expect(parseIsoDate(event.created as string)?.getTime()).toBe(seconds(event) * 1000);
        expect(event.links?.[0]).toEqual({
          rel: 'self',
          href: `${BASE}/${scope.startsWith('org') ? 'orgs' : 'groups'}/${scope.split(':')[1]}/events/${event.id}`,
        });
        const next = events[i + 1];
        if (next) expect((event.id as string) > (next.id as string)).toBe(true);
      }
      // Bursts: some seconds hold several events.
      const perSecond = new Map<string, number>();
      for (const event of events) perSecond.set(event.created as string, (perSecond.get(event.created as string) ?? 0) + 1);
      expect(Math.max(...perSecond.values())).toBeGreaterThanOrEqual(3);
      expect(seconds(events.at(-1) as ApiEvent)).toBeGreaterThanOrEqual(NOW / 1000 - 3 * 86_400);
      expect(seconds(events[0] as ApiEvent)).toBeLessThanOrEqual(NOW / 1000);
    }
  });

  it('keeps org and project feeds disjoint: orgId on org events, groupId on project events', () => {
    const data = dataset();
    expect(data.allEvents(ORG).every((e) => e.orgId === '5f0000000000000000000001' && e.groupId === undefined)).toBe(true);
    const group = data.allEvents(GROUP, { includeRaw: true });
    expect(group.every((e) => e.groupId === '600000000000000000000002' && e.orgId === undefined)).toBe(true);
    expect(group.every((e) => e.raw?.orgId === '5f0000000000000000000001')).toBe(true);
    expect(data.orgIdOf('600000000000000000000002')).toBe('5f0000000000000000000001');
    expect(data.scopes()).toEqual([ORG, GROUP]);
  });

  it('covers every documented field somewhere, plus undocumented extras, with the documented rules', () => {
    const data = dataset();
    const events = [...data.allEvents(ORG, { includeRaw: true }), ...data.allEvents(GROUP, { includeRaw: true })];
    const seen = new Set(events.flatMap((e) => Object.keys(e)));
    const documented = [
      'id',
      'groupId',
      'orgId',
      'created',
      'eventTypeName',
      'alertId',
      'alertConfigId',
      'apiKeyId',
      'publicKey',
      'userId',
      'username',
      'remoteAddress',
      'isGlobalAdmin',
      'targetUsername',
      'targetPublicKey',
      'accessListEntry',
      'teamId',
      'clusterId',
      'clusterName',
      'hostId',
      'hostname',
      'port',
      'replicaSetName',
      'shardName',
      'database',
      'collection',
      'opType',
      'invoiceId',
      'paymentId',
      'maintenanceWindowId',
      'metricName',
      'currentValue',
      'raw',
      'links',
      'diffs',
      'resourceId',
      'resourceType',
    ];
    expect(documented.filter((field) => !seen.has(field))).toEqual([]);
    expect(new Set(events.map((e) => e.eventTypeName)).size).toBeGreaterThanOrEqual(30);
    for (const event of events) {
      expect(event.userId !== undefined && event.apiKeyId !== undefined).toBe(false);
      expect(event.username !== undefined && event.publicKey !== undefined).toBe(false);
      if (event.eventTypeName === 'OUTSIDE_METRIC_THRESHOLD') {
        expect(event.metricName).toEqual(expect.any(String));
        expect(event.currentValue).toEqual({ number: expect.any(Number), units: expect.any(String) });
      }
      if (event.eventTypeName?.startsWith('DATA_EXPLORER')) expect(event.opType).toEqual(expect.any(String));
      if (event.eventTypeName === 'AUTOMATION_CONFIG_PUBLISHED_AUDIT') {
        expect(event.diffs?.length).toBeGreaterThan(0);
        for (const diff of event.diffs ?? []) expect(Object.keys(diff)).toContain('priviileges');
      }
    }
    const diffs = events.flatMap((e) => e.diffs ?? []);
    expect(diffs.some((d) => d.priviileges?.some((p) => 'cluster' in p.resource))).toBe(true);
    expect(diffs.some((d) => d.priviileges === null)).toBe(true);
  });

  it('answers filtered, paged queries exactly like a brute-force filter of the full list', () => {
    const data = dataset();
    const all = data.allEvents(GROUP);
    const rng = new Rng(3);
    const types = [...new Set(all.map((e) => e.eventTypeName as string))];
    for (let round = 0; round < 60; round += 1) {
      const a = seconds(rng.pick(all));
      const b = seconds(rng.pick(all));
      const filter = {
        types: rng.chance(0.5) ? [rng.pick(types), ...(rng.chance(0.5) ? [rng.pick(types), 'NOT_A_GENERATED_TYPE'] : [])] : undefined,
        minSec: rng.chance(0.7) ? Math.min(a, b) : undefined,
        maxSec: rng.chance(0.7) ? Math.max(a, b) : undefined,
      };
      const expected = bruteForce(all, filter);
      const limit = rng.int(1, 120);
      const pages: ApiEvent[] = [];
      for (let offset = 0; offset <= expected.length; offset += limit) {
        const page = data.query(GROUP, {
          eventTypes: filter.types,
          minSec: filter.minSec,
          maxSec: filter.maxSec,
          offset,
          limit,
          includeRaw: false,
        });
        expect(page.totalCount).toBe(expected.length);
        pages.push(...page.results);
      }
      expect(pages.map((e) => e.id)).toEqual(expected.map((e) => e.id));
    }
  });

  it('treats minDate and maxDate as inclusive on a shared second', () => {
    const data = dataset();
    const all = data.allEvents(GROUP);
    const burstSecond = seconds(all.find((e, i) => all[i + 1]?.created === e.created) as ApiEvent);
    const inSecond = all.filter((e) => seconds(e) === burstSecond);
    expect(inSecond.length).toBeGreaterThan(1);
    const result = data.query(GROUP, { minSec: burstSecond, maxSec: burstSecond, offset: 0, limit: 500, includeRaw: false });
    expect(result.results.map((e) => e.id)).toEqual(inSecond.map((e) => e.id));
  });

  it('merges added events (bursts, late arrivals, new type names) into the order and the indexes', () => {
    const data = dataset();
    const all = data.allEvents(GROUP);
    const middle = seconds(all[1000] as ApiEvent);
    const burst = data.addEvents(GROUP, 7, { createdMs: middle * 1000, eventTypeName: 'BRAND_NEW_TYPE' });
    data.addEvents(GROUP, 3);
    expect(burst.every((e) => e.created === all[1000]?.created && e.eventTypeName === 'BRAND_NEW_TYPE')).toBe(true);
    expect(data.count(GROUP)).toBe(2010);
    const merged = data.allEvents(GROUP);
    const sorted = [...merged].sort((x, y) => seconds(y) - seconds(x) || ((y.id as string) > (x.id as string) ? 1 : -1));
    expect(merged.map((e) => e.id)).toEqual(sorted.map((e) => e.id));
    expect(
      data.query(GROUP, { eventTypes: ['BRAND_NEW_TYPE'], offset: 0, limit: 100, includeRaw: false }).results.map((e) => e.id),
    ).toEqual([...burst].reverse().map((e) => e.id));
    const window = data.query(GROUP, { minSec: middle, maxSec: middle, offset: 2, limit: 3, includeRaw: false });
    expect(window.results.map((e) => e.id)).toEqual(
      merged
        .filter((e) => seconds(e) === middle)
        .slice(2, 5)
        .map((e) => e.id),
    );
    expect(data.validIds(GROUP).size).toBe(2010);
  });

  it('finds every event by id, identical to its list form, and nothing else', () => {
    const data = dataset();
    for (const event of data.allEvents(ORG, { includeRaw: true }).slice(0, 200)) {
      expect(data.findEvent(ORG, event.id as string, true)).toEqual(event);
      expect(data.findEvent(GROUP, event.id as string, false)).toBeUndefined();
    }
    expect(data.findEvent(ORG, '000000000000000000000000', false)).toBeUndefined();
    expect(data.findEvent(ORG, 'nope', false)).toBeUndefined();
  });

  it('generates malformed events at the configured rate and serves them; validIds leaves them out', () => {
    const data = dataset({ malformedRate: 0.1 });
    const events = data.allEvents(GROUP);
    const noId = events.filter((e) => e.id === undefined);
    const badCreated = events.filter((e) => e.id !== undefined && parseIsoDate(String(e.created)) === undefined);
    expect(noId.length).toBeGreaterThan(20);
    expect(badCreated.length).toBeGreaterThan(20);
    expect(data.malformedCount(GROUP)).toBe(noId.length + badCreated.length);
    expect(data.validIds(GROUP).size).toBe(2000 - data.malformedCount(GROUP));
    data.addEvents(GROUP, 2, { malformed: 'no-id' });
    expect(data.malformedCount(GROUP)).toBe(noId.length + badCreated.length + 2);
  });
});
