/**
 * The report views on the real PostgreSQL and on the embedded warehouse, from known events:
 * alert episodes (opened, acknowledged, closed; one still open; a closing type a user adds),
 * security changes by category (and one a user maps), data-explorer access, and the event catalog.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiEvent, ValidEvent } from '../../src/events/types.js';
import type { Warehouse } from '../../src/warehouse/database.js';
import { upsertEvents } from '../../src/warehouse/events.repository.js';
import { dataExplorer, metricAlert, toValid } from '../fixtures/events.js';
import { openMigratedWarehouse, type TestWarehouse } from '../helpers/database.js';

const T0 = new Date('2026-11-22T00:00:00Z');
let counter = 0;
const freshScope = () => `group:views${++counter}`;

/** An event of `type` at `created`, as the service sends them. */
function event(scope: string, type: string, created: string, fields: Partial<ApiEvent> = {}): ValidEvent {
  counter += 1;
  const id = `${scope.slice(6)}-${String(counter).padStart(4, '0')}`;
  return toValid({ id, groupId: scope.slice(6), created, eventTypeName: type, links: [], ...fields });
}

describe.each(['postgres', 'pglite'] as const)('report views on %s', (kind) => {
  let opened: TestWarehouse;
  let warehouse: Warehouse;
  beforeAll(async () => {
    opened = await openMigratedWarehouse(kind);
    warehouse = opened.warehouse;
  });
  afterAll(async () => {
    await opened?.close();
  });

  it('alert_episodes pairs an alert’s events by alertId: opened, acknowledged, closed, and one still open', async () => {
    const scope = freshScope();
    const metric = { metricName: 'CONNECTIONS_PERCENT', clusterName: 'Cluster0', hostname: 'h1.example.test', replicaSetName: 'rs0' };
    await upsertEvents(
      warehouse.db,
      scope,
      [
        event(scope, 'OUTSIDE_METRIC_THRESHOLD', '2026-11-20T10:00:00Z', {
          alertId: `${scope}-a1`,
          ...metric,
          currentValue: { number: 81, units: 'RAW' },
        }),
        event(scope, 'ALERT_ACKNOWLEDGED_AUDIT', '2026-11-20T10:05:00Z', { alertId: `${scope}-a1`, username: 'ops@example.test' }),
        event(scope, 'OUTSIDE_METRIC_THRESHOLD', '2026-11-20T10:10:00Z', {
          alertId: `${scope}-a1`,
          ...metric,
          currentValue: { number: 95, units: 'RAW' },
        }),
        event(scope, 'INSIDE_METRIC_THRESHOLD', '2026-11-20T10:30:00Z', {
          alertId: `${scope}-a1`,
          ...metric,
          currentValue: { number: 60, units: 'RAW' },
        }),
        event(scope, 'HOST_DOWN', '2026-11-20T11:00:00Z', { alertId: `${scope}-a2`, hostname: 'h2.example.test' }),
        event(scope, 'NEW_STYLE_ALERT_OPENED', '2026-11-20T12:00:00Z', { alertId: `${scope}-a3` }),
        event(scope, 'NEW_STYLE_ALERT_RESOLVED', '2026-11-20T12:20:00Z', { alertId: `${scope}-a3` }),
      ],
      T0,
    );
    const episodes = () => warehouse.db.selectFrom('alert_episodes').selectAll().where('scope', '=', scope).orderBy('alert_id').execute();
    const [closed, open, unknown] = await episodes();
    expect(closed).toMatchObject({
      alert_id: `${scope}-a1`,
      opened_at: new Date('2026-11-20T10:00:00Z'),
      opened_by: 'OUTSIDE_METRIC_THRESHOLD',
      acknowledged_at: new Date('2026-11-20T10:05:00Z'),
      closed_at: new Date('2026-11-20T10:30:00Z'),
      is_open: false,
      duration_seconds: 1800,
      metric_name: 'CONNECTIONS_PERCENT',
      peak_value: 95,
      last_value: 60,
      units: 'RAW',
      cluster_name: 'Cluster0',
      replica_set_name: 'rs0',
      events: 4,
    });
    expect(open).toMatchObject({
      alert_id: `${scope}-a2`,
      opened_by: 'HOST_DOWN',
      closed_at: null,
      is_open: true,
      duration_seconds: null,
      hostname: 'h2.example.test',
    });
    // A type the mapping does not know is an update: the episode stays open until a user says it closes.
    expect(unknown).toMatchObject({ opened_by: 'NEW_STYLE_ALERT_OPENED', is_open: true });
    await warehouse.db.insertInto('alert_event_types').values({ event_type_name: 'NEW_STYLE_ALERT_RESOLVED', role: 'close' }).execute();
    expect((await episodes())[2]).toMatchObject({ closed_at: new Date('2026-11-20T12:20:00Z'), is_open: false, duration_seconds: 1200 });
  });

  it('security_audit lists access changes by category with actor, target and address; a user maps a new type', async () => {
    const scope = freshScope();
    const actor = { username: 'admin@example.test', remoteAddress: '198.51.100.4' };
    await upsertEvents(
      warehouse.db,
      scope,
      [
        event(scope, 'UNSUCCESSFUL_LOGIN_AUDIT', '2026-11-20T09:00:00Z', { ...actor }),
        event(scope, 'API_KEY_ACCESS_LIST_ENTRY_ADDED', '2026-11-20T09:01:00Z', { ...actor, accessListEntry: '203.0.113.0/24' }),
        event(scope, 'REMOVED_FROM_GROUP', '2026-11-20T09:02:00Z', { ...actor, targetUsername: 'leaver@example.test' }),
        event(scope, 'API_KEY_CREATED', '2026-11-20T09:03:00Z', { apiKeyId: 'k1', publicKey: 'autobot', targetPublicKey: 'newkey' }),
        event(scope, 'FEDERATION_SETTINGS_UPDATED', '2026-11-20T09:04:00Z', { ...actor }),
        event(scope, 'CLUSTER_READY', '2026-11-20T09:05:00Z'),
      ],
      T0,
    );
    const audit = () =>
      warehouse.db
        .selectFrom('security_audit')
        .select(['event_type_name', 'category', 'action', 'actor', 'target', 'remote_address'])
        .where('scope', '=', scope)
        .orderBy('created')
        .execute();
    expect(await audit()).toEqual([
      {
        event_type_name: 'UNSUCCESSFUL_LOGIN_AUDIT',
        category: 'login',
        action: 'failed',
        actor: 'admin@example.test',
        target: null,
        remote_address: '198.51.100.4',
      },
      {
        event_type_name: 'API_KEY_ACCESS_LIST_ENTRY_ADDED',
        category: 'access_list',
        action: 'added',
        actor: 'admin@example.test',
        target: '203.0.113.0/24',
        remote_address: '198.51.100.4',
      },
      {
        event_type_name: 'REMOVED_FROM_GROUP',
        category: 'membership',
        action: 'removed',
        actor: 'admin@example.test',
        target: 'leaver@example.test',
        remote_address: '198.51.100.4',
      },
      {
        event_type_name: 'API_KEY_CREATED',
        category: 'api_key',
        action: 'created',
        actor: 'autobot',
        target: 'newkey',
        remote_address: null,
      },
    ]);
    await warehouse.db
      .insertInto('security_event_categories')
      .values({ event_type_name: 'FEDERATION_SETTINGS_UPDATED', category: 'identity_provider', action: 'changed' })
      .execute();
    expect((await audit()).map((r) => r.category)).toEqual(['login', 'access_list', 'membership', 'api_key', 'identity_provider']);
  });

  it('data_access lists data-explorer actions by database, collection, operation and actor', async () => {
    const scope = freshScope();
    await upsertEvents(
      warehouse.db,
      scope,
      [toValid({ ...dataExplorer, id: `${scope}-de` }), toValid({ ...metricAlert, id: `${scope}-ma` })],
      T0,
    );
    const rows = await warehouse.db.selectFrom('data_access').selectAll().where('scope', '=', scope).execute();
    expect(rows).toEqual([
      {
        event_id: `${scope}-de`,
        scope,
        group_id: dataExplorer.groupId,
        created: new Date(dataExplorer.created!),
        event_type_name: 'DATA_EXPLORER',
        database: 'sales',
        collection: 'orders',
        op_type: 'find',
        actor: 'ada@example.test',
        remote_address: '203.0.113.7',
      },
    ]);
  });

  it('event_catalog lists every type seen, when, how often, and the fields it carried', async () => {
    const scope = freshScope();
    const type = `CATALOG_TYPE_${kind.toUpperCase()}`;
    await upsertEvents(
      warehouse.db,
      scope,
      [
        event(scope, type, '2026-11-20T08:00:00Z', { username: 'a@example.test' }),
        event(scope, type, '2026-11-21T08:00:00Z', { hostname: 'h.example.test' }),
      ],
      T0,
    );
    const row = await warehouse.db.selectFrom('event_catalog').selectAll().where('event_type_name', '=', type).executeTakeFirstOrThrow();
    expect(row).toMatchObject({ first_seen: new Date('2026-11-20T08:00:00Z'), last_seen: new Date('2026-11-21T08:00:00Z') });
    expect(Number(row.events)).toBe(2);
    expect(row.fields).toEqual(['created', 'eventTypeName', 'groupId', 'hostname', 'id', 'links', 'username']);
  });
});
