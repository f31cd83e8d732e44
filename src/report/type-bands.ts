/**
 * The bands of the events-per-day chart, chosen by count: event types are first gathered into
 * groups (alert events, security changes, then types sharing their first word, as CLUSTER_*), and
 * the largest groups are kept until they cover COVERAGE of the period's events, at most MAX_BANDS;
 * what is left is one "other types" band. The rule is stated under the chart. Pure.
 */

export const COVERAGE = 0.9;
export const MAX_BANDS = 8;
export const OTHER_BAND = 'other types';

export interface TypeDayCount {
  readonly day: string;
  readonly event_type_name: string;
  /** The group the type belongs to: 'alert events', 'security changes', or its first word (`CLUSTER`). */
  readonly family: string;
  readonly events: number;
}

export interface BandDayCount {
  readonly day: string;
  readonly band: string;
  events: number;
}

export interface TypeBands {
  readonly rows: BandDayCount[];
  /** Bands in the order of their size, "other types" last when there is one. */
  readonly bands: string[];
  /** Types in the "other types" band, and the share of events it holds (0–1). */
  readonly otherTypes: number;
  readonly otherShare: number;
  /** The share of events the named bands cover (0–1). */
  readonly covered: number;
}

/** A group's name in the legend: a group of one type is that type; a first word is shown as `WORD_*`. */
function bandName(family: string, types: ReadonlySet<string>): string {
  if (family === 'alert events' || family === 'security changes') return family;
  return types.size === 1 ? [...types][0] || '(none)' : `${family}_*`;
}

export function chooseTypeBands(rows: readonly TypeDayCount[]): TypeBands {
  const total = rows.reduce((n, r) => n + r.events, 0);
  const families = new Map<string, { events: number; types: Set<string> }>();
  for (const r of rows) {
    const family = families.get(r.family) ?? { events: 0, types: new Set<string>() };
    family.events += r.events;
    family.types.add(r.event_type_name);
    families.set(r.family, family);
  }
  const ranked = [...families.entries()].sort((a, b) => b[1].events - a[1].events || a[0].localeCompare(b[0]));
  const kept = new Map<string, string>();
  let covered = 0;
  for (const [family, { events, types }] of ranked) {
    if (kept.size >= MAX_BANDS || (total > 0 && covered / total >= COVERAGE)) break;
    kept.set(family, bandName(family, types));
    covered += events;
  }
  const otherTypes = new Set(rows.filter((r) => !kept.has(r.family)).map((r) => r.event_type_name)).size;
  const folded = new Map<string, BandDayCount>();
  for (const r of rows) {
    const band = kept.get(r.family) ?? OTHER_BAND;
    const key = `${r.day}\u0000${band}`;
    const row = folded.get(key) ?? { day: r.day, band, events: 0 };
    row.events += r.events;
    folded.set(key, row);
  }
  const bands = [...kept.values()];
  if (otherTypes > 0) bands.push(OTHER_BAND);
  return {
    rows: [...folded.values()].sort((a, b) => a.day.localeCompare(b.day) || bands.indexOf(a.band) - bands.indexOf(b.band)),
    bands,
    otherTypes,
    otherShare: total > 0 ? (total - covered) / total : 0,
    covered: total > 0 ? covered / total : 1,
  };
}
