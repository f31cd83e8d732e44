/**
 * What a person wants to see after the demo, and from `report` without --html: what landed, by
 * type, by day, who, what changed, lag. Over the whole warehouse, or a period and some scopes.
 */
import { actorKindWords } from './actor-words.js';
import { sql, type Kysely, type SqlBool } from 'kysely';
import type { Database } from '../warehouse/database.js';
import { formatTimestamp } from '../time.js';
import { topActors } from './report-data.js';
import { plural } from './shorten.js';
import { formatDuration, renderTable, terminalSafe } from './table.js';

export interface SummaryFilter {
  /** Events created from then on; absent: all. */
  readonly since?: Date;
  /** Scope keys; empty: every scope. */
  readonly scopes?: readonly string[];
}

export async function renderDemoReport(db: Kysely<Database>, now: Date, filter: SummaryFilter = {}): Promise<string> {
  const scopes = filter.scopes ?? [];
  const ofScopes = scopes.length > 0 ? sql<SqlBool>`scope in (${sql.join(scopes)})` : sql<SqlBool>`true`;
  const since = filter.since;
  const within = (column: string) => (since ? sql<SqlBool>`${sql.ref(column)} >= ${since} and ${ofScopes}` : ofScopes);
  const sinceDay = since ? since.toISOString().slice(0, 10) : undefined;
  const [totals, byType, byDay, actors, changes, lag] = await Promise.all([
    db
      .selectFrom('events')
      .where(within('created'))
      .select([sql<number>`count(*)::int`.as('events'), sql<number>`count(distinct scope)::int`.as('scopes')])
      .executeTakeFirstOrThrow(),
    db
      .selectFrom('events')
      .where(within('created'))
      .select(['event_type_name', sql<number>`count(*)::int`.as('events')])
      .groupBy('event_type_name')
      .orderBy('events', 'desc')
      .orderBy('event_type_name')
      .limit(8)
      .execute(),
    db
      .selectFrom('events_per_day')
      .where(sinceDay ? sql<SqlBool>`day >= ${sinceDay} and ${ofScopes}` : ofScopes)
      .select(['day', sql<number>`sum(events)::int`.as('events')])
      .groupBy('day')
      .orderBy('day', 'desc')
      .limit(7)
      .execute(),
    topActors(db, within('created'), 5),
    db
      .selectFrom('automation_config_changes')
      .where(within('created'))
      .select(['created', 'scope', 'diff_type', 'diff_status', 'diff_name', 'param_names'])
      .orderBy('created', 'desc')
      .orderBy('event_id')
      .orderBy('diff_index')
      .limit(5)
      .execute(),
    db.selectFrom('sync_lag').where(ofScopes).select(['scope', 'watermark']).orderBy('scope').execute(),
  ]);
  const rejected = await db
    .selectFrom('rejected_events')
    .where(ofScopes)
    .select(sql<number>`count(*)::int`.as('n'))
    .executeTakeFirstOrThrow();
  return [
    `${plural(totals.events, 'event')} mirrored from ${plural(totals.scopes, 'scope')}${since ? ` since ${formatTimestamp(since)}` : ''} (${rejected.n} malformed set aside in rejected_events)\n`,
    section(
      'Events per type (top 8)',
      renderTable(
        ['event type', 'events'],
        byType.map((r) => [r.event_type_name || '(none)', r.events]),
      ),
    ),
    section(
      'Events per day (last 7 days)',
      renderTable(
        ['day', 'events'],
        byDay.map((r) => [r.day, r.events]),
      ),
    ),
    section(
      'Top actors',
      renderTable(
        ['actor', 'kind', 'events'],
        actors.map((r) => [r.actor, actorKindWords(r.actor_kind), r.events]),
      ),
    ),
    section('Recent configuration changes', renderChangesByScope(changes)),
    section(
      'Sync lag',
      renderTable(
        ['scope', 'watermark', 'lag'],
        lag.map((r) => [r.scope, formatTimestamp(r.watermark), r.watermark ? formatDuration(now.getTime() - r.watermark.getTime()) : '-']),
      ),
    ),
  ].join('\n');
}

interface ConfigChange {
  created: Date;
  scope: string;
  diff_type: string | null;
  diff_status: string | null;
  diff_name: string | null;
  param_names: string[];
}

/**
 * The changes newest first, under a line naming their scope whenever it changes: a scope column
 * (30 characters for a project) would push the table past 80 columns.
 */
function renderChangesByScope(changes: readonly ConfigChange[]): string {
  const [head, rule, ...rows] = renderTable(
    ['created', 'type', 'status', 'name', 'params'],
    changes.map((r) => [formatTimestamp(r.created), r.diff_type, r.diff_status, r.diff_name, r.param_names.join(', ') || '-']),
  )
    .trimEnd()
    .split('\n');
  const lines = [`  ${head}`, `  ${rule}`];
  changes.forEach((change, i) => {
    if (change.scope !== changes[i - 1]?.scope) lines.push(terminalSafe(change.scope));
    lines.push(`  ${rows[i]}`);
  });
  return `${lines.join('\n')}\n`;
}

function section(title: string, body: string): string {
  return `${title}\n${body}`;
}
