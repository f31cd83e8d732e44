/** What the HTML report shows, read from the warehouse's tables and report views for a period and scopes. */
import { sql, type Kysely, type RawBuilder, type SqlBool } from 'kysely';
import type { AlertEpisodesView, Database, SecurityAuditView, SyncLagView } from '../warehouse/database.js';
import { loadSummaryFigures, type SummaryFigures } from './summary-data.js';
import { chooseTypeBands, type TypeBands } from './type-bands.js';

export interface ReportFilter {
  readonly since: Date;
  readonly until: Date;
  /** Scope keys; empty means every scope. */
  readonly scopes: readonly string[];
}

export interface ReportData {
  readonly filter: ReportFilter;
  readonly totals: { readonly events: number; readonly scopes: number; readonly types: number; readonly alertEpisodes: number };
  readonly summary: SummaryFigures;
  /** A scope's name (`scopes.name`) where one is known. */
  readonly scopeNames: ReadonlyMap<string, string>;
  /** Events per day in bands chosen by count (type-bands.ts). */
  readonly eventsPerDay: TypeBands;
  /** The period's most common event types, with the Atlas v2 catalogue's description where one was read. */
  readonly eventTypes?: ReadonlyArray<{ event_type_name: string; events: number; description: string | null; in_catalog: boolean | null }>;
  /** Whether an event type catalogue was ever read into the warehouse. */
  readonly catalogRead?: boolean;
  /** Per day: its events and its most common type. */
  readonly dayTotals: ReadonlyArray<{ day: string; events: number; top: string }>;
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
    > & { source: string | null }
  >;
  readonly topActors: ReadonlyArray<{ actor: string; actor_kind: string; events: number }>;
  readonly securityPerDay: ReadonlyArray<{ day: string; category: string; events: number }>;
  readonly securityLatest: ReadonlyArray<
    Omit<SecurityAuditView, 'event_id' | 'org_id' | 'group_id'> & { readonly actor_kind: string | null }
  >;
  readonly dataAccess: ReadonlyArray<{ place: string; actions: number; actors: number; last_at: Date }>;
  readonly syncLag: ReadonlyArray<Omit<SyncLagView, 'lag' | 'last_attempt_at'>>;
}

/** Limits keep the file small whatever the warehouse holds; the views have the rest. */
const MAX_EPISODES = 1000;
const TOP_ACTORS = 12;
const LATEST_SECURITY = 25;
const TOP_PLACES = 12;
const TOP_TYPES = 25;

/** The actors with the most events where `where` holds, most first (the HTML report's and the terminal summary's). */
export function topActors(db: Kysely<Database>, where: RawBuilder<SqlBool>, limit: number) {
  return db
    .selectFrom('actor_activity')
    .where(where)
    .select(['actor', 'actor_kind', sql<number>`count(*)::int`.as('events')])
    .groupBy(['actor', 'actor_kind'])
    .orderBy('events', 'desc')
    .orderBy('actor')
    .limit(limit)
    .execute();
}

const day = (column: string) => sql<string>`to_char(${sql.ref(column)} at time zone 'UTC', 'YYYY-MM-DD')`;

export async function loadReportData(db: Kysely<Database>, filter: ReportFilter): Promise<ReportData> {
  // Every query below keeps to the scopes, and those of events to the period, through these two.
  const ofScopes = filter.scopes.length > 0 ? sql<SqlBool>`scope in (${sql.join(filter.scopes)})` : sql<SqlBool>`true`;
  const within = (timeColumn: string) =>
    sql<SqlBool>`${sql.ref(timeColumn)} >= ${filter.since} and ${sql.ref(timeColumn)} < ${filter.until} and ${ofScopes}`;

  const [totals, episodeCount, perDay, episodes, actors, securityPerDay, securityLatest, places, lag, names, summary, types, catalog] =
    await Promise.all([
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
      // Each type's group for the chart's bands: alert events and security changes by the tables that
      // name them, the rest by the type's first word.
      db
        .selectFrom('events')
        .where(within('created'))
        .select([
          day('created').as('day'),
          'event_type_name',
          sql<string>`case when bool_or(alert_id is not null) or event_type_name in (select event_type_name from alert_event_types) then 'alert events'
          when event_type_name in (select event_type_name from security_event_categories) then 'security changes'
          else split_part(event_type_name, '_', 1) end`.as('family'),
          sql<number>`count(*)::int`.as('events'),
        ])
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
          sql<string | null>`coalesce(split_part(hostname, '.', 1), replica_set_name, cluster_name)`.as('source'),
          'peak_value',
          'units',
        ])
        .orderBy('opened_at', 'desc')
        .orderBy('alert_id')
        .limit(MAX_EPISODES)
        .execute(),
      topActors(db, within('created'), TOP_ACTORS),
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
        // Whether the actor is an API key, as actor_activity says: the view names the key, not its kind.
        .select(
          sql<
            string | null
          >`(select case when e.api_key_id is not null or e.public_key is not null then 'api_key' else 'user' end from events e where e.id = security_audit.event_id)`.as(
            'actor_kind',
          ),
        )
        .orderBy('created', 'desc')
        .orderBy('event_id')
        .limit(LATEST_SECURITY)
        .execute(),
      db
        .selectFrom('data_access')
        .where(within('created'))
        // An action on no database in particular names no collection.
        .where('database', 'is not', null)
        .select([
          sql<string>`database || coalesce('.' || collection, '')`.as('place'),
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
      db.selectFrom('scopes').where('name', 'is not', null).where(ofScopes).select(['scope', 'name']).execute(),
      loadSummaryFigures(db, filter),
      db
        .selectFrom('events as e')
        .leftJoin('event_type_catalog as k', 'k.type', 'e.event_type_name')
        .where(within('e.created'))
        .select([
          'e.event_type_name',
          sql<number>`count(*)::int`.as('events'),
          sql<string | null>`max(k.description)`.as('description'),
          sql<boolean | null>`bool_or(k.type is not null and k.gone_since is null)`.as('in_catalog'),
        ])
        .groupBy('e.event_type_name')
        .orderBy('events', 'desc')
        .orderBy('e.event_type_name')
        .limit(TOP_TYPES)
        .execute(),
      db.selectFrom('event_type_catalog').select(sql.lit(1).as('one')).limit(1).execute(),
    ]);
  return {
    filter,
    totals: { ...totals, alertEpisodes: episodeCount.n },
    summary,
    scopeNames: distinctNames(names.map((n) => [n.scope, n.name as string])),
    eventsPerDay: chooseTypeBands(perDay.map((r) => ({ ...r, event_type_name: r.event_type_name ?? '' }))),
    dayTotals: dayTotals(perDay),
    eventTypes: types.map((t) => ({ ...t, event_type_name: t.event_type_name ?? '' })),
    catalogRead: catalog.length > 0,
    alertEpisodes: episodes.map((e) => ({ ...e, opened_at: new Date(e.opened_at) })),
    topActors: actors,
    securityPerDay,
    securityLatest,
    dataAccess: places,
    syncLag: lag,
  };
}

/** Newest day first: its events and its most common type. */
function dayTotals(rows: ReadonlyArray<{ day: string; event_type_name: string | null; events: number }>): ReportData['dayTotals'] {
  const days = new Map<string, { day: string; events: number; top: string; topEvents: number }>();
  for (const r of rows) {
    const day = days.get(r.day) ?? { day: r.day, events: 0, top: '', topEvents: -1 };
    day.events += r.events;
    if (r.events > day.topEvents) Object.assign(day, { top: r.event_type_name || '(none)', topEvents: r.events });
    days.set(r.day, day);
  }
  return [...days.values()].sort((a, b) => b.day.localeCompare(a.day)).map(({ day, events, top }) => ({ day, events, top }));
}

/** Scope → name; a name two scopes share gets the end of each one's id: "Payments (…2fa071)". */
export function distinctNames(names: ReadonlyArray<readonly [scope: string, name: string]>): Map<string, string> {
  const uses = new Map<string, number>();
  for (const [, name] of names) uses.set(name, (uses.get(name) ?? 0) + 1);
  return new Map(names.map(([scope, name]) => [scope, (uses.get(name) ?? 0) > 1 ? `${name}\u00a0(…\u2060${scope.slice(-6)})` : name]));
}
