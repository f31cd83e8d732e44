/** What the HTML report shows, read from the warehouse's tables and report views for a period and scopes. */
import { sql, type Kysely, type SqlBool } from 'kysely';
import type { AlertEpisodesView, Database, SecurityAuditView, SyncLagView } from '../warehouse/database.js';

export interface ReportFilter {
  readonly since: Date;
  readonly until: Date;
  /** Scope keys; empty means every scope. */
  readonly scopes: readonly string[];
}

export interface ReportData {
  readonly filter: ReportFilter;
  readonly totals: { readonly events: number; readonly scopes: number; readonly types: number; readonly alertEpisodes: number };
  readonly eventsPerDay: ReadonlyArray<{ day: string; event_type_name: string; events: number }>;
  readonly alertEpisodes: ReadonlyArray<
    Pick<
      AlertEpisodesView,
      | 'alert_id'
      | 'scope'
      | 'opened_at'
      | 'acknowledged_at'
      | 'closed_at'
      | 'is_open'
      | 'duration_seconds'
      | 'opened_by'
      | 'metric_name'
      | 'peak_value'
      | 'units'
    > & { source: string }
  >;
  readonly topActors: ReadonlyArray<{ actor: string; actor_kind: string; events: number }>;
  readonly securityPerDay: ReadonlyArray<{ day: string; category: string; events: number }>;
  readonly securityLatest: ReadonlyArray<Omit<SecurityAuditView, 'event_id' | 'org_id' | 'group_id'>>;
  readonly dataAccess: ReadonlyArray<{ place: string; actions: number; actors: number; last_at: Date }>;
  readonly syncLag: ReadonlyArray<Omit<SyncLagView, 'lag' | 'last_attempt_at'>>;
}

/** Limits keep the file small whatever the warehouse holds; the views have the rest. */
const TOP_TYPES = 8;
const MAX_EPISODES = 300;
const TOP_ACTORS = 12;
const LATEST_SECURITY = 25;
const TOP_PLACES = 12;

const day = (column: string) => sql<string>`to_char(${sql.ref(column)} at time zone 'UTC', 'YYYY-MM-DD')`;

export async function loadReportData(db: Kysely<Database>, filter: ReportFilter): Promise<ReportData> {
  // Every query below keeps to the scopes, and those of events to the period, through these two.
  const ofScopes = filter.scopes.length > 0 ? sql<SqlBool>`scope in (${sql.join(filter.scopes)})` : sql<SqlBool>`true`;
  const within = (timeColumn: string) =>
    sql<SqlBool>`${sql.ref(timeColumn)} >= ${filter.since} and ${sql.ref(timeColumn)} < ${filter.until} and ${ofScopes}`;

  const [totals, episodeCount, perDay, episodes, actors, securityPerDay, securityLatest, places, lag] = await Promise.all([
    db
      .selectFrom('events')
      .where(within('created'))
      .select([
        sql<number>`count(*)::int`.as('events'),
        sql<number>`count(distinct scope)::int`.as('scopes'),
        sql<number>`count(distinct event_type_name)::int`.as('types'),
      ])
      .executeTakeFirstOrThrow(),
    db
      .selectFrom('alert_episodes')
      .where(within('opened_at'))
      .select(sql<number>`count(*)::int`.as('n'))
      .executeTakeFirstOrThrow(),
    db
      .selectFrom('events')
      .where(within('created'))
      .select([day('created').as('day'), 'event_type_name', sql<number>`count(*)::int`.as('events')])
      .groupBy([sql`1`, 'event_type_name'])
      .execute(),
    db
      .selectFrom('alert_episodes')
      .where(within('opened_at'))
      .select([
        'alert_id',
        'scope',
        'opened_at',
        'acknowledged_at',
        'closed_at',
        'is_open',
        'duration_seconds',
        'opened_by',
        'metric_name',
        sql<string>`coalesce(split_part(hostname, '.', 1), replica_set_name, cluster_name, scope)`.as('source'),
        'peak_value',
        'units',
      ])
      .orderBy('opened_at', 'desc')
      .orderBy('alert_id')
      .limit(MAX_EPISODES)
      .execute(),
    db
      .selectFrom('actor_activity')
      .where(within('created'))
      .select(['actor', 'actor_kind', sql<number>`count(*)::int`.as('events')])
      .groupBy(['actor', 'actor_kind'])
      .orderBy('events', 'desc')
      .orderBy('actor')
      .limit(TOP_ACTORS)
      .execute(),
    db
      .selectFrom('security_audit')
      .where(within('created'))
      .select([day('created').as('day'), 'category', sql<number>`count(*)::int`.as('events')])
      .groupBy([sql`1`, 'category'])
      .orderBy(sql`1`)
      .orderBy('category')
      .execute(),
    db
      .selectFrom('security_audit')
      .where(within('created'))
      .select(['created', 'scope', 'event_type_name', 'category', 'action', 'actor', 'target', 'remote_address'])
      .orderBy('created', 'desc')
      .orderBy('event_id')
      .limit(LATEST_SECURITY)
      .execute(),
    db
      .selectFrom('data_access')
      .where(within('created'))
      .select([
        sql<string>`coalesce(database, '(all databases)') || coalesce('.' || collection, '')`.as('place'),
        sql<number>`count(*)::int`.as('actions'),
        sql<number>`count(distinct actor)::int`.as('actors'),
        sql<Date>`max(created)`.as('last_at'),
      ])
      .groupBy(sql`1`)
      .orderBy('actions', 'desc')
      .orderBy('place')
      .limit(TOP_PLACES)
      .execute(),
    db
      .selectFrom('sync_lag')
      .where(ofScopes)
      .select(['scope', 'watermark', 'lag_seconds', 'last_success_at', 'consecutive_failures', 'last_error'])
      .orderBy('scope')
      .execute(),
  ]);
  return {
    filter,
    totals: { ...totals, alertEpisodes: episodeCount.n },
    eventsPerDay: foldRareTypes(perDay),
    alertEpisodes: episodes.map((e) => ({ ...e, opened_at: new Date(e.opened_at) })),
    topActors: actors,
    securityPerDay,
    securityLatest,
    dataAccess: places,
    syncLag: lag,
  };
}

/** The most common types by name; the rest as one `other` series, so the chart stays readable. */
function foldRareTypes(
  rows: ReadonlyArray<{ day: string; event_type_name: string; events: number }>,
): Array<{ day: string; event_type_name: string; events: number }> {
  const byType = new Map<string, number>();
  for (const r of rows) byType.set(r.event_type_name, (byType.get(r.event_type_name) ?? 0) + r.events);
  const top = new Set(
    [...byType.entries()]
      .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
      .slice(0, TOP_TYPES)
      .map(([type]) => type),
  );
  const folded = new Map<string, { day: string; event_type_name: string; events: number }>();
  for (const r of rows) {
    const type = top.has(r.event_type_name) ? r.event_type_name || '(none)' : 'other types';
    const key = `${r.day}\u0000${type}`;
    const row = folded.get(key) ?? { day: r.day, event_type_name: type, events: 0 };
    row.events += r.events;
    folded.set(key, row);
  }
  return [...folded.values()].sort((a, b) => a.day.localeCompare(b.day) || a.event_type_name.localeCompare(b.event_type_name));
}
