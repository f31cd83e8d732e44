/**
 * The table `sync --once` prints at the end: one row per scope, then what changed in one or two
 * lines. Within 80 columns for a project's scope and six-digit counts: the windows a pass walked are
 * in `sync_runs` and `--json`, not here.
 */
import { errorMessage } from '../errors.js';
import type { ScopeRunResult } from '../sync/sync-scope.js';
import { LIST_THEM } from './schema-changes.js';
import { errorCell, plural } from './shorten.js';
import { formatDuration, renderTable } from './table.js';

export function renderSyncSummary(results: readonly ScopeRunResult[], now: Date): string {
  const rows = results.map((r) => [
    r.scope,
    r.totals.pages,
    r.totals.inserted,
    r.totals.changed,
    r.totals.rejected,
    r.watermark ? formatDuration(now.getTime() - r.watermark.getTime()) : '-',
    r.status === 'failed' ? `failed: ${errorCell(errorMessage(r.error))}` : r.status,
  ]);
  const failed = results.filter((r) => r.status === 'failed');
  const footer =
    failed.length === 0
      ? `${plural(results.length, 'scope')} synced\n`
      : `${failed.length} of ${plural(results.length, 'scope')} failed: the whole error with npx events-mirror status --scope ${failed[0]!.scope}\n`;
  return renderTable(['scope', 'pages', 'new', 'changed', 'rejected', 'lag', 'status'], rows) + footer + schemaLine(results);
}

/** `schema: 3 new event types, 12 new fields (kept as received)`, then the command that lists them; or nothing. */
function schemaLine(results: readonly ScopeRunResult[]): string {
  const types = results.reduce((sum, r) => sum + r.totals.newEventTypes, 0);
  const fields = results.reduce((sum, r) => sum + r.totals.newFields, 0);
  if (types + fields === 0) return '';
  const parts = [...(types > 0 ? [plural(types, 'new event type')] : []), ...(fields > 0 ? [plural(fields, 'new field')] : [])];
  return `schema: ${parts.join(', ')} (kept as received)\n${LIST_THEM}\n`;
}
