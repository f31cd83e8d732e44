/** What a person wants to see after the demo: what landed, by type, by day, who, what changed, lag. */
import { sql, type Kysely } from 'kysely';
import type { Database } from '../warehouse/database.js';
import { formatTimestamp } from '../time.js';
import { formatDuration, renderTable } from './table.js';

export async function renderDemoReport(db: Kysely<Database>, now: Date): Promise<string> {
  const [totals, byType, byDay, actors, changes, lag] = await Promise.all([
    db
      .selectFrom('events')
      .select([sql<number>`count(*)::int`.as('events'), sql<number>`count(distinct scope)::int`.as('scopes')])
      .executeTakeFirstOrThrow(),
    db
      .selectFrom('events')
      .select(['event_type_name', sql<number>`count(*)::int`.as('events')])
      .groupBy('event_type_name')
      .orderBy('events', 'desc')
      .orderBy('event_type_name')
      .limit(8)
      .execute(),
    db
      .selectFrom('events_per_day')
      .select(['day', sql<number>`sum(events)::int`.as('events')])
      .groupBy('day')
      .orderBy('day', 'desc')
      .limit(7)
      .execute(),
    db
      .selectFrom('actor_activity')
      .select(['actor', 'actor_kind', sql<number>`count(*)::int`.as('events')])
      .groupBy(['actor', 'actor_kind'])
      .orderBy('events', 'desc')
      .orderBy('actor')
      .limit(5)
      .execute(),
    db
      .selectFrom('automation_config_changes')
      .select(['created', 'scope', 'diff_type', 'diff_status', 'diff_name', 'param_names'])
      .orderBy('created', 'desc')
      .orderBy('event_id')
      .orderBy('diff_index')
      .limit(5)
      .execute(),
    db.selectFrom('sync_lag').select(['scope', 'watermark']).orderBy('scope').execute(),
  ]);
  const rejected = await db
    .selectFrom('rejected_events')
    .select(sql<number>`count(*)::int`.as('n'))
    .executeTakeFirstOrThrow();
  return [
    `${totals.events.toLocaleString('en-US')} events mirrored from ${totals.scopes} scopes (${rejected.n} malformed set aside in rejected_events)\n`,
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
        actors.map((r) => [r.actor, r.actor_kind, r.events]),
      ),
    ),
    section(
      'Recent configuration changes',
      renderTable(
        ['created', 'scope', 'type', 'status', 'name', 'params'],
        changes.map((r) => [formatTimestamp(r.created), r.scope, r.diff_type, r.diff_status, r.diff_name, r.param_names.join(', ') || '-']),
      ),
    ),
    section(
      'Sync lag',
      renderTable(
        ['scope', 'watermark', 'lag'],
        lag.map((r) => [r.scope, formatTimestamp(r.watermark), r.watermark ? formatDuration(now.getTime() - r.watermark.getTime()) : '-']),
      ),
    ),
  ].join('\n');
}

function section(title: string, body: string): string {
  return `${title}\n${body}`;
}
