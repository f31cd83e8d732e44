/**
 * What the report views need from the emulator: alert lifecycles sharing an alertId in the order
 * the service emits them, security events with targets, data-explorer sessions.
 */
import { describe, expect, it } from 'vitest';
import { Dataset } from '../../src/emulator/dataset.js';
import type { ApiEvent } from '../../src/events/types.js';

const NOW = Date.UTC(2026, 10, 20, 12, 0, 0);
const ORG = '5f0000000000000000000001';
const GROUP = '600000000000000000000002';
const OPENS = new Set(['OUTSIDE_METRIC_THRESHOLD', 'HOST_DOWN', 'HOST_RESTARTED', 'NO_PRIMARY', 'REPLICATION_OPLOG_WINDOW_RUNNING_OUT']);
const CLOSES = new Set(['INSIDE_METRIC_THRESHOLD', 'HOST_RECOVERED', 'PRIMARY_ELECTED']);
const ACKS = new Set(['ALERT_ACKNOWLEDGED_AUDIT', 'ALERT_UNACKNOWLEDGED_AUDIT']);

function eventsOf(scopeKey: string, seed: number): ApiEvent[] {
  const dataset = new Dataset({
    seed,
    orgs: [ORG],
    groups: [GROUP],
    eventsPerScope: 20_000,
    days: 30,
    malformedRate: 0,
    now: () => NOW,
    baseUrl: 'http://127.0.0.1:1/api/public/v1.0',
  });
  return dataset.allEvents(scopeKey);
}

const ms = (event: ApiEvent) => Date.parse(event.created as string);

describe.each([1, 2, 3])('emulated report data, seed %i', (seed) => {
  it('alert events share an alertId per episode: opened, maybe acknowledged, then closed, some still open', () => {
    const episodes = new Map<string, ApiEvent[]>();
    for (const event of eventsOf(`group:${GROUP}`, seed)) {
      if (event.alertId === undefined) continue;
      episodes.set(event.alertId, [...(episodes.get(event.alertId) ?? []), event]);
    }
    let closed = 0;
    let acknowledged = 0;
    let reFired = 0;
    for (const [alertId, events] of episodes) {
      const opens = events.filter((e) => OPENS.has(e.eventTypeName as string));
      const acks = events.filter((e) => ACKS.has(e.eventTypeName as string));
      const closes = events.filter((e) => CLOSES.has(e.eventTypeName as string));
      expect(opens.length + acks.length + closes.length, `${alertId}: only alert types`).toBe(events.length);
      const lastOpen = Math.max(...opens.map(ms));
      for (const ack of acks) expect(ms(ack), `${alertId}: acknowledged after it opened`).toBeGreaterThan(lastOpen);
      for (const close of closes) {
        expect(ms(close), `${alertId}: closed after it opened`).toBeGreaterThan(lastOpen);
        for (const ack of acks) expect(ms(close)).toBeGreaterThan(ms(ack));
      }
      // One source per alert: the same host (or replica set) and metric in every event.
      expect(new Set(events.filter((e) => e.replicaSetName).map((e) => e.replicaSetName)).size).toBeLessThanOrEqual(1);
      expect(new Set(events.filter((e) => e.metricName).map((e) => e.metricName)).size).toBeLessThanOrEqual(1);
      if (opens.length > 1) reFired += 1;
      if (closes.length > 0 && opens.length > 0) closed += 1;
      if (acks.length > 0 && opens.length > 0) acknowledged += 1;
      const outside = opens.filter((e) => e.currentValue).map((e) => e.currentValue?.number as number);
      const inside = closes.filter((e) => e.currentValue).map((e) => e.currentValue?.number as number);
      if (outside.length > 0 && inside.length > 0) expect(Math.max(...inside)).toBeLessThan(Math.min(...outside));
    }
    const withOpening = [...episodes.values()].filter((events) => events.some((e) => OPENS.has(e.eventTypeName as string))).length;
    expect(withOpening).toBeGreaterThan(100);
    expect(closed / withOpening).toBeGreaterThan(0.5);
    expect(withOpening - closed, 'some alerts still open').toBeGreaterThan(10);
    expect(acknowledged).toBeGreaterThan(10);
    expect(reFired).toBeGreaterThan(10);
  });

  it('security events name an actor, a target and an address; failed logins are among them', () => {
    const events = eventsOf(`org:${ORG}`, seed);
    const byType = (type: string) => events.filter((e) => e.eventTypeName === type);
    expect(byType('UNSUCCESSFUL_LOGIN_AUDIT').length).toBeGreaterThan(0);
    for (const event of byType('SUCCESSFUL_LOGIN_AUDIT'))
      expect(event).toMatchObject({ username: expect.any(String), remoteAddress: expect.any(String) });
    for (const event of byType('REMOVED_FROM_ORG')) expect(event.targetUsername).toEqual(expect.any(String));
    for (const event of byType('API_KEY_ACCESS_LIST_ENTRY_ADDED')) expect(event.accessListEntry).toEqual(expect.any(String));
    for (const event of byType('API_KEY_CREATED')) expect(event.targetPublicKey).toEqual(expect.any(String));
  });

  it('data-explorer actions come in sessions: one user working in one place for a while', () => {
    const sessions = new Map<number, ApiEvent[]>();
    for (const event of eventsOf(`group:${GROUP}`, seed)) {
      if (!event.eventTypeName?.startsWith('DATA_EXPLORER')) continue;
      const bucket = Math.floor(ms(event) / 1_800_000);
      sessions.set(bucket, [...(sessions.get(bucket) ?? []), event]);
    }
    const busy = [...sessions.values()].filter((events) => events.length >= 3);
    expect(busy.length).toBeGreaterThan(50);
    for (const events of busy) expect(new Set(events.map((e) => e.username)).size).toBe(1);
    const sameCollection = busy.filter((events) => {
      const places = events.filter((e) => e.collection).map((e) => `${e.database}.${e.collection}`);
      const counts = new Map<string, number>();
      for (const place of places) counts.set(place, (counts.get(place) ?? 0) + 1);
      return Math.max(0, ...counts.values()) * 2 > places.length;
    });
    expect(sameCollection.length / busy.length).toBeGreaterThan(0.8);
  });
});
