/** The table `status` prints: every configured scope, and any scope the warehouse holds. */
import type { LastReconcile } from '../warehouse/reconcile.repository.js';
import type { KnownScope } from '../warehouse/scopes.repository.js';
import type { SyncState } from '../warehouse/state.repository.js';
import { formatTimestamp } from '../time.js';
import { ERROR_CELL_WIDTH, errorCell } from './shorten.js';
import { formatDuration, renderTable, terminalSafe } from './table.js';

export interface StatusInput {
  readonly states: readonly SyncState[];
  readonly counts: ReadonlyMap<string, number>;
  readonly reconciles?: ReadonlyMap<string, LastReconcile>;
  readonly configured: readonly string[];
  /** The `scopes` table: names, and where each scope came from. */
  readonly known?: readonly KnownScope[];
  readonly now: Date;
}

export function renderStatus(input: StatusInput): string {
  const byScope = new Map(input.states.map((s) => [s.scope, s]));
  const known = new Map((input.known ?? []).map((k) => [k.scope, k]));
  const scopes = [...new Set([...input.configured, ...known.keys(), ...byScope.keys(), ...input.counts.keys()])].sort();
  if (scopes.length === 0) return 'no scopes configured and nothing synced yet: set EVENTS_SCOPES and run npx events-mirror sync --once\n';
  const rows = scopes.map((scope) => {
    const state = byScope.get(scope);
    return [
      scope,
      known.get(scope)?.name ?? '-',
      describeOrigin(known.get(scope), input.configured.includes(scope)),
      formatTimestamp(state?.watermark),
      state?.watermark ? formatDuration(input.now.getTime() - state.watermark.getTime()) : '-',
      formatTimestamp(state?.lastSuccessAt),
      state?.consecutiveFailures ?? 0,
      state?.lastError ? errorCell(state.lastError) : '-',
      input.counts.get(scope) ?? 0,
      describeReconcile(input.reconciles?.get(scope)),
    ];
  });
  const cut = scopes.find((scope) => {
    const error = byScope.get(scope)?.lastError;
    return error !== undefined && error !== null && errorCell(error) !== error;
  });
  return (
    renderTable(
      ['scope', 'name', 'origin', 'watermark', 'lag', 'last success', 'failures', 'last error', 'events', 'last reconcile'],
      rows,
    ) + (cut ? `errors are cut to ${ERROR_CELL_WIDTH} characters: the whole one with npx events-mirror status --scope ${cut}\n` : '')
  );
}

/** `status --scope S`: one scope, one line per field, its last error whole. */
export function renderScopeStatus(scope: string, input: StatusInput): string {
  const state = input.states.find((s) => s.scope === scope);
  const known = input.known?.find((k) => k.scope === scope);
  const last = input.reconciles?.get(scope);
  const fields: Array<[string, string]> = [
    ['scope', scope],
    ['name', known?.name ?? '-'],
    ['origin', describeOrigin(known, input.configured.includes(scope))],
    ['watermark', formatTimestamp(state?.watermark)],
    ['lag', state?.watermark ? formatDuration(input.now.getTime() - state.watermark.getTime()) : '-'],
    ['last attempt', formatTimestamp(state?.lastAttemptAt)],
    ['last success', formatTimestamp(state?.lastSuccessAt)],
    ['failures in a row', String(state?.consecutiveFailures ?? 0)],
    ['events held', (input.counts.get(scope) ?? 0).toLocaleString('en-US')],
    ['last reconcile', describeReconcile(last)],
    ['last error', state?.lastError ?? '-'],
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
