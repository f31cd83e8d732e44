/** The table `status` prints: every configured scope, and any scope the warehouse holds. */
import type { SyncState } from '../warehouse/state.repository.js';
import { formatTimestamp } from '../time.js';
import { formatDuration, renderTable } from './table.js';

export interface StatusInput {
  readonly states: readonly SyncState[];
  readonly counts: ReadonlyMap<string, number>;
  readonly configured: readonly string[];
  readonly now: Date;
}

export function renderStatus(input: StatusInput): string {
  const byScope = new Map(input.states.map((s) => [s.scope, s]));
  const scopes = [...new Set([...input.configured, ...byScope.keys(), ...input.counts.keys()])].sort();
  if (scopes.length === 0) return 'no scopes configured and nothing synced yet: set EVENTS_SCOPES and run `events-mirror sync --once`\n';
  const rows = scopes.map((scope) => {
    const state = byScope.get(scope);
    return [
      scope,
      formatTimestamp(state?.watermark),
      state?.watermark ? formatDuration(input.now.getTime() - state.watermark.getTime()) : '-',
      formatTimestamp(state?.lastSuccessAt),
      state?.consecutiveFailures ?? 0,
      state?.lastError ?? '-',
      input.counts.get(scope) ?? 0,
    ];
  });
  return renderTable(['scope', 'watermark', 'lag', 'last success', 'failures', 'last error', 'events'], rows);
}
