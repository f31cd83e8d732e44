/**
 * The report's charts as Vega-Lite specifications (rendered to SVG by svg.ts). Time axes cover the
 * report's period and label each tick with its date (time-axis.ts); row labels are cut to stay
 * distinct, their full text kept for the SVG `<title>`.
 */
import { actorKindWords } from './actor-words.js';
import type { TopLevelSpec } from 'vega-lite';
import type { ReportData } from './report-data.js';
import { distinctLabels } from './shorten.js';
import { daysOf, timeEncoding, type Period } from './time-axis.js';
import type { TypeBands } from './type-bands.js';

/** Drawn this wide; shown as wide as the page allows, up to this (svg.ts). */
export const WIDTH = 980;
/** Row labels are cut to this many characters (the full text is in their `<title>`). */
export const LABEL_CHARS = 56;

export interface ChartSpec {
  readonly spec: TopLevelSpec;
  /** Shown label → full text, for labels that were cut. */
  readonly fullTexts?: ReadonlyMap<string, string>;
}

/** Shown label → full text, for the labels that differ from their text. */
function cutLabels(labels: readonly string[], full: readonly string[]): Map<string, string> {
  return new Map(labels.flatMap((label, i) => (label === full[i] ? [] : [[label, full[i]!] as [string, string]])));
}

/**
 * One band a day of the period, each labelled with its date under its bar (labels that would
 * overlap are hidden every other); `label` is the field holding a row's day label.
 */
function dayAxis(period: Period) {
  const days = daysOf(period);
  return {
    field: 'label',
    type: 'ordinal' as const,
    scale: { domain: days.map((d) => d.label), paddingInner: 0.08 },
    axis: { labelAngle: 0, labelOverlap: 'parity' as const },
    title: 'day (UTC)',
  };
}

/** `YYYY-MM-DD` → its day label on the axis. */
function dayLabels(period: Period): Map<string, string> {
  return new Map(daysOf(period).map((d) => [d.day, d.label]));
}

export function eventsPerDaySpec(bands: TypeBands, period: Period): ChartSpec {
  const labels = dayLabels(period);
  return {
    spec: {
      width: WIDTH - 260,
      height: 240,
      data: { values: bands.rows.map((r) => ({ ...r, label: labels.get(r.day) })) },
      mark: { type: 'bar' },
      encoding: {
        x: dayAxis(period),
        y: { field: 'events', type: 'quantitative', aggregate: 'sum', title: 'events' },
        color: { field: 'band', type: 'nominal', title: 'event types', scale: { domain: bands.bands, scheme: 'tableau10' } },
        order: { field: 'band_order', type: 'quantitative' },
      },
      transform: [{ calculate: `indexof(${JSON.stringify(bands.bands)}, datum.band)`, as: 'band_order' }],
    },
  };
}

/** One row per source (host, replica set or cluster) and metric, one bar per alert from opening to close. */
export function alertEpisodesSpec(rows: ReportData['alertEpisodes'], names: ReadonlyMap<string, string>, period: Period): ChartSpec {
  const projects = new Set(rows.map((r) => r.scope)).size;
  const full = rows.map((r) => {
    const project = names.get(r.scope) ?? r.scope;
    const where = r.source === null ? project : projects > 1 ? `${project}: ${r.source}` : r.source;
    return `${where}${r.metric_name ? ` · ${r.metric_name}` : ''}`;
  });
  const labels = distinctLabels(full, LABEL_CHARS);
  const values = rows.map((r, i) => ({
    row: labels[i],
    opened_at: r.opened_at.toISOString(),
    // An open episode runs to the end of the period.
    ended_at: (r.closed_at ? new Date(r.closed_at) : period.until).toISOString(),
    state: r.is_open ? 'still open' : r.acknowledged_at ? 'closed, acknowledged' : 'closed',
  }));
  const shown = new Set(labels).size;
  // Room left of the bars for the labels, right of them for the legend.
  const plotWidth = WIDTH - 330 - 170;
  return {
    spec: {
      width: plotWidth,
      height: Math.max(120, shown * 15),
      data: { values },
      mark: { type: 'bar', height: 9, cornerRadius: 2 },
      encoding: {
        y: { field: 'row', type: 'nominal', title: null, axis: { labelLimit: 600 } },
        x: { field: 'opened_at', type: 'temporal' as const, ...timeEncoding(period, plotWidth) },
        x2: { field: 'ended_at' },
        color: {
          field: 'state',
          type: 'nominal',
          title: 'alert',
          scale: { domain: ['still open', 'closed, acknowledged', 'closed'], range: ['#dc2626', '#2563eb', '#93c5fd'] },
        },
      },
    },
    // The scope's id on hover, beside its name.
    fullTexts: cutLabels(labels, full),
  };
}

export function topActorsSpec(rows: ReportData['topActors']): ChartSpec {
  const full = rows.map((r) => r.actor);
  const labels = distinctLabels(full, LABEL_CHARS);
  return {
    spec: {
      width: WIDTH - 300 - 140,
      height: Math.max(60, rows.length * 20),
      data: { values: rows.map((r, i) => ({ ...r, label: labels[i], kind: actorKindWords(r.actor_kind) })) },
      mark: { type: 'bar' },
      encoding: {
        y: { field: 'label', type: 'nominal', sort: '-x', title: null, axis: { labelLimit: 600 } },
        x: { field: 'events', type: 'quantitative', title: 'events' },
        color: {
          field: 'kind',
          type: 'nominal',
          title: 'actor',
          scale: { domain: ['user', 'API key'], range: ['#0d9488', '#f59e0b'] },
        },
      },
    },
    // The scope's id on hover, beside its name.
    fullTexts: cutLabels(labels, full),
  };
}

export function securitySpec(rows: ReportData['securityPerDay'], period: Period): ChartSpec {
  const labels = dayLabels(period);
  return {
    spec: {
      width: WIDTH - 260,
      height: 200,
      data: { values: rows.map((r) => ({ ...r, label: labels.get(r.day) })) },
      mark: { type: 'bar' },
      encoding: {
        x: dayAxis(period),
        y: { field: 'events', type: 'quantitative', aggregate: 'sum', title: 'changes' },
        color: { field: 'category', type: 'nominal', title: 'category', scale: { scheme: 'set2' } },
      },
    },
  };
}

/** One bar per scope: how far its checkpoint is behind the report's time, red when its last attempt failed. */
export function syncLagSpec(rows: ReportData['syncLag'], names: ReadonlyMap<string, string>): ChartSpec {
  const lagged = rows.filter((r) => r.lag_seconds !== null);
  const full = lagged.map((r) => names.get(r.scope) ?? r.scope);
  const labels = distinctLabels(full, LABEL_CHARS);
  const values = lagged.map((r, i) => ({
    scope: labels[i],
    hours: Math.round(((r.lag_seconds as number) / 3600) * 100) / 100,
    failing: r.consecutive_failures > 0,
  }));
  return {
    spec: {
      width: WIDTH - 300 - 140,
      height: Math.max(40, values.length * 22),
      data: { values },
      mark: { type: 'bar' },
      encoding: {
        y: { field: 'scope', type: 'nominal', sort: '-x', title: null, axis: { labelLimit: 600 } },
        x: { field: 'hours', type: 'quantitative', title: 'hours behind (checkpoint to the report’s time)' },
        color: {
          field: 'failing',
          type: 'nominal',
          title: 'last attempt',
          scale: { domain: [false, true], range: ['#16a34a', '#dc2626'] },
          legend: { labelExpr: "datum.value ? 'failing' : 'ok'" },
        },
      },
    },
    // The scope's id on hover, beside its name.
    fullTexts: new Map(labels.map((label, i) => [label, full[i] === lagged[i]!.scope ? full[i] : `${full[i]} (${lagged[i]!.scope})`])),
  };
}
