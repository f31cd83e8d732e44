import { describe, expect, it } from 'vitest';
import type { ApiEvent } from '../../src/events/types.js';
import { parseScope } from '../../src/scope.js';
import {
  EVENT_ROW_COLUMNS,
  MISSING_EVENT_TYPE,
  TEXT_FIELD_COLUMNS,
  dedupeById,
  eventRowValues,
  toColumnParameters,
  toEventRow,
} from '../../src/warehouse/event-row.js';
import {
  GROUP_ID,
  ORG_ID,
  apiKeyAction,
  automationAudit,
  dataExplorer,
  invoiceClosed,
  metricAlert,
  oddlyTyped,
  toValid,
  withRawAndUnknownFields,
} from '../fixtures/events.js';

const group = parseScope(`group:${GROUP_ID}`);
const org = parseScope(`org:${ORG_ID}`);

describe('toEventRow', () => {
  it('fills the alert columns of OUTSIDE_METRIC_THRESHOLD', () => {
    const row = toEventRow(group, toValid(metricAlert));
    expect(row).toMatchObject({
      id: metricAlert.id,
      scope: group.key,
      group_id: GROUP_ID,
      org_id: null,
      created: '2026-11-20T10:15:30.000Z',
      event_type_name: 'OUTSIDE_METRIC_THRESHOLD',
      alert_id: 'alert-1',
      alert_config_id: 'alert-config-1',
      metric_name: 'CONNECTIONS_PERCENT',
      current_value_number: 87.5,
      current_value_units: 'RAW',
      cluster_id: 'cluster-1',
      cluster_name: 'Cluster0',
      host_id: 'host-1',
      hostname: 'cluster0-shard-00-01.example.test',
      port: 27017,
      replica_set_name: 'atlas-rs0',
      shard_name: 'shard-00',
      username: null,
    });
    expect(JSON.parse(row.payload)).toEqual(metricAlert);
  });

  it('fills user, data explorer, API key and invoice columns', () => {
    expect(toEventRow(group, toValid(dataExplorer))).toMatchObject({
      user_id: 'user-1',
      username: 'ada@example.test',
      remote_address: '203.0.113.7',
      is_global_admin: false,
      database: 'sales',
      collection: 'orders',
      op_type: 'find',
      api_key_id: null,
      public_key: null,
    });
    expect(toEventRow(group, toValid(apiKeyAction))).toMatchObject({
      api_key_id: 'api-key-1',
      public_key: 'abcdefgh',
      target_public_key: 'ijklmnop',
      access_list_entry: '192.0.2.0/24',
      team_id: 'team-1',
      user_id: null,
    });
    expect(toEventRow(org, toValid(invoiceClosed))).toMatchObject({
      org_id: ORG_ID,
      group_id: null,
      invoice_id: 'invoice-1',
      payment_id: 'payment-1',
      maintenance_window_id: 'maintenance-1',
    });
  });

  it('keeps diffs and unknown fields only in the payload, raw in its own column', () => {
    const audit = toEventRow(group, toValid(automationAudit));
    expect(audit).not.toHaveProperty('diffs');
    expect((JSON.parse(audit.payload) as ApiEvent).diffs?.[1]?.priviileges).toHaveLength(2);
    const odd = toEventRow(group, toValid(withRawAndUnknownFields));
    expect(JSON.parse(odd.raw!)).toEqual(withRawAndUnknownFields.raw);
    expect((JSON.parse(odd.payload) as ApiEvent).newFieldFromTheFuture).toEqual({ nested: [1, 'two', { three: 3 }] });
    expect(toEventRow(group, toValid(metricAlert)).raw).toBeNull();
  });

  it('turns fields of the wrong JSON type into NULL instead of failing', () => {
    const row = toEventRow(group, toValid(oddlyTyped));
    expect(row).toMatchObject({ port: null, is_global_admin: null, hostname: null, current_value_number: null, current_value_units: null });
    expect((JSON.parse(row.payload) as ApiEvent).port).toBe('27017');
    for (const port of [-1, 1.5, 2 ** 31, Number.NaN]) {
      expect(toEventRow(group, toValid({ ...metricAlert, port })).port).toBeNull();
    }
    expect(toEventRow(group, toValid({ ...metricAlert, currentValue: null as never })).current_value_number).toBeNull();
  });

  it('stores a missing event type as the empty string and takes ids from the scope when absent', () => {
    const { eventTypeName: _omit, groupId: _g, ...bare } = dataExplorer;
    const row = toEventRow(group, toValid(bare));
    expect(row.event_type_name).toBe(MISSING_EVENT_TYPE);
    expect(row.group_id).toBe(GROUP_ID);
    const { orgId: _o, ...orgBare } = invoiceClosed;
    expect(toEventRow(org, toValid(orgBare)).org_id).toBe(ORG_ID);
  });

  it('names a value for every column it declares', () => {
    const row = toEventRow(group, toValid(withRawAndUnknownFields));
    for (const column of EVENT_ROW_COLUMNS) expect(row, column.name).toHaveProperty(column.name);
    expect(new Set(EVENT_ROW_COLUMNS.map((c) => c.name)).size).toBe(EVENT_ROW_COLUMNS.length);
  });
});

describe('dedupeById', () => {
  it('keeps the last occurrence of each id', () => {
    const first = toValid({ ...dataExplorer, opType: 'find' });
    const second = toValid({ ...dataExplorer, opType: 'aggregate' });
    const other = toValid(metricAlert);
    const deduped = dedupeById([first, other, second]);
    expect(deduped.map((e) => e.id)).toEqual([other.id, dataExplorer.id]);
    expect(deduped[1]?.payload.opType).toBe('aggregate');
  });
});

describe('TEXT_FIELD_COLUMNS', () => {
  it('maps every text field to the column toEventRow fills from it', () => {
    for (const [field, column] of TEXT_FIELD_COLUMNS) {
      const row = toEventRow(group, toValid({ ...metricAlert, [field]: `value of ${field}` }));
      expect(row[column], `${field} → ${column}`).toBe(`value of ${field}`);
    }
  });
});

describe('toColumnParameters', () => {
  it('gives one text array per plain column and one JSON array per jsonb column', () => {
    const rows = [eventRowValues(group, toValid(metricAlert)), eventRowValues(group, toValid(withRawAndUnknownFields))];
    const parameters = toColumnParameters(rows);
    expect(parameters).toHaveLength(EVENT_ROW_COLUMNS.length);
    const at = (name: string) => parameters[EVENT_ROW_COLUMNS.findIndex((c) => c.name === name)];
    expect(at('port')).toEqual(['27017', null]);
    expect(at('current_value_number')).toEqual(['87.5', null]);
    expect(at('created')).toEqual(['2026-11-20T10:15:30.000Z', '2026-11-21T09:30:00.000Z']);
    expect(JSON.parse(at('raw') as string)).toEqual([null, withRawAndUnknownFields.raw]);
    expect(JSON.parse(at('payload') as string)).toEqual([metricAlert, withRawAndUnknownFields]);
  });
});
