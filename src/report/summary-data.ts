/**
 * The report's key figures for its period and for the period of the same length before it: events,
 * alerts opened, alerts open at the period's end, failed logins, security changes (logins aside).
 */
import { sql, type Kysely, type SqlBool } from 'kysely';
import type { Database } from '../warehouse/database.js';

export interface Figures {
  readonly events: number;
  readonly alertsOpened: number;
  readonly alertsOpenAtEnd: number;
  readonly failedLogins: number;
  readonly securityChanges: number;
}

export interface SummaryFigures {
  readonly current: Figures;
  readonly previous: Figures;
  /** Of the alerts still open at the period's end, those opened before the period began. */
  readonly openAtEndOpenedBefore: number;
  /** Where the previous period starts (it ends where this one starts). */
  readonly previousSince: Date;
  /** Whether the warehouse holds events from before this period at all (if not, the previous figures mean nothing). */
  readonly previousHasData: boolean;
}

export async function loadSummaryFigures(
  db: Kysely<Database>,
  filter: { readonly since: Date; readonly until: Date; readonly scopes: readonly string[] },
): Promise<SummaryFigures> {
  const { since, until } = filter;
  const previousSince = new Date(since.getTime() - (until.getTime() - since.getTime()));
  const ofScopes = filter.scopes.length > 0 ? sql<SqlBool>`scope in (${sql.join(filter.scopes)})` : sql<SqlBool>`true`;
  const both = (column: string) => sql<SqlBool>`${sql.ref(column)} >= ${previousSince} and ${sql.ref(column)} < ${until} and ${ofScopes}`;
  // Rows of this period, and of the one before (`both` keeps to the two).
  const now = (column: string, condition = sql<SqlBool>`true`) =>
    sql<number>`(count(*) filter (where ${sql.ref(column)} >= ${since} and ${condition}))::int`;
  const before = (column: string, condition = sql<SqlBool>`true`) =>
    sql<number>`(count(*) filter (where ${sql.ref(column)} < ${since} and ${condition}))::int`;
  const split = (column: string) => [now(column).as('current'), before(column).as('previous')] as const;
  const failed = sql<SqlBool>`category = 'login' and action = 'failed'`;
  const changed = sql<SqlBool>`category <> 'login'`;
  const [events, opened, openAtEnd, security, earlier] = await Promise.all([
    db.selectFrom('events').where(both('created')).select(split('created')).executeTakeFirstOrThrow(),
    db.selectFrom('alert_episodes').where(both('opened_at')).select(split('opened_at')).executeTakeFirstOrThrow(),
    // Open at a period's end: opened before it, and closed after it or not yet.
    db
      .selectFrom('alert_episodes')
      .where(ofScopes)
      .where('opened_at', '<', until)
      .select([
        sql<number>`(count(*) filter (where closed_at is null or closed_at >= ${until}))::int`.as('current'),
        sql<number>`(count(*) filter (where opened_at < ${since} and (closed_at is null or closed_at >= ${until})))::int`.as(
          'openedBefore',
        ),
        sql<number>`(count(*) filter (where opened_at < ${since} and (closed_at is null or closed_at >= ${since})))::int`.as('previous'),
      ])
      .executeTakeFirstOrThrow(),
    db
      .selectFrom('security_audit')
      .where(both('created'))
      .select([
        now('created', failed).as('failedNow'),
        before('created', failed).as('failedBefore'),
        now('created', changed).as('changesNow'),
        before('created', changed).as('changesBefore'),
      ])
      .executeTakeFirstOrThrow(),
    db.selectFrom('events').where(ofScopes).where('created', '<', since).select('id').limit(1).executeTakeFirst(),
  ]);
  return {
    current: {
      events: events.current,
      alertsOpened: opened.current,
      alertsOpenAtEnd: openAtEnd.current,
      failedLogins: security.failedNow,
      securityChanges: security.changesNow,
    },
    previous: {
      events: events.previous,
      alertsOpened: opened.previous,
      alertsOpenAtEnd: openAtEnd.previous,
      failedLogins: security.failedBefore,
      securityChanges: security.changesBefore,
    },
    openAtEndOpenedBefore: openAtEnd.openedBefore,
    previousSince,
    previousHasData: earlier !== undefined,
  };
}
