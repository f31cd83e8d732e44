/**
 * Kysely types of the warehouse tables and views (the migrations in ../../migrations create them;
 * docs/warehouse.md documents them). bigint columns arrive as numbers and `date`
 * columns as `YYYY-MM-DD` text on both drivers (see database.ts).
 */
import type { ColumnType, Generated } from 'kysely';
import type { ApiEvent } from '../events/types.js';

type Timestamp = ColumnType<Date, Date | string, Date | string>;
type Json<T> = ColumnType<T, string, string>;

export interface EventsTable {
  id: string;
  scope: string;
  org_id: string | null;
  group_id: string | null;
  created: Timestamp;
  event_type_name: string;
  alert_id: string | null;
  alert_config_id: string | null;
  api_key_id: string | null;
  public_key: string | null;
  user_id: string | null;
  username: string | null;
  remote_address: string | null;
  is_global_admin: boolean | null;
  target_username: string | null;
  target_public_key: string | null;
  access_list_entry: string | null;
  team_id: string | null;
  cluster_id: string | null;
  cluster_name: string | null;
  host_id: string | null;
  hostname: string | null;
  port: number | null;
  replica_set_name: string | null;
  shard_name: string | null;
  database: string | null;
  collection: string | null;
  op_type: string | null;
  invoice_id: string | null;
  payment_id: string | null;
  maintenance_window_id: string | null;
  metric_name: string | null;
  current_value_number: number | null;
  current_value_units: string | null;
  raw: Json<unknown> | null;
  payload: Json<ApiEvent>;
  ingested_at: ColumnType<Date, Date | string | undefined, Date | string>;
  updated_at: ColumnType<Date, Date | string | undefined, Date | string>;
  /** The path the row's representation came from: `pull` (the API's own) or `push` (mapped from the export). */
  source: ColumnType<EventSource, EventSource | undefined, EventSource>;
  /** Generated: `source = 'push'`, the row awaits the pull path's confirmation. */
  provisional: ColumnType<boolean, never, never>;
  /** The export's log record as received, when the export delivered the event. */
  pushed: ColumnType<unknown, string | null | undefined, string | null>;
  pushed_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
}

export type EventSource = 'pull' | 'push';

/** Every feed that listed an event (`events.scope` is the first). */
/** The feeds that list an event besides the one its `events` row names. */
export interface EventOtherScopesTable {
  scope: string;
  event_id: string;
  created: Timestamp;
  first_seen_at: ColumnType<Date, Date | string | undefined, Date | string>;
}

/** View: every feed that lists an event (the row's own scope and the others). */
export interface EventScopesView {
  scope: string;
  event_id: string;
  created: Timestamp;
  first_seen_at: ColumnType<Date, Date | string | undefined, Date | string>;
}

export type ScopeOrigin = 'configured' | 'discovered';

export interface ScopesTable {
  /** `org:<id>` or `group:<id>`. */
  scope: string;
  kind: 'org' | 'group';
  scope_id: string;
  name: string | null;
  /** A project's organization; an organization's own id. */
  org_id: string | null;
  origin: ScopeOrigin;
  /** The organization scope whose listing found this project (discovered scopes only). */
  discovered_by: string | null;
  first_seen_at: ColumnType<Date, Date | string | undefined, Date | string>;
  last_seen_at: ColumnType<Date, Date | string | undefined, Date | string>;
  removed_at: Timestamp | null;
  /** An organization that discovers its projects: when its listing last succeeded. */
  listed_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
  /** Listings failed since the last one that succeeded (0: fine). */
  listing_failures: ColumnType<number, number | undefined, number>;
  listing_failed_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
  listing_error: ColumnType<string | null, string | null | undefined, string | null>;
}

export interface RejectedEventsTable {
  id: Generated<number>;
  scope: string;
  reason: string;
  payload: Json<unknown>;
  payload_md5: string;
  first_seen_at: Timestamp;
  last_seen_at: Timestamp;
  seen_count: number;
  /** Where it was listed: its own second when `created` parses, else the narrowest window that listed it. */
  listed_from: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
  listed_to: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
  /** The path that brought it: `pull` (a page of the API) or `push` (the export's record). */
  source: ColumnType<EventSource, EventSource | undefined, EventSource>;
}

export interface SyncStateTable {
  scope: string;
  watermark: Timestamp | null;
  settings: ColumnType<unknown, string | null | undefined, string | null>;
  last_success_at: Timestamp | null;
  last_attempt_at: Timestamp | null;
  last_error: string | null;
  /** The last error's code (`EventsMirrorError.code`, a system error's code); null when healthy. */
  last_error_code: string | null;
  consecutive_failures: ColumnType<number, number | undefined, number>;
  updated_at: ColumnType<Date, Date | string | undefined, Date | string>;
  /** Polls of the scope, idle ones included (they add no sync_runs row). */
  polls: ColumnType<number, number | undefined, number>;
  last_polled_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
  /** When a poll or sync last landed an event (new, changed or set aside). */
  last_landed_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
}

export type RunStatus = 'running' | 'succeeded' | 'failed' | 'skipped' | 'abandoned';

export interface SyncRunsTable {
  id: Generated<number>;
  scope: string;
  mode: string;
  window_start: Timestamp;
  window_end: Timestamp;
  job_id: string | null;
  started_at: Timestamp;
  finished_at: Timestamp | null;
  status: RunStatus;
  pages: ColumnType<number, number | undefined, number>;
  requests: ColumnType<number, number | undefined, number>;
  events_seen: ColumnType<number, number | undefined, number>;
  events_inserted: ColumnType<number, number | undefined, number>;
  events_changed: ColumnType<number, number | undefined, number>;
  events_rejected: ColumnType<number, number | undefined, number>;
  duration_ms: number | null;
  error: string | null;
}

export type ReconcileResult = 'running' | 'consistent' | 'recovered' | 'differs' | 'failed';

export interface ReconcileRunsTable {
  id: Generated<number>;
  scope: string;
  range_from: Timestamp;
  range_to: Timestamp;
  started_at: ColumnType<Date, Date | string | undefined, Date | string>;
  finished_at: Timestamp | null;
  result: ColumnType<ReconcileResult, ReconcileResult | undefined, ReconcileResult>;
  windows_checked: ColumnType<number, number | undefined, number>;
  windows_differing: ColumnType<number, number | undefined, number>;
  windows_reread: ColumnType<number, number | undefined, number>;
  events_recovered: ColumnType<number, number | undefined, number>;
  events_missing: ColumnType<number, number | undefined, number>;
  events_extra: ColumnType<number, number | undefined, number>;
  requests: ColumnType<number, number | undefined, number>;
  error: string | null;
}

export interface EventsPerDayView {
  day: string;
  scope: string;
  event_type_name: string;
  events: number;
}

export interface AutomationConfigChangesView {
  event_id: string;
  scope: string;
  org_id: string | null;
  group_id: string | null;
  created: Date;
  event_type_name: string;
  actor: string | null;
  diff_index: number;
  diff_id: string | null;
  diff_type: string | null;
  diff_status: string | null;
  diff_name: string | null;
  param_names: string[];
  params: unknown;
  privileges: unknown;
  roles: unknown;
}

export interface AlertsView {
  event_id: string;
  scope: string;
  org_id: string | null;
  group_id: string | null;
  created: Date;
  event_type_name: string;
  alert_id: string | null;
  alert_config_id: string | null;
  metric_name: string | null;
  current_value_number: number | null;
  current_value_units: string | null;
  cluster_name: string | null;
  hostname: string | null;
  port: number | null;
  replica_set_name: string | null;
  shard_name: string | null;
}

/** Which event types open, acknowledge or close an alert; users add rows for types not listed. */
export interface AlertEventTypesTable {
  event_type_name: string;
  role: 'open' | 'acknowledge' | 'unacknowledge' | 'close' | 'update';
}

/** Which event types are security changes, and of what kind; users add rows for types not listed. */
export interface SecurityEventCategoriesTable {
  event_type_name: string;
  category: string;
  action: string | null;
}

export interface AlertEpisodesView {
  alert_id: string;
  scope: string;
  opened_at: Date;
  opened_by: string | null;
  acknowledged_at: Date | null;
  closed_at: Date | null;
  is_open: boolean;
  duration: unknown;
  duration_seconds: number | null;
  metric_name: string | null;
  peak_value: number | null;
  last_value: number | null;
  units: string | null;
  cluster_name: string | null;
  hostname: string | null;
  replica_set_name: string | null;
  alert_config_id: string | null;
  events: number;
}

export interface SecurityAuditView {
  event_id: string;
  scope: string;
  org_id: string | null;
  group_id: string | null;
  created: Date;
  event_type_name: string;
  category: string;
  action: string | null;
  actor: string | null;
  target: string | null;
  remote_address: string | null;
}

export interface DataAccessView {
  event_id: string;
  scope: string;
  group_id: string | null;
  created: Date;
  event_type_name: string;
  database: string | null;
  collection: string | null;
  op_type: string | null;
  actor: string | null;
  remote_address: string | null;
}

export interface EventCatalogView {
  event_type_name: string;
  first_seen: Date;
  last_seen: Date;
  first_ingested_at: Date;
  /** bigint: a string from pg. */
  events: string | number;
  fields: string[];
  /** From the Atlas v2 event type catalogue; null when it was never read or lacks the type. */
  description: string | null;
  alertable: boolean | null;
  /** Whether the catalogue lists the type now (false also when no catalogue was read). */
  in_catalog: boolean;
}

/** Atlas v2's event type catalogue as last read (see event-type-catalog.repository.ts). */
export interface EventTypeCatalogTable {
  type: string;
  description: string | null;
  alertable: boolean | null;
  first_seen_in_catalog: Timestamp;
  last_seen_in_catalog: Timestamp;
  /** Set when a complete read no longer listed the type; cleared when it is listed again. */
  gone_since: Timestamp | null;
}

/** A scheduler or worker process and its heartbeat (see processes.repository.ts). */
export interface ProcessesTable {
  /** Unique per process start. */
  id: string;
  kind: 'scheduler' | 'worker';
  host: string;
  pid: number;
  started_at: Timestamp;
  last_seen_at: Timestamp;
  /** Set when it stopped cleanly; null while it runs, or when it died. */
  stopped_at: Timestamp | null;
}

/** The first sighting of each event type (see event-schema.repository.ts). */
export interface EventTypesSeenTable {
  event_type_name: string;
  first_seen_at: Timestamp;
  first_event_id: string;
  scope: string;
}

/** The first sighting of each top-level field of each event type. */
export interface EventFieldsSeenTable {
  event_type_name: string;
  field: string;
  first_seen_at: Timestamp;
  first_event_id: string;
  scope: string;
}

export interface ActorActivityView {
  event_id: string;
  scope: string;
  org_id: string | null;
  group_id: string | null;
  created: Date;
  event_type_name: string;
  actor_kind: 'user' | 'api_key';
  actor: string;
  user_id: string | null;
  username: string | null;
  api_key_id: string | null;
  public_key: string | null;
  remote_address: string | null;
  is_global_admin: boolean | null;
  target: string | null;
  target_username: string | null;
  target_public_key: string | null;
  access_list_entry: string | null;
  team_id: string | null;
}

export interface SyncLagView {
  scope: string;
  watermark: Date | null;
  /** PostgreSQL interval text, such as `00:03:12.5`. */
  lag: string | null;
  lag_seconds: number | null;
  last_success_at: Date | null;
  last_attempt_at: Date | null;
  last_error: string | null;
  consecutive_failures: number;
}

export interface Database {
  events: EventsTable;
  rejected_events: RejectedEventsTable;
  event_other_scopes: EventOtherScopesTable;
  event_scopes: EventScopesView;
  scopes: ScopesTable;
  sync_state: SyncStateTable;
  sync_runs: SyncRunsTable;
  reconcile_runs: ReconcileRunsTable;
  events_per_day: EventsPerDayView;
  automation_config_changes: AutomationConfigChangesView;
  alerts: AlertsView;
  actor_activity: ActorActivityView;
  sync_lag: SyncLagView;
  alert_event_types: AlertEventTypesTable;
  security_event_categories: SecurityEventCategoriesTable;
  alert_episodes: AlertEpisodesView;
  security_audit: SecurityAuditView;
  data_access: DataAccessView;
  event_catalog: EventCatalogView;
  event_types_seen: EventTypesSeenTable;
  event_type_catalog: EventTypeCatalogTable;
  event_fields_seen: EventFieldsSeenTable;
  processes: ProcessesTable;
}
