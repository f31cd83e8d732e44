/**
 * The `report --html` file: one self-contained page (inline SVG charts, inline CSS, no script, no
 * network), each chart followed by the table behind it.
 */
import type { TopLevelSpec } from 'vega-lite';
import { formatTimestamp } from '../time.js';
import { alertEpisodesSpec, eventsPerDaySpec, renderSvg, securitySpec, syncLagSpec, topActorsSpec } from './charts.js';
import type { ReportData } from './report-data.js';
import { formatDuration, type Cell } from './table.js';

const count = new Intl.NumberFormat('en-US');

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] as string);
}

function cell(value: Cell | Date | boolean): string {
  if (value === null || value === undefined) return '<td class="none">–</td>';
  if (value instanceof Date) return `<td>${formatTimestamp(value)}</td>`;
  if (typeof value === 'number') return `<td class="num">${count.format(value)}</td>`;
  return `<td>${escapeHtml(String(value))}</td>`;
}

function table(headers: readonly string[], rows: ReadonlyArray<ReadonlyArray<Cell | Date | boolean>>): string {
  const head = headers.map((h) => `<th>${escapeHtml(h)}</th>`).join('');
  const body = rows.map((row) => `<tr>${row.map(cell).join('')}</tr>`).join('\n');
  return `<table><thead><tr>${head}</tr></thead><tbody>\n${body}\n</tbody></table>`;
}

/** Newest day first: its events and its most common type. */
function perDayTotals(rows: ReportData['eventsPerDay']): Array<[string, number, string]> {
  const days = new Map<string, { events: number; top: string; topEvents: number }>();
  for (const r of rows) {
    const day = days.get(r.day) ?? { events: 0, top: '', topEvents: -1 };
    day.events += r.events;
    if (r.event_type_name !== 'other types' && r.events > day.topEvents)
      Object.assign(day, { top: r.event_type_name, topEvents: r.events });
    days.set(r.day, day);
  }
  return [...days.entries()].sort((a, b) => b[0].localeCompare(a[0])).map(([day, d]) => [day, d.events, d.top]);
}

interface Section {
  readonly id: string;
  readonly title: string;
  readonly note: string;
  /** Absent when the period has nothing to chart. */
  readonly spec: TopLevelSpec | undefined;
  readonly empty: string;
  readonly table: string;
}

async function renderSection(section: Section): Promise<string> {
  const chart = section.spec
    ? `<figure class="chart" data-chart="${section.id}">${await renderSvg(section.spec)}</figure>`
    : `<p class="empty" data-empty="${section.id}">${escapeHtml(section.empty)}</p>`;
  return `<section id="${section.id}">
<h2>${escapeHtml(section.title)}</h2>
<p class="note">${escapeHtml(section.note)}</p>
${chart}
${section.spec ? section.table : ''}
</section>`;
}

function sections(data: ReportData): Section[] {
  const episodes = data.alertEpisodes;
  const open = episodes.filter((e) => e.is_open).length;
  const longest = [...episodes].sort(
    (a, b) => Number(b.is_open) - Number(a.is_open) || (b.duration_seconds ?? 0) - (a.duration_seconds ?? 0),
  );
  const lagged = data.syncLag.filter((r) => r.lag_seconds !== null);
  return [
    {
      id: 'events-per-day',
      title: 'Events per day, by type',
      note: `${count.format(data.totals.events)} events of ${data.totals.types} types from ${data.totals.scopes} scopes; the eight most common types by name, the rest as “other types”. View: events_per_day.`,
      spec: data.eventsPerDay.length > 0 ? eventsPerDaySpec(data.eventsPerDay) : undefined,
      empty: 'No events in this period.',
      table: table(['day', 'events', 'most common type'], perDayTotals(data.eventsPerDay)),
    },
    {
      id: 'alert-episodes',
      title: 'Alert episodes over time',
      note: `${episodes.length} alerts shown of ${data.totals.alertEpisodes} opened in the period (${open} of those shown still open, the latest first), one bar per alert from opening to close, by host or replica set and metric. View: alert_episodes.`,
      spec: episodes.length > 0 ? alertEpisodesSpec(episodes, data.filter.until) : undefined,
      empty: 'No alert opened in this period.',
      table: table(
        ['opened', 'scope', 'source', 'opened by', 'metric', 'peak', 'acknowledged', 'closed', 'duration'],
        longest
          .slice(0, 20)
          .map((e) => [
            e.opened_at,
            e.scope,
            e.source,
            e.opened_by,
            e.metric_name,
            e.peak_value === null ? null : `${e.peak_value} ${e.units ?? ''}`.trim(),
            e.acknowledged_at ? new Date(e.acknowledged_at) : null,
            e.closed_at ? new Date(e.closed_at) : 'still open',
            e.duration_seconds === null ? null : formatDuration(e.duration_seconds * 1000),
          ]),
      ),
    },
    {
      id: 'top-actors',
      title: 'Top actors',
      note: 'Users and API keys behind the most events in the period. View: actor_activity.',
      spec: data.topActors.length > 0 ? topActorsSpec(data.topActors) : undefined,
      empty: 'No event in this period names an actor.',
      table: table(
        ['actor', 'kind', 'events'],
        data.topActors.map((a) => [a.actor, a.actor_kind, a.events]),
      ),
    },
    {
      id: 'security-changes',
      title: 'Security changes',
      note: 'Logins, API keys, access lists, memberships, roles and teams, per day by category; the latest below. View: security_audit (categories from the security_event_categories table).',
      spec: data.securityPerDay.length > 0 ? securitySpec(data.securityPerDay) : undefined,
      empty: 'No security change in this period.',
      table:
        table(
          ['when', 'scope', 'event type', 'category', 'action', 'actor', 'target', 'address'],
          data.securityLatest.map((s) => [
            s.created,
            s.scope,
            s.event_type_name,
            s.category,
            s.action,
            s.actor,
            s.target,
            s.remote_address,
          ]),
        ) +
        (data.dataAccess.length > 0
          ? `\n<h3>Data explorer: most used collections</h3>\n${table(
              ['database.collection', 'actions', 'actors', 'last action'],
              data.dataAccess.map((d) => [d.place, d.actions, d.actors, new Date(d.last_at)]),
            )}`
          : ''),
    },
    {
      id: 'sync-lag',
      title: 'Sync lag per scope',
      note: 'How far each scope’s checkpoint is behind the time of this report. View: sync_lag.',
      spec: lagged.length > 0 ? syncLagSpec(data.syncLag) : undefined,
      empty: 'No scope has a checkpoint yet.',
      table: table(
        ['scope', 'checkpoint', 'behind', 'last success', 'failures', 'last error'],
        data.syncLag.map((r) => [
          r.scope,
          r.watermark,
          r.lag_seconds === null ? null : formatDuration(r.lag_seconds * 1000),
          r.last_success_at,
          r.consecutive_failures,
          r.last_error,
        ]),
      ),
    },
  ];
}

const STYLE = `
body { font: 14px/1.45 'DejaVu Sans', Helvetica, Arial, sans-serif; color: #111827; margin: 2rem auto; max-width: 1100px; padding: 0 1rem; }
h1 { font-size: 1.6rem; margin-bottom: .2rem; } h2 { margin-top: 2.4rem; border-bottom: 1px solid #e5e7eb; padding-bottom: .3rem; }
.meta, .note { color: #4b5563; } .empty { color: #6b7280; font-style: italic; }
figure.chart { margin: 1rem 0; overflow-x: auto; }
table { border-collapse: collapse; font-size: 12.5px; margin: .6rem 0 1rem; display: block; overflow-x: auto; max-width: 100%; }
th, td { border-bottom: 1px solid #e5e7eb; padding: .25rem .6rem; text-align: left; vertical-align: top; }
th { background: #f9fafb; } td.num { text-align: right; font-variant-numeric: tabular-nums; } td.none { color: #9ca3af; }
`;

export async function renderHtmlReport(data: ReportData, generatedAt: Date): Promise<string> {
  const { since, until, scopes } = data.filter;
  const rendered = await Promise.all(sections(data).map(renderSection));
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>events-mirror report ${escapeHtml(formatTimestamp(since))} to ${escapeHtml(formatTimestamp(until))}</title>
<style>${STYLE}</style>
</head>
<body>
<h1>events-mirror report</h1>
<p class="meta">Events created from ${escapeHtml(formatTimestamp(since))} to ${escapeHtml(formatTimestamp(until))}, ${
    scopes.length > 0 ? `scopes ${escapeHtml(scopes.join(', '))}` : 'all scopes'
  }. Generated ${escapeHtml(formatTimestamp(generatedAt))} from the warehouse.</p>
${rendered.join('\n')}
</body>
</html>
`;
}
