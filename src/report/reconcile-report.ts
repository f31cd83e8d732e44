/**
 * What `reconcile` prints: the range once when every scope shares it, then one line a scope (its
 * result and the counts that are not zero), wrapped under itself within 80 columns; `--json` has
 * every count of every scope.
 */
import { errorMessage } from '../errors.js';
import { isReconciled, type ReconcileScopeResult } from '../sync/reconcile-scope.js';
import { formatTimestamp } from '../time.js';
import { errorCell, plural } from './shorten.js';
import { terminalSafe } from './table.js';
import { wrapList } from './wrap-list.js';

export function renderReconcileSummary(results: readonly ReconcileScopeResult[]): string {
  const ranges = new Set(results.map(rangeOf));
  const shared = ranges.size === 1 ? [...ranges][0] : undefined;
  const requests = results.reduce((sum, r) => sum + r.requests, 0);
  const head = shared && shared !== '-' ? `range ${shared}, ${plural(requests, 'request')}\n` : `${plural(requests, 'request')}\n`;
  const lines = results.flatMap((r) => scopeLines(r, shared === undefined));
  const bad = results.filter((r) => !isReconciled(r.outcome)).length;
  const footer =
    bad === 0
      ? `${plural(results.length, 'scope')} consistent with the API\n`
      : `${bad} of ${plural(results.length, 'scope')} not consistent with the API (the reason under each)\n`;
  return head + lines.map((line) => `${line}\n`).join('') + footer;
}

function rangeOf(r: ReconcileScopeResult): string {
  return r.from && r.to ? `${formatTimestamp(r.from)}..${formatTimestamp(r.to)}` : '-';
}

/** `group:…  consistent: 8 windows` + the counts that are not zero, wrapped; a reason under a result that needs one. */
function scopeLines(r: ReconcileScopeResult, withRange: boolean): string[] {
  const counts = [
    plural(r.windowsChecked, 'window'),
    ...(r.windowsDiffering > 0 ? [`${r.windowsDiffering.toLocaleString('en-US')} differing`] : []),
    ...(r.windowsReread > 0 ? [`${r.windowsReread.toLocaleString('en-US')} re-read`] : []),
    ...(r.eventsRecovered > 0 ? [plural(r.eventsRecovered, 'event') + ' recovered'] : []),
    ...(r.eventsMissing > 0 ? [plural(r.eventsMissing, 'event') + ' missing'] : []),
    ...(r.eventsExtra > 0 ? [plural(r.eventsExtra, 'event') + ' extra'] : []),
    ...(withRange && rangeOf(r) !== '-' ? [rangeOf(r)] : []),
  ];
  const reason = reasonOf(r);
  return [
    ...wrapList(`${terminalSafe(r.scope)}  ${OUTCOME_WORDS[r.outcome]}: `, counts, '    '),
    ...(reason ? wrapList('  ', [reason], '  ') : []),
  ];
}

const OUTCOME_WORDS: Readonly<Record<ReconcileScopeResult['outcome'], string>> = {
  consistent: 'consistent',
  recovered: 'recovered',
  differs: 'DIFFERS',
  failed: 'FAILED',
  'no-checkpoint': 'no checkpoint',
};

function reasonOf(r: ReconcileScopeResult): string | undefined {
  switch (r.outcome) {
    case 'failed':
      return terminalSafe(errorCell(errorMessage(r.error)));
    case 'no-checkpoint':
      return 'nothing to check yet: run sync first, or pass --to';
    case 'differs':
      return r.eventsExtra > 0 && r.eventsMissing === 0
        ? 'the warehouse holds events the API no longer lists (nothing deleted)'
        : 'events still missing after re-reading';
    default:
      return undefined;
  }
}
