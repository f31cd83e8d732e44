/**
 * ApiEvent → `events` row. Pure; no I/O. Typed columns are a tolerant view of the payload: a field
 * that is missing or of the wrong JSON type becomes NULL there, while `payload` keeps it as received,
 * so one odd event never fails its page.
 */
import type { ApiEvent, ValidEvent } from '../events/types.js';
import type { Scope } from '../scope.js';
import { toStorableJson, toStorableText } from './storable-json.js';

/** Stored when an event has no string `eventTypeName` (the column is NOT NULL). */
export const MISSING_EVENT_TYPE = '';

/** API field → text column, in the order the columns are written (toEventRow spells each out). */
export const TEXT_FIELD_COLUMNS = [
  ['alertId', 'alert_id'],
  ['alertConfigId', 'alert_config_id'],
  ['apiKeyId', 'api_key_id'],
  ['publicKey', 'public_key'],
  ['userId', 'user_id'],
  ['username', 'username'],
  ['remoteAddress', 'remote_address'],
  ['targetUsername', 'target_username'],
  ['targetPublicKey', 'target_public_key'],
  ['accessListEntry', 'access_list_entry'],
  ['teamId', 'team_id'],
  ['clusterId', 'cluster_id'],
  ['clusterName', 'cluster_name'],
  ['hostId', 'host_id'],
  ['hostname', 'hostname'],
  ['replicaSetName', 'replica_set_name'],
  ['shardName', 'shard_name'],
  ['database', 'database'],
  ['collection', 'collection'],
  ['opType', 'op_type'],
  ['invoiceId', 'invoice_id'],
  ['paymentId', 'payment_id'],
  ['maintenanceWindowId', 'maintenance_window_id'],
  ['metricName', 'metric_name'],
] as const;

type TextColumn = (typeof TEXT_FIELD_COLUMNS)[number][1];

export type EventRow = {
  id: string;
  scope: string;
  org_id: string | null;
  group_id: string | null;
  created: string;
  event_type_name: string;
  is_global_admin: boolean | null;
  port: number | null;
  current_value_number: number | null;
  current_value_units: string | null;
  raw: unknown;
  payload: ApiEvent;
} & Record<TextColumn, string | null>;

/** Every written column with its SQL type, in one fixed order (used to build the upsert). */
export const EVENT_ROW_COLUMNS: ReadonlyArray<{ name: keyof EventRow; type: string }> = [
  { name: 'id', type: 'text' },
  { name: 'scope', type: 'text' },
  { name: 'org_id', type: 'text' },
  { name: 'group_id', type: 'text' },
  { name: 'created', type: 'timestamptz' },
  { name: 'event_type_name', type: 'text' },
  ...TEXT_FIELD_COLUMNS.map(([, column]) => ({ name: column, type: 'text' })),
  { name: 'is_global_admin', type: 'boolean' },
  { name: 'port', type: 'integer' },
  { name: 'current_value_number', type: 'double precision' },
  { name: 'current_value_units', type: 'text' },
  { name: 'raw', type: 'jsonb' },
  { name: 'payload', type: 'jsonb' },
];

const INT32_MAX = 2_147_483_647;

export function toEventRow(scope: Scope, event: ValidEvent): EventRow {
  const p = event.payload;
  const currentValue = isObject(p.currentValue) ? p.currentValue : undefined;
  // One object literal with every key, so all rows share one shape (the upsert reads them by
  // column name, 500 rows at a time).
  return {
    id: event.id,
    scope: scope.key,
    org_id: text(p.orgId) ?? (scope.kind === 'org' ? scope.id : null),
    group_id: text(p.groupId) ?? (scope.kind === 'group' ? scope.id : null),
    created: event.created.toISOString(),
    event_type_name: text(p.eventTypeName) ?? MISSING_EVENT_TYPE,
    alert_id: text(p.alertId),
    alert_config_id: text(p.alertConfigId),
    api_key_id: text(p.apiKeyId),
    public_key: text(p.publicKey),
    user_id: text(p.userId),
    username: text(p.username),
    remote_address: text(p.remoteAddress),
    target_username: text(p.targetUsername),
    target_public_key: text(p.targetPublicKey),
    access_list_entry: text(p.accessListEntry),
    team_id: text(p.teamId),
    cluster_id: text(p.clusterId),
    cluster_name: text(p.clusterName),
    host_id: text(p.hostId),
    hostname: text(p.hostname),
    replica_set_name: text(p.replicaSetName),
    shard_name: text(p.shardName),
    database: text(p.database),
    collection: text(p.collection),
    op_type: text(p.opType),
    invoice_id: text(p.invoiceId),
    payment_id: text(p.paymentId),
    maintenance_window_id: text(p.maintenanceWindowId),
    metric_name: text(p.metricName),
    is_global_admin: typeof p.isGlobalAdmin === 'boolean' ? p.isGlobalAdmin : null,
    port: Number.isInteger(p.port) && (p.port as number) >= 0 && (p.port as number) <= INT32_MAX ? (p.port as number) : null,
    current_value_number: finite(currentValue?.number),
    current_value_units: text(currentValue?.units),
    // JSON null and absence both mean "no raw document": the column stays NULL.
    raw: p.raw ?? null,
    payload: p,
  };
}

/**
 * The parameters of one upsert statement, in EVENT_ROW_COLUMNS order: a text array per plain
 * column (NULL for absent values) and, per jsonb column, the JSON text of an array holding every
 * row's value (JSON null when absent), which spares escaping large documents as array elements.
 */
export function toColumnParameters(rows: readonly EventRow[]): Array<Array<string | null> | string> {
  return EVENT_ROW_COLUMNS.map(({ name, type }) => {
    if (type === 'jsonb') return toStorableJson(rows.map((row) => row[name] ?? null));
    return rows.map((row) => {
      const value = row[name];
      // jsonb columns are handled above: what is left is text, a number or a boolean. Text that
      // PostgreSQL refuses (NUL, lone surrogates) is made storable as the payload is.
      if (value === null || value === undefined) return null;
      return typeof value === 'string' ? toStorableText(value) : `${value as number | boolean}`;
    });
  });
}

/** Last occurrence of an id wins, as a re-read page would have it. */
export function dedupeById(events: readonly ValidEvent[]): ValidEvent[] {
  const byId = new Map<string, ValidEvent>();
  for (const event of events) {
    byId.delete(event.id);
    byId.set(event.id, event);
  }
  return [...byId.values()];
}

function text(value: unknown): string | null {
  return typeof value === 'string' ? value : null;
}

function finite(value: unknown): number | null {
  return typeof value === 'number' && Number.isFinite(value) ? value : null;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
