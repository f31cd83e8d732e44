import { sql, type Kysely } from 'kysely';

// Frozen in time: never import application code here, never edit after release; add a migration.
// View bodies name tables bare: the migrator runs with search_path set to the warehouse schema.

// What an event type means for an alert's lifecycle. The service pairs events by alertId; which
// type opens, acknowledges or closes one is data, not code: a type missing here is added with an
// insert, and an alert event of an unknown type counts as an update of its episode.
const ALERT_ROLES: ReadonlyArray<[string, string]> = [
  ['OUTSIDE_METRIC_THRESHOLD', 'open'],
  ['INSIDE_METRIC_THRESHOLD', 'close'],
  ['HOST_DOWN', 'open'],
  ['HOST_RECOVERED', 'close'],
  ['HOST_UP', 'close'],
  ['NO_PRIMARY', 'open'],
  ['PRIMARY_ELECTED', 'close'],
  ['REPLICATION_OPLOG_WINDOW_RUNNING_OUT', 'open'],
  ['ANOMALOUS_VALUE_DETECTED', 'open'],
  ['VALUE_NO_LONGER_ANOMALOUS', 'close'],
  ['HOST_SSL_CERTIFICATE_STALE', 'open'],
  ['HOST_SSL_CERTIFICATE_CURRENT', 'close'],
  ['ALERT_ACKNOWLEDGED_AUDIT', 'acknowledge'],
  ['ALERT_UNACKNOWLEDGED_AUDIT', 'unacknowledge'],
];

// Who changed access: a documented, extendable mapping of event types to categories.
const SECURITY_CATEGORIES: ReadonlyArray<[string, string, string]> = [
  ['SUCCESSFUL_LOGIN_AUDIT', 'login', 'succeeded'],
  ['UNSUCCESSFUL_LOGIN_AUDIT', 'login', 'failed'],
  ['API_KEY_CREATED', 'api_key', 'created'],
  ['API_KEY_DELETED', 'api_key', 'removed'],
  ['API_KEY_ADDED_TO_GROUP', 'api_key', 'added'],
  ['API_KEY_REMOVED_FROM_GROUP', 'api_key', 'removed'],
  ['API_KEY_ROLES_CHANGED', 'role', 'changed'],
  ['API_KEY_ACCESS_LIST_ENTRY_ADDED', 'access_list', 'added'],
  ['API_KEY_ACCESS_LIST_ENTRY_DELETED', 'access_list', 'removed'],
  ['NETWORK_PERMISSION_ENTRY_ADDED', 'access_list', 'added'],
  ['NETWORK_PERMISSION_ENTRY_REMOVED', 'access_list', 'removed'],
  ['INVITED_TO_ORG', 'membership', 'invited'],
  ['JOINED_ORG', 'membership', 'joined'],
  ['REMOVED_FROM_ORG', 'membership', 'removed'],
  ['INVITED_TO_GROUP', 'membership', 'invited'],
  ['JOINED_GROUP', 'membership', 'joined'],
  ['REMOVED_FROM_GROUP', 'membership', 'removed'],
  ['ORG_USER_ROLES_CHANGED', 'role', 'changed'],
  ['USER_ROLES_CHANGED_AUDIT', 'role', 'changed'],
  ['TEAM_CREATED', 'team', 'created'],
  ['TEAM_DELETED', 'team', 'removed'],
  ['TEAM_ADDED_TO_GROUP', 'team', 'added'],
  ['TEAM_REMOVED_FROM_GROUP', 'team', 'removed'],
  ['USER_ADDED_TO_TEAM', 'team', 'added'],
  ['ORG_EMPLOYEE_ACCESS_GRANTED', 'support_access', 'granted'],
];

const VIEWS: ReadonlyArray<[name: string, body: ReturnType<typeof sql>]> = [
  [
    'alert_episodes',
    sql`with alert_events as (
          select e.*, coalesce(r.role, 'update') as role
          from events e left join alert_event_types r on r.event_type_name = e.event_type_name
          where e.alert_id is not null
        ), episodes as (
          select alert_id,
                 min(scope) as scope,
                 min(created) filter (where role in ('open', 'update')) as opened_at,
                 (array_agg(event_type_name order by created, id) filter (where role in ('open', 'update')))[1] as opened_by,
                 min(created) filter (where role = 'acknowledge') as acknowledged_at,
                 max(created) filter (where role = 'close') as closed_at,
                 (array_agg(metric_name order by created, id) filter (where metric_name is not null))[1] as metric_name,
                 max(current_value_number) as peak_value,
                 (array_agg(current_value_number order by created desc, id desc) filter (where current_value_number is not null))[1] as last_value,
                 (array_agg(current_value_units order by created, id) filter (where current_value_units is not null))[1] as units,
                 (array_agg(cluster_name order by created, id) filter (where cluster_name is not null))[1] as cluster_name,
                 (array_agg(hostname order by created, id) filter (where hostname is not null))[1] as hostname,
                 (array_agg(replica_set_name order by created, id) filter (where replica_set_name is not null))[1] as replica_set_name,
                 (array_agg(alert_config_id order by created, id) filter (where alert_config_id is not null))[1] as alert_config_id,
                 count(*)::integer as events
          from alert_events
          group by alert_id
        )
        select alert_id, scope, coalesce(opened_at, acknowledged_at, closed_at) as opened_at, opened_by, acknowledged_at, closed_at,
               closed_at is null as is_open,
               closed_at - coalesce(opened_at, acknowledged_at, closed_at) as duration,
               extract(epoch from closed_at - coalesce(opened_at, acknowledged_at, closed_at))::double precision as duration_seconds,
               metric_name, peak_value, last_value, units, cluster_name, hostname, replica_set_name, alert_config_id, events
        from episodes`,
  ],
  [
    'security_audit',
    sql`select e.id as event_id, e.scope, e.org_id, e.group_id, e.created, e.event_type_name, c.category, c.action,
               case when e.api_key_id is not null or e.public_key is not null then coalesce(e.public_key, e.api_key_id)
                    else coalesce(e.username, e.user_id) end as actor,
               coalesce(e.target_username, e.target_public_key, e.access_list_entry, e.team_id) as target,
               e.remote_address
        from events e join security_event_categories c on c.event_type_name = e.event_type_name`,
  ],
  [
    'data_access',
    sql`select id as event_id, scope, group_id, created, event_type_name, database, collection, op_type,
               coalesce(username, user_id, public_key, api_key_id) as actor, remote_address
        from events
        where event_type_name like 'DATA_EXPLORER%'`,
  ],
  [
    'event_catalog',
    sql`with typed as (
          select event_type_name, min(created) as first_seen, max(created) as last_seen,
                 min(ingested_at) as first_ingested_at, count(*)::bigint as events
          from events group by event_type_name
        ), fields as (
          select e.event_type_name, array_agg(distinct k order by k) as fields
          from events e cross join lateral jsonb_object_keys(e.payload) as k
          group by e.event_type_name
        )
        select t.event_type_name, t.first_seen, t.last_seen, t.first_ingested_at, t.events, f.fields
        from typed t join fields f using (event_type_name)`,
  ],
];

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('alert_event_types')
    .addColumn('event_type_name', 'text', (c) => c.primaryKey())
    .addColumn('role', 'text', (c) => c.notNull().check(sql`role in ('open', 'acknowledge', 'unacknowledge', 'close', 'update')`))
    .execute();
  await db
    .insertInto('alert_event_types')
    .values(ALERT_ROLES.map(([event_type_name, role]) => ({ event_type_name, role })))
    .execute();
  await db.schema
    .createTable('security_event_categories')
    .addColumn('event_type_name', 'text', (c) => c.primaryKey())
    .addColumn('category', 'text', (c) => c.notNull())
    .addColumn('action', 'text')
    .execute();
  await db
    .insertInto('security_event_categories')
    .values(SECURITY_CATEGORIES.map(([event_type_name, category, action]) => ({ event_type_name, category, action })))
    .execute();
  await db.schema.createIndex('events_alert_id_idx').on('events').column('alert_id').where(sql.ref('alert_id'), 'is not', null).execute();
  for (const [name, body] of VIEWS) await db.schema.createView(name).as(body).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const [name] of [...VIEWS].reverse()) await db.schema.dropView(name).ifExists().execute();
  await db.schema.dropIndex('events_alert_id_idx').ifExists().execute();
  await db.schema.dropTable('security_event_categories').execute();
  await db.schema.dropTable('alert_event_types').execute();
}
