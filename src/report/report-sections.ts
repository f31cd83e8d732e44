/**
 * The sections of the HTML report, from its data: each a title, a line saying what it shows and
 * from which view, a chart with its title and a one-line "how to read" (or a line saying why there
 * is none), and the table behind it. Pure.
 */
import { actorKindWords, actorLabel } from './actor-words.js';
import { alertEpisodesSpec, eventsPerDaySpec, securitySpec, syncLagSpec, topActorsSpec, type ChartSpec } from './charts.js';
import { htmlTable, scopeCell } from './html-table.js';
import type { ReportData } from './report-data.js';
import { plural } from './shorten.js';
import { COVERAGE, MAX_BANDS, OTHER_BAND } from './type-bands.js';
import { formatDurationWords, formatMetricValue, shortTimestamp } from './units.js';

export interface ReportChart {
  readonly title: string;
  /** One line, read before the chart. */
  readonly howToRead: string;
  readonly chart: ChartSpec;
  /** A line under the chart: the rule it was drawn by. */
  readonly rule?: string;
}

export interface Section {
  readonly id: string;
  readonly title: string;
  readonly note: string;
  /** Absent when the period has nothing worth charting; `noChart` says why. */
  readonly chart?: ReportChart;
  readonly noChart: string;
  /** HTML: the table(s) behind the chart. */
  readonly tables: string;
}

const count = new Intl.NumberFormat('en-US');
const percent = (share: number) => `${Math.round(share * 100)} %`;

/** A lag chart says something when a scope is failing or some checkpoint is an hour or more behind. */
export const LAG_WORTH_CHARTING_SECONDS = 3600;

/** "Nov 20 07:43 to Nov 27 07:43" when the period does not start and end at midnight UTC. */
function partialDays(period: { since: Date; until: Date }): string | undefined {
  const midnight = (d: Date) => d.getTime() % 86_400_000 === 0;
  return midnight(period.since) && midnight(period.until)
    ? undefined
    : `${shortTimestamp(period.since)} to ${shortTimestamp(period.until)}`;
}

function eventsSection(data: ReportData): Section {
  const bands = data.eventsPerDay;
  const named = bands.bands.filter((b) => b !== OTHER_BAND).length;
  const rule =
    `Bands: alert events and security changes together, other types grouped by their first word (CLUSTER_*); the largest groups until ${percent(COVERAGE)} of events are covered, at most ${MAX_BANDS}: these ${named} cover ${percent(bands.covered)}` +
    (bands.otherTypes > 0 ? `, the other ${bands.otherTypes} types (${percent(bands.otherShare)}) are “${OTHER_BAND}”.` : '.') +
    (partialDays(data.filter) ? ` The first and last days are partial: the period runs from ${partialDays(data.filter)} UTC.` : '');
  return {
    id: 'events-per-day',
    title: 'Events per day',
    note: `${count.format(data.totals.events)} events of ${data.totals.types} types from ${data.totals.scopes} scopes. View: events_per_day.`,
    ...(bands.rows.length > 0
      ? {
          chart: {
            title: 'Events per day, by group of event types',
            howToRead: 'How to read: one bar a day (UTC), its height the events created that day, split by group of types.',
            chart: eventsPerDaySpec(bands, data.filter),
            rule,
          },
        }
      : {}),
    noChart: 'No events in this period.',
    tables:
      htmlTable(
        ['day', 'events', 'most common type'],
        data.dayTotals.map((d) => [d.day, d.events, d.top]),
      ) + eventTypesTable(data),
  };
}

/** The period's most common types with what each means (the Atlas v2 event type catalogue's description). */
function eventTypesTable(data: ReportData): string {
  const types = data.eventTypes ?? [];
  if (types.length === 0) return '';
  const described = (t: (typeof types)[number]) =>
    t.description ?? (data.catalogRead ? (t.in_catalog ? null : 'not in the event type catalogue') : null);
  // A v1 source has no catalogue: a column of dashes says nothing, so it is left out.
  const withDescriptions = types.some((t) => described(t) !== null);
  return `\n<h3>Most common event types${withDescriptions ? ', as the event type catalogue describes them' : ''}</h3>\n${htmlTable(
    withDescriptions ? ['event type', 'events', 'description'] : ['event type', 'events'],
    types.map((t) => (withDescriptions ? [t.event_type_name, t.events, described(t)] : [t.event_type_name, t.events])),
  )}`;
}

/**
 * The period's alerts in the words of the figure at the top: of those still open at its end, how
 * many were opened in the period, and how many before it (the headline counts both).
 */
function alertsNote(data: ReportData): string {
  const openAtEnd = data.summary.current.alertsOpenAtEnd;
  const before = data.summary.openAtEndOpenedBefore;
  const opened = data.totals.alertEpisodes;
  const shown = data.alertEpisodes.length;
  const olderOpen =
    before > 0
      ? ` ${plural(before, 'alert')} opened before the period ${before === 1 ? 'is' : 'are'} still open too: ${openAtEnd.toLocaleString('en-US')} still open in all, the figure at the top.`
      : '';
  const listed =
    shown < opened
      ? ` The chart shows ${shown.toLocaleString('en-US')} of them, the table the open ones and the longest.`
      : ' The table lists the open ones and the longest.';
  return `${plural(opened, 'alert')} opened in the period, ${(openAtEnd - before).toLocaleString('en-US')} of them still open at its end.${olderOpen}${listed} View: alert_episodes.`;
}

function alertsSection(data: ReportData): Section {
  const episodes = data.alertEpisodes;
  const longest = [...episodes].sort(
    (a, b) => Number(b.is_open) - Number(a.is_open) || (b.duration_seconds ?? 0) - (a.duration_seconds ?? 0),
  );
  return {
    id: 'alert-episodes',
    title: 'Alert episodes',
    note: alertsNote(data),
    ...(episodes.length > 0
      ? {
          chart: {
            title: 'Alert episodes over time, by host or replica set and metric',
            howToRead:
              'How to read: each bar is one alert, from opening to close; red bars are still open; hover a label for its full name.',
            chart: alertEpisodesSpec(episodes, data.scopeNames, data.filter),
          },
        }
      : {}),
    noChart: 'No alert opened in this period.',
    tables: htmlTable(
      ['opened', 'project', 'source', 'opened by', 'metric', 'peak', 'acknowledged', 'closed', 'duration'],
      longest
        .slice(0, 20)
        .map((e) => [
          e.opened_at,
          scopeCell(e.scope, data.scopeNames),
          e.source,
          e.opened_by,
          e.metric_name,
          e.peak_value === null
            ? null
            : { text: formatMetricValue(e.peak_value, e.units), title: `${e.peak_value} ${e.units ?? ''}`.trim(), className: 'num' },
          e.acknowledged_at ? new Date(e.acknowledged_at) : null,
          e.closed_at ? new Date(e.closed_at) : { text: 'still open', className: 'nowrap' },
          e.duration_seconds === null ? null : { text: formatDurationWords(e.duration_seconds), className: 'num' },
        ]),
    ),
  };
}

function actorsSection(data: ReportData): Section {
  return {
    id: 'top-actors',
    title: 'Top actors',
    note: 'Users and API keys behind the most events in the period. View: actor_activity.',
    ...(data.topActors.length > 0
      ? {
          chart: {
            title: 'Events per actor, the most active first',
            howToRead: 'How to read: one bar per user or API key, its length the events it caused in the period.',
            chart: topActorsSpec(data.topActors),
          },
        }
      : {}),
    noChart: 'No event in this period names an actor.',
    tables: htmlTable(
      ['actor', 'kind', 'events'],
      data.topActors.map((a) => [a.actor, actorKindWords(a.actor_kind), a.events]),
    ),
  };
}

function securitySection(data: ReportData): Section {
  const places =
    data.dataAccess.length > 0
      ? `\n<h3>Data explorer: most used collections</h3>\n${htmlTable(
          ['database.collection', 'actions', 'actors', 'last action'],
          data.dataAccess.map((d) => [d.place, d.actions, d.actors, new Date(d.last_at)]),
        )}`
      : '';
  return {
    id: 'security-changes',
    title: 'Security changes',
    note: 'Logins, API keys, access lists, memberships, roles, teams and support access; the latest below. View: security_audit (categories from the table security_event_categories).',
    ...(data.securityPerDay.length > 0
      ? {
          chart: {
            title: 'Security changes per day, by category',
            howToRead: 'How to read: one bar a day (UTC), its height the changes that day, split by category.',
            chart: securitySpec(data.securityPerDay, data.filter),
          },
        }
      : {}),
    noChart: 'No security change in this period.',
    tables:
      htmlTable(
        ['when', 'scope', 'event type', 'category', 'action', 'actor', 'target', 'address'],
        data.securityLatest.map((s) => [
          s.created,
          scopeCell(s.scope, data.scopeNames),
          s.event_type_name,
          s.category,
          s.action,
          s.actor === null ? null : actorLabel(s.actor, s.actor_kind),
          s.target,
          s.remote_address === null ? null : { text: s.remote_address, className: 'nowrap' },
        ]),
      ) + places,
  };
}

function lagSection(data: ReportData): Section {
  const lagged = data.syncLag.filter((r) => r.lag_seconds !== null);
  const largest = Math.max(0, ...lagged.map((r) => r.lag_seconds as number));
  const worth = lagged.some((r) => r.consecutive_failures > 0) || largest >= LAG_WORTH_CHARTING_SECONDS;
  return {
    id: 'sync-lag',
    title: 'Sync lag',
    note: 'How far each scope’s checkpoint is behind the time of this report. View: sync_lag.',
    ...(worth
      ? {
          chart: {
            title: 'Hours behind, per scope',
            howToRead: 'How to read: one bar per scope, its length how far its checkpoint is behind; red when its last attempt failed.',
            chart: syncLagSpec(data.syncLag, data.scopeNames),
          },
        }
      : {}),
    noChart:
      lagged.length === 0
        ? 'No scope has a checkpoint yet.'
        : `No chart: every scope is ${formatDurationWords(largest)} or less behind and none is failing.`,
    tables: htmlTable(
      ['scope', 'checkpoint', 'behind', 'last success', 'failures', 'last error'],
      data.syncLag.map((r) => [
        scopeCell(r.scope, data.scopeNames),
        r.watermark,
        r.lag_seconds === null ? null : { text: formatDurationWords(r.lag_seconds), className: 'num' },
        r.last_success_at,
        r.consecutive_failures,
        r.last_error,
      ]),
    ),
  };
}

export function reportSections(data: ReportData): Section[] {
  return [eventsSection(data), alertsSection(data), actorsSection(data), securitySection(data), lagSection(data)];
}
