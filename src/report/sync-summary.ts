/**
 * What `sync --once` prints at the end: the pass's problems, one line each (wrapped under itself on
 * a terminal), then one row per scope and what changed in one or two lines. Within 80 columns for a
 * project's scope and six-digit counts: the windows a pass walked are in `sync_runs` and `--json`,
 * and each scope's whole last error in `status --scope`, not here.
 */
import type { ScopeRunResult } from '../sync/sync-scope.js';
import { renderCheckLines, type CheckResult } from './check-report.js';
import { LIST_THEM } from './schema-changes.js';
import { plural } from './shorten.js';
import { formatDuration, renderTable } from './table.js';

export interface SyncSummaryOptions {
  /** The pass's failures as problems: scopes refused alike for one credential are one. */
  readonly problems: readonly CheckResult[];
  /** The terminal's columns, when the output is one: each problem wraps under itself within them. */
  readonly width?: number | undefined;
}

export function renderSyncSummary(results: readonly ScopeRunResult[], now: Date, options: SyncSummaryOptions): string {
  const rows = results.map((r) => [
    r.scope,
    r.totals.pages,
    r.totals.inserted,
    r.totals.changed,
    r.totals.rejected,
    r.watermark ? formatDuration(now.getTime() - r.watermark.getTime()) : '-',
    r.status,
  ]);
  const failed = results.filter((r) => r.status === 'failed').length;
  const problems = options.problems.length > 0 ? `${renderCheckLines(options.problems, options.width)}\n` : '';
  const footer =
    failed === 0
      ? `${plural(results.length, 'scope')} synced\n`
      : `${failed} of ${plural(results.length, 'scope')} failed (${plural(options.problems.length, 'problem')}, above)\n`;
  return problems + renderTable(['scope', 'pages', 'new', 'changed', 'rejected', 'lag', 'status'], rows) + footer + schemaLine(results);
}

/** `schema: 3 new event types, 12 new fields (kept as received)`, then the command that lists them; or nothing. */
function schemaLine(results: readonly ScopeRunResult[]): string {
  const types = results.reduce((sum, r) => sum + r.totals.newEventTypes, 0);
  const fields = results.reduce((sum, r) => sum + r.totals.newFields, 0);
  if (types + fields === 0) return '';
  const parts = [...(types > 0 ? [plural(types, 'new event type')] : []), ...(fields > 0 ? [plural(fields, 'new field')] : [])];
  return `schema: ${parts.join(', ')} (kept as received)\n${LIST_THEM}\n`;
}
