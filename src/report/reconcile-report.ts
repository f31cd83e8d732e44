/** The table `reconcile` prints: one row per scope. */
import { errorMessage } from '../errors.js';
import { isReconciled, type ReconcileScopeResult } from '../sync/reconcile-scope.js';
import { formatTimestamp } from '../time.js';
import { errorCell, plural } from './shorten.js';
import { renderTable } from './table.js';

export function renderReconcileSummary(results: readonly ReconcileScopeResult[]): string {
  const rows = results.map((r) => [
    r.scope,
    r.from && r.to ? `${formatTimestamp(r.from)}..${formatTimestamp(r.to)}` : '-',
    r.windowsChecked,
    r.windowsDiffering,
    r.windowsReread,
    r.eventsRecovered,
    r.eventsMissing,
    r.eventsExtra,
    r.requests,
    describeOutcome(r),
  ]);
  const bad = results.filter((r) => !isReconciled(r.outcome)).length;
  const footer =
    bad === 0
      ? `${plural(results.length, 'scope')} consistent with the API\n`
      : `${bad} of ${plural(results.length, 'scope')} not consistent with the API (see the result column)\n`;
  return (
    renderTable(['scope', 'range', 'windows', 'differing', 're-read', 'recovered', 'missing', 'extra', 'requests', 'result'], rows) + footer
  );
}

function describeOutcome(r: ReconcileScopeResult): string {
  switch (r.outcome) {
    case 'failed':
      return `failed: ${errorCell(errorMessage(r.error))}`;
    case 'no-checkpoint':
      return 'no checkpoint yet: nothing to check (run sync first, or pass --to)';
    case 'differs':
      return r.eventsExtra > 0 && r.eventsMissing === 0
        ? 'differs: the warehouse holds events the API no longer lists (nothing deleted)'
        : 'differs: events still missing after re-reading';
    default:
      return r.outcome;
  }
}
