/**
 * ApiEvent → `events` row. Pure; no I/O. Typed columns are a tolerant view of the payload: a field
 * that is missing or of the wrong JSON type becomes NULL there, while `payload` keeps it as received,
 * so one odd event never fails its page.
 */
import type { ValidEvent } from '../events/types.js';
import type { Scope } from '../scope.js';
import { isoTimestamp } from '../time.js';
import { storablePayloadJson, storableRawJson, toStorableText } from './storable-json.js';

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
  /** JSON text, as the two jsonb columns travel. */
  raw: string | null;
  payload: string;
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

/** A column's value as it travels: text, a number, a boolean, or NULL. */
export type RowValue = string | number | boolean | null;

const COLUMN_INDEX = new Map(EVENT_ROW_COLUMNS.map(({ name }, index) => [name, index]));
const at = (name: keyof EventRow): number => COLUMN_INDEX.get(name)!;
const ID = at('id');
const SCOPE = at('scope');
const ORG_ID = at('org_id');
const GROUP_ID = at('group_id');
const CREATED = at('created');
const EVENT_TYPE_NAME = at('event_type_name');
const IS_GLOBAL_ADMIN = at('is_global_admin');
const PORT = at('port');
const CURRENT_VALUE_NUMBER = at('current_value_number');
const CURRENT_VALUE_UNITS = at('current_value_units');
const RAW = at('raw');
/** Where each row's payload (JSON text) sits in `eventRowValues`. */
export const PAYLOAD_INDEX = at('payload');

/** API field → column index, for every field copied to a text column as it is. */
const TEXT_FIELD_INDEX = new Map<string, number>([
  ['orgId', ORG_ID],
  ['groupId', GROUP_ID],
  ['eventTypeName', EVENT_TYPE_NAME],
  ...TEXT_FIELD_COLUMNS.map(([field, column]): [string, number] => [field, at(column)]),
]);
const ALL_NULL: readonly RowValue[] = EVENT_ROW_COLUMNS.map(() => null);

/**
 * An event's row as values in EVENT_ROW_COLUMNS order, every text storable (see storable-json.ts).
 * Only the payload's own fields are visited: most of the 40 columns are absent from any one event.
 */
export function eventRowValues(scope: Scope, event: ValidEvent): RowValue[] {
  const payload = storablePayloadJson(event);
  // JSON writes a NUL, a control character or a lone surrogate inside a string as an escape, and a
  // backslash as two: payload text without a backslash has no string PostgreSQL could refuse.
  const plain = !payload.includes('\\');
  const values = ALL_NULL.slice();
  values[ID] = plain ? event.id : toStorableText(event.id);
  values[SCOPE] = scope.key;
  values[CREATED] = isoTimestamp(event.created);
  const p = event.payload as Record<string, unknown>;
  for (const field in p) {
    const value = p[field];
    const index = TEXT_FIELD_INDEX.get(field);
    if (index !== undefined) {
      if (typeof value === 'string') values[index] = plain ? value : toStorableText(value);
    } else if (field === 'isGlobalAdmin') {
      if (typeof value === 'boolean') values[IS_GLOBAL_ADMIN] = value;
    } else if (field === 'port') {
      if (Number.isInteger(value) && (value as number) >= 0 && (value as number) <= INT32_MAX) values[PORT] = value as number;
    } else if (field === 'currentValue') {
      if (isObject(value)) {
        values[CURRENT_VALUE_NUMBER] = finite(value.number);
        const units = value.units;
        values[CURRENT_VALUE_UNITS] = typeof units !== 'string' ? null : plain ? units : toStorableText(units);
      }
    } else if (field === 'raw') {
      // JSON null and absence both mean "no raw document": the column stays NULL.
      if (value !== null && value !== undefined) values[RAW] = storableRawJson(event) ?? null;
    }
  }
  values[ORG_ID] ??= scope.kind === 'org' ? scope.id : null;
  values[GROUP_ID] ??= scope.kind === 'group' ? scope.id : null;
  values[EVENT_TYPE_NAME] ??= MISSING_EVENT_TYPE;
  values[PAYLOAD_INDEX] = payload;
  return values;
}

/** The same row by column name (eventRowValues is what the writes use). */
export function toEventRow(scope: Scope, event: ValidEvent): EventRow {
  const values = eventRowValues(scope, event);
  return Object.fromEntries(EVENT_ROW_COLUMNS.map(({ name }, index) => [name, values[index]])) as EventRow;
}

/**
 * The parameters of one upsert statement, in EVENT_ROW_COLUMNS order: a text array per plain
 * column (NULL for absent values) and, per jsonb column, the JSON text of an array holding every
 * row's value (JSON null when absent), which spares escaping large documents as array elements.
 */
export function toColumnParameters(rows: readonly (readonly RowValue[])[]): Array<Array<string | null> | string> {
  return EVENT_ROW_COLUMNS.map(({ type }, index) => {
    if (type === 'jsonb') return `[${rows.map((row) => (row[index] as string | null) ?? 'null').join(',')}]`;
    return rows.map((row) => {
      const value = row[index]!;
      return value === null || typeof value === 'string' ? value : `${value}`;
    });
  });
}

/** The id as the warehouse stores it (NUL and lone surrogates as U+FFFD): two ids may become one. */
export function storedEventId(event: ValidEvent): string {
  return toStorableText(event.id);
}

/** Last occurrence of a stored id wins, as a re-read page would have it. */
export function dedupeById(events: readonly ValidEvent[]): ValidEvent[] {
  const byId = new Map<string, ValidEvent>();
  for (const event of events) {
    const id = storedEventId(event);
    byId.delete(id);
    byId.set(id, event);
  }
  return [...byId.values()];
}

function finite(value: unknown): number | null {
  return typeof value === 'number' && Number.isFinite(value) ? value : null;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
