/** The table `sync --once` prints at the end: one row per scope. */
import { errorMessage } from '../errors.js';
import type { ScopeRunResult } from '../sync/sync-scope.js';
import { formatDuration, renderTable } from './table.js';

export function renderSyncSummary(results: readonly ScopeRunResult[], now: Date): string {
  const rows = results.map((r) => [
    r.scope,
    r.totals.windows,
    r.totals.pages,
    r.totals.inserted,
    r.totals.changed,
    r.totals.rejected,
    r.watermark ? formatDuration(now.getTime() - r.watermark.getTime()) : '-',
    r.status === 'failed' ? `failed: ${errorMessage(r.error)}` : r.status,
  ]);
  const failed = results.filter((r) => r.status === 'failed').length;
  const footer = failed === 0 ? `${results.length} scopes synced\n` : `${failed} of ${results.length} scopes failed\n`;
  return renderTable(['scope', 'windows', 'pages', 'new', 'changed', 'rejected', 'lag', 'status'], rows) + footer;
}
