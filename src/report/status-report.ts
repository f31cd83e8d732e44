/**
 * What `status` prints: the fleet summary first (scopes by state, failing ones by error code, the
 * worst lags), then the table of scopes, worst first, within 80 columns where the names allow.
 * A large fleet's table is cut to its worst rows unless filtered (`--failing`, `--lagging`) or
 * asked for whole (`--all`).
 */
import { formatTimestamp } from '../time.js';
import type { LastReconcile } from '../warehouse/reconcile.repository.js';
import type { KnownScope } from '../warehouse/scopes.repository.js';
import type { FleetSummary, ScopeHealth, ScopeState } from './scope-health.js';
import { plural, shorten } from './shorten.js';
import { formatDuration, renderTable, terminalSafe } from './table.js';
import { TERMINAL_WIDTH, wrapList } from './wrap-list.js';

/** A fleet of at most this many scopes is listed whole; a larger one shows its worst rows only. */
export const FULL_TABLE_MAX = 20;
/** Rows of a cut table. */
export const CUT_TABLE_ROWS = 12;
/** Names longer than this are cut in the state table. */
const NAME_WIDTH = 14;
/** A failing table's error column is never narrower than this, even past 80 columns. */
const MIN_ERROR_WIDTH = 24;

export interface StatusView {
  /** The scopes the flags select (all, failing or lagging), worst first. */
  readonly rows: readonly ScopeHealth[];
  readonly filter: 'failing' | 'lagging' | undefined;
  /** `--all`: the whole table whatever its size. */
  readonly all: boolean;
}

const STATE_WORDS: Readonly<Record<ScopeState, string>> = {
  ok: 'ok',
  failing: 'failing',
  lagging: 'lagging',
  'never-synced': 'never synced',
  removed: 'removed',
};

export function renderStatus(summary: FleetSummary, view: StatusView, now: Date): string {
  if (summary.scopes === 0) return 'no scopes configured and nothing synced yet: set EVENTS_SCOPES and run npx events-mirror sync --once\n';
  const cut = view.filter === undefined && !view.all && view.rows.length > FULL_TABLE_MAX;
  const shown = cut ? view.rows.slice(0, CUT_TABLE_ROWS) : view.rows;
  const parts = [renderSummary(summary, cut)];
  if (view.filter && shown.length === 0) {
    parts.push(`no ${view.filter} scopes\n`);
  } else {
    parts.push(view.filter === 'failing' ? failingTable(shown) : stateTable(shown, now));
  }
  if (cut) {
    parts.push(`… ${plural(view.rows.length - shown.length, 'more scope')}: --failing, --lagging, --all or --json list them\n`);
  }
  if (view.filter !== 'failing' && shown.some((h) => h.state === 'failing')) {
    parts.push('failing scopes with their errors: npx events-mirror status --failing\n');
  }
  return parts.join('');
}

/** `2,000 scopes: 1,990 ok, 4 failing, …`, failing ones by code, the worst lags when the table is cut. */
function renderSummary(summary: FleetSummary, cut: boolean): string {
  const s = summary.byState;
  const states = [
    `${s.ok.toLocaleString('en-US')} ok`,
    `${s.failing.toLocaleString('en-US')} failing`,
    `${s.lagging.toLocaleString('en-US')} lagging`,
    `${s['never-synced'].toLocaleString('en-US')} never synced`,
    ...(s.removed > 0 ? [`${s.removed.toLocaleString('en-US')} removed`] : []),
  ];
  const lines = [
    `${plural(summary.scopes, 'scope')}: ${states.join(', ')}`,
    `(lagging: checkpoint more than ${formatDuration(summary.lagThresholdMs)} behind; --lagging=<duration> to choose)`,
  ];
  if (summary.failingByCode.length > 0) {
    lines.push(
      ...wrapList(
        'failing by error code: ',
        summary.failingByCode.map((f) => `${terminalSafe(f.code)} ${f.scopes.toLocaleString('en-US')}`),
      ),
    );
  }
  if (cut && summary.worstLags.length > 0) {
    lines.push(`worst lags (top ${summary.worstLags.length}):`);
    const width = Math.max(...summary.worstLags.map((h) => h.scope.length));
    for (const h of summary.worstLags) {
      lines.push(`  ${terminalSafe(h.scope).padEnd(width)}  ${formatDuration(h.lagMs).padStart(6)}  ${STATE_WORDS[h.state]}`);
    }
  }
  return `${lines.join('\n')}\n\n`;
}

/** scope, name, state, lag, last polled: what tells a scope's health at a glance. */
function stateTable(rows: readonly ScopeHealth[], now: Date): string {
  return renderTable(
    ['scope', 'name', 'state', 'lag', 'last polled'],
    rows.map((h) => [
      h.scope,
      h.name === null ? '-' : shorten(h.name, NAME_WIDTH),
      STATE_WORDS[h.state],
      formatDuration(h.lagMs),
      h.sync?.lastPolledAt ? `${formatDuration(now.getTime() - h.sync.lastPolledAt.getTime())} ago` : '-',
    ]),
  );
}

/** scope, name, runs failed in a row, last error cut to what 80 columns leave (the whole with --scope). */
function failingTable(rows: readonly ScopeHealth[]): string {
  const names = rows.map((h) => (h.name === null ? '-' : shorten(h.name, NAME_WIDTH)));
  const used =
    Math.max(5, ...rows.map((h) => h.scope.length)) +
    2 +
    Math.max(4, ...names.map((n) => n.length)) +
    2 +
    Math.max(6, ...rows.map((h) => String(h.sync?.consecutiveFailures ?? 0).length)) +
    2;
  const width = Math.max(MIN_ERROR_WIDTH, TERMINAL_WIDTH - used);
  const errors = rows.map(errorText);
  const cells = errors.map((e) => shorten(e, width));
  const table = renderTable(
    ['scope', 'name', 'failed', 'last error'],
    rows.map((h, i) => [h.scope, names[i], h.sync?.consecutiveFailures ?? 0, cells[i]]),
  );
  const cutOne = rows.find((_, i) => cells[i] !== errors[i]);
  return table + (cutOne ? `whole error: npx events-mirror status --scope ${cutOne.scope}\n` : '');
}

/**
 * An error for a cell, before it is cut: the request that failed is dropped (the row names the
 * scope), white space folded, and control characters escaped first, so the cut counts what shows.
 */
function errorText(h: ScopeHealth): string {
  if (!h.lastError) return '-';
  const text = h.lastError.message.replace(/^[A-Z]+ \S+ for (?:org|group):\S+ failed: /, '');
  return terminalSafe(text.replace(/\s+/g, ' ').trim());
}

/** `status --scope S`: one scope, one line per field, its last error whole. */
export function renderScopeStatus(h: ScopeHealth, lagThresholdMs: number): string {
  const state = h.sync;
  const fields: Array<[string, string]> = [
    ['scope', h.scope],
    ['name', h.name ?? '-'],
    ['origin', describeOrigin(h.known, h.configured)],
    ['state', `${STATE_WORDS[h.state]}${h.state === 'lagging' ? ` (more than ${formatDuration(lagThresholdMs)} behind)` : ''}`],
    ['watermark', formatTimestamp(state?.watermark)],
    ['lag', formatDuration(h.lagMs)],
    ['last polled', formatTimestamp(state?.lastPolledAt)],
    ['polls', (state?.polls ?? 0).toLocaleString('en-US')],
    ['last landed', formatTimestamp(state?.lastLandedAt)],
    ['last attempt', formatTimestamp(state?.lastAttemptAt)],
    ['last success', formatTimestamp(state?.lastSuccessAt)],
    ['failures in a row', String(state?.consecutiveFailures ?? 0)],
    ['events held', (h.events ?? 0).toLocaleString('en-US')],
    ['last reconcile', describeReconcile(h.lastReconcile)],
    ['error code', h.lastError?.code ?? '-'],
    ['last error', h.lastError?.message ?? '-'],
  ];
  const width = Math.max(...fields.map(([name]) => name.length));
  return fields.map(([name, value]) => `${`${name}:`.padEnd(width + 2)}${terminalSafe(String(value))}`).join('\n') + '\n';
}

/** `recovered 12 at 2026-11-24T06:00:00Z`, `consistent at …`, `running since …`. */
function describeReconcile(last: LastReconcile | undefined): string {
  if (!last) return '-';
  if (last.result === 'running' || !last.finishedAt) return `running since ${formatTimestamp(last.startedAt)}`;
  const what = last.result === 'recovered' ? `recovered ${last.eventsRecovered}` : last.result;
  return `${what} at ${formatTimestamp(last.finishedAt)}`;
}

/** `configured`, `discovered (org:…)`, or `removed at …` for a project gone from its organization. */
function describeOrigin(known: KnownScope | undefined, configured: boolean): string {
  if (configured) return 'configured';
  if (!known) return '-';
  if (known.removedAt) return `removed at ${formatTimestamp(known.removedAt)}`;
  return known.origin === 'discovered' && known.discoveredBy ? `discovered (${known.discoveredBy})` : known.origin;
}
