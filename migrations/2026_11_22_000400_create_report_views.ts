import { sql, type Kysely } from 'kysely';

// Frozen in time: never import application code here, never edit after release; add a migration.
// View bodies name tables bare: the migrator runs with search_path set to the warehouse schema,
// and PostgreSQL binds a view to the tables it resolved at creation.

const VIEWS: ReadonlyArray<[name: string, body: ReturnType<typeof sql>]> = [
  [
    'events_per_day',
    sql`select (created at time zone 'UTC')::date as day, scope, event_type_name, count(*) as events
        from events
        group by 1, 2, 3`,
  ],
  [
    'automation_config_changes',
    sql`select e.id as event_id, e.scope, e.org_id, e.group_id, e.created, e.event_type_name,
               coalesce(e.username, e.public_key, e.user_id, e.api_key_id) as actor,
               (d.ordinality - 1)::integer as diff_index,
               d.diff ->> 'id' as diff_id,
               d.diff ->> 'type' as diff_type,
               d.diff ->> 'status' as diff_status,
               d.diff ->> 'name' as diff_name,
               array(select p ->> 'param'
                     from jsonb_array_elements(case jsonb_typeof(d.diff -> 'params') when 'array' then d.diff -> 'params' else '[]'::jsonb end) as p
                     where p ->> 'param' is not null) as param_names,
               d.diff -> 'params' as params,
               d.diff -> 'priviileges' as privileges,
               d.diff -> 'roles' as roles
        from events e
        cross join lateral jsonb_array_elements(
          case jsonb_typeof(e.payload -> 'diffs') when 'array' then e.payload -> 'diffs' else '[]'::jsonb end
        ) with ordinality as d(diff, ordinality)`,
  ],
  [
    'alerts',
    sql`select id as event_id, scope, org_id, group_id, created, event_type_name, alert_id, alert_config_id,
               metric_name, current_value_number, current_value_units, cluster_name, hostname, port,
               replica_set_name, shard_name
        from events
        where event_type_name = 'OUTSIDE_METRIC_THRESHOLD' or alert_id is not null`,
  ],
  [
    'actor_activity',
    sql`select id as event_id, scope, org_id, group_id, created, event_type_name,
               case when api_key_id is not null or public_key is not null then 'api_key' else 'user' end as actor_kind,
               case when api_key_id is not null or public_key is not null then coalesce(public_key, api_key_id)
                    else coalesce(username, user_id) end as actor,
               user_id, username, api_key_id, public_key, remote_address, is_global_admin,
               coalesce(target_username, target_public_key) as target,
               target_username, target_public_key, access_list_entry, team_id
        from events
        where coalesce(username, user_id, public_key, api_key_id) is not null`,
  ],
  [
    'sync_lag',
    sql`select scope, watermark,
               now() - watermark as lag,
               extract(epoch from now() - watermark)::double precision as lag_seconds,
               last_success_at, last_attempt_at, last_error, consecutive_failures
        from sync_state`,
  ],
];

export async function up(db: Kysely<any>): Promise<void> {
  for (const [name, body] of VIEWS) await db.schema.createView(name).as(body).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const [name] of [...VIEWS].reverse()) await db.schema.dropView(name).ifExists().execute();
}
