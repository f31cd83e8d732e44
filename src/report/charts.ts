/**
 * The report's charts as Vega-Lite specifications, rendered to SVG here (no browser, no network),
 * so the HTML file needs nothing but itself to show them.
 */
import type { TopLevelSpec } from 'vega-lite';
import type { ReportData } from './report-data.js';

export interface Chart {
  readonly id: string;
  readonly title: string;
  readonly svg: string;
}

const WIDTH = 760;
const FONT = 'DejaVu Sans, Helvetica, Arial, sans-serif';
const CONFIG = {
  font: FONT,
  view: { stroke: null },
  axis: { labelFontSize: 11, titleFontSize: 12, gridColor: '#e5e7eb' },
  legend: { labelFontSize: 11, titleFontSize: 12, labelLimit: 260 },
} as const;

export async function renderSvg(spec: TopLevelSpec): Promise<string> {
  // Loaded on first use: Vega takes most of a second to load, which every other command would pay.
  const [{ View, parse }, { compile }] = await Promise.all([import('vega'), import('vega-lite')]);
  const view = new View(parse(compile({ ...spec, config: { ...CONFIG, ...spec.config } }).spec), { renderer: 'none' });
  try {
    return await view.toSVG();
  } finally {
    view.finalize();
  }
}

/** The x axis of the per-day stacked bars (events by type, security changes by category). */
const DAY_AXIS = { field: 'day', type: 'temporal', timeUnit: 'utcyearmonthdate', title: 'day (UTC)', axis: { format: '%b %d' } } as const;

export function eventsPerDaySpec(rows: ReportData['eventsPerDay']): TopLevelSpec {
  return {
    width: WIDTH,
    height: 260,
    data: { values: rows.map((r) => ({ ...r })) },
    mark: { type: 'bar' },
    encoding: {
      x: DAY_AXIS,
      y: { field: 'events', type: 'quantitative', aggregate: 'sum', title: 'events' },
      color: { field: 'event_type_name', type: 'nominal', title: 'event type', scale: { scheme: 'tableau10' } },
      tooltip: [{ field: 'day' }, { field: 'event_type_name' }, { field: 'events', type: 'quantitative' }],
    },
  };
}

export function alertEpisodesSpec(rows: ReportData['alertEpisodes'], until: Date): TopLevelSpec {
  const values = rows.map((r) => ({
    source: `${r.source}${r.metric_name ? ` · ${r.metric_name}` : ''}`,
    opened_at: r.opened_at.toISOString(),
    // An open episode runs to the end of the period.
    ended_at: (r.closed_at ? new Date(r.closed_at) : until).toISOString(),
    state: r.is_open ? 'still open' : r.acknowledged_at ? 'closed, acknowledged' : 'closed',
    opened_by: r.opened_by,
    hours: r.duration_seconds === null ? null : Math.round((r.duration_seconds / 3600) * 10) / 10,
  }));
  const sources = new Set(values.map((v) => v.source)).size;
  return {
    width: WIDTH - 220,
    height: Math.max(120, Math.min(640, sources * 16)),
    data: { values },
    mark: { type: 'bar', height: 10, cornerRadius: 2 },
    encoding: {
      y: { field: 'source', type: 'nominal', title: null, axis: { labelLimit: 260 } },
      x: { field: 'opened_at', type: 'temporal', title: 'opened → closed (UTC)' },
      x2: { field: 'ended_at' },
      color: {
        field: 'state',
        type: 'nominal',
        title: 'episode',
        scale: { domain: ['still open', 'closed, acknowledged', 'closed'], range: ['#dc2626', '#2563eb', '#93c5fd'] },
      },
      tooltip: [{ field: 'source' }, { field: 'opened_by' }, { field: 'state' }, { field: 'hours', title: 'hours' }],
    },
  };
}

export function topActorsSpec(rows: ReportData['topActors']): TopLevelSpec {
  return {
    width: WIDTH - 260,
    height: Math.max(60, rows.length * 22),
    data: { values: rows.map((r) => ({ ...r })) },
    mark: { type: 'bar' },
    encoding: {
      y: { field: 'actor', type: 'nominal', sort: '-x', title: null, axis: { labelLimit: 260 } },
      x: { field: 'events', type: 'quantitative', title: 'events' },
      color: {
        field: 'actor_kind',
        type: 'nominal',
        title: 'actor',
        scale: { domain: ['user', 'api_key'], range: ['#0d9488', '#f59e0b'] },
      },
    },
  };
}

export function securitySpec(rows: ReportData['securityPerDay']): TopLevelSpec {
  return {
    width: WIDTH,
    height: 200,
    data: { values: rows.map((r) => ({ ...r })) },
    mark: { type: 'bar' },
    encoding: {
      x: DAY_AXIS,
      y: { field: 'events', type: 'quantitative', aggregate: 'sum', title: 'changes' },
      color: { field: 'category', type: 'nominal', title: 'category', scale: { scheme: 'set2' } },
    },
  };
}

export function syncLagSpec(rows: ReportData['syncLag']): TopLevelSpec {
  const values = rows
    .filter((r) => r.lag_seconds !== null)
    .map((r) => ({ scope: r.scope, minutes: Math.round(((r.lag_seconds as number) / 60) * 10) / 10, failing: r.consecutive_failures > 0 }));
  return {
    width: WIDTH - 260,
    height: Math.max(40, values.length * 22),
    data: { values },
    mark: { type: 'bar' },
    encoding: {
      y: { field: 'scope', type: 'nominal', sort: '-x', title: null, axis: { labelLimit: 280 } },
      x: { field: 'minutes', type: 'quantitative', title: 'minutes behind (checkpoint to now)' },
      color: {
        field: 'failing',
        type: 'nominal',
        title: 'last attempt',
        scale: { domain: [false, true], range: ['#16a34a', '#dc2626'] },
        legend: { labelExpr: "datum.value ? 'failing' : 'ok'" },
      },
    },
  };
}
