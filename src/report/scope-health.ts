/**
 * The health of every scope the mirror knows, and of the fleet: what `status` prints first and
 * what its `--json` holds. Pure: the warehouse rows and a clock in, states and counts out.
 *
 * A scope is, in this order: `failing` (its last run failed), `removed` (a discovered project its
 * organization no longer lists, not configured), `never-synced` (no checkpoint yet), `lagging`
 * (its checkpoint more than the threshold behind now), else `ok`.
 */
import type { LastReconcile } from '../warehouse/reconcile.repository.js';
import type { KnownScope } from '../warehouse/scopes.repository.js';
import type { SyncState } from '../warehouse/state.repository.js';

export const SCOPE_STATES = ['failing', 'lagging', 'never-synced', 'ok', 'removed'] as const;
export type ScopeState = (typeof SCOPE_STATES)[number];

/** The code counted for a failing scope whose error was recorded before codes were. */
export const UNKNOWN_ERROR_CODE = 'UNKNOWN';

export interface StatusInput {
  readonly states: readonly SyncState[];
  /** Events held per scope; absent when the command does not count them. */
  readonly counts?: ReadonlyMap<string, number>;
  readonly reconciles?: ReadonlyMap<string, LastReconcile>;
  readonly configured: readonly string[];
  /** The `scopes` table: names, and where each scope came from. */
  readonly known?: readonly KnownScope[];
  readonly now: Date;
}

export interface ScopeHealth {
  readonly scope: string;
  readonly name: string | null;
  readonly known: KnownScope | undefined;
  readonly configured: boolean;
  readonly state: ScopeState;
  readonly sync: SyncState | undefined;
  /** now − watermark; null without a checkpoint. */
  readonly lagMs: number | null;
  readonly lastError: { readonly code: string; readonly message: string } | null;
  readonly events: number | null;
  readonly lastReconcile: LastReconcile | undefined;
}

export interface FleetSummary {
  readonly scopes: number;
  readonly byState: Readonly<Record<ScopeState, number>>;
  readonly lagThresholdMs: number;
  /** Failing scopes by their last error's code, most first. */
  readonly failingByCode: ReadonlyArray<{ readonly code: string; readonly scopes: number }>;
  /** The five scopes furthest behind (removed ones left out), furthest first. */
  readonly worstLags: readonly ScopeHealth[];
}

const RANK: Readonly<Record<ScopeState, number>> = { failing: 0, lagging: 1, 'never-synced': 2, ok: 3, removed: 4 };
export const WORST_LAGS = 5;

/**
 * Every configured scope and every scope the warehouse knows (a `scopes` row or a checkpoint), worst
 * first. Events alone do not make a scope listed: `forget` without `--delete-events` keeps a
 * scope's events and lists it no more.
 */
export function scopeHealth(input: StatusInput, lagThresholdMs: number): ScopeHealth[] {
  const byScope = new Map(input.states.map((s) => [s.scope, s]));
  const known = new Map((input.known ?? []).map((k) => [k.scope, k]));
  const configured = new Set(input.configured);
  const scopes = new Set([...input.configured, ...known.keys(), ...byScope.keys()]);
  const health = [...scopes].map((scope): ScopeHealth => {
    const sync = byScope.get(scope);
    const k = known.get(scope);
    const lagMs = sync?.watermark ? Math.max(0, input.now.getTime() - sync.watermark.getTime()) : null;
    const failing = (sync?.consecutiveFailures ?? 0) > 0;
    const state: ScopeState = failing
      ? 'failing'
      : k?.removedAt && !configured.has(scope)
        ? 'removed'
        : lagMs === null
          ? 'never-synced'
          : lagMs > lagThresholdMs
            ? 'lagging'
            : 'ok';
    return {
      scope,
      name: k?.name ?? null,
      known: k,
      configured: configured.has(scope),
      state,
      sync,
      lagMs,
      lastError: sync?.lastError ? { code: sync.lastErrorCode ?? UNKNOWN_ERROR_CODE, message: sync.lastError } : null,
      events: input.counts ? (input.counts.get(scope) ?? 0) : null,
      lastReconcile: input.reconciles?.get(scope),
    };
  });
  return health.sort(worstFirst);
}

/** Failing first (most failures in a row first), then lagging, never synced, ok, removed; the longer lag first. */
export function worstFirst(a: ScopeHealth, b: ScopeHealth): number {
  return (
    RANK[a.state] - RANK[b.state] ||
    (b.sync?.consecutiveFailures ?? 0) - (a.sync?.consecutiveFailures ?? 0) ||
    (b.lagMs ?? -1) - (a.lagMs ?? -1) ||
    (a.scope < b.scope ? -1 : a.scope > b.scope ? 1 : 0)
  );
}

export function summarize(health: readonly ScopeHealth[], lagThresholdMs: number): FleetSummary {
  const byState = Object.fromEntries(SCOPE_STATES.map((s) => [s, 0])) as Record<ScopeState, number>;
  const codes = new Map<string, number>();
  for (const h of health) {
    byState[h.state] += 1;
    if (h.state === 'failing') {
      const code = h.lastError?.code ?? UNKNOWN_ERROR_CODE;
      codes.set(code, (codes.get(code) ?? 0) + 1);
    }
  }
  const failingByCode = [...codes]
    .map(([code, scopes]) => ({ code, scopes }))
    .sort((a, b) => b.scopes - a.scopes || (a.code < b.code ? -1 : 1));
  const worstLags = health
    .filter((h) => h.lagMs !== null && h.state !== 'removed')
    .sort((a, b) => b.lagMs! - a.lagMs! || (a.scope < b.scope ? -1 : 1))
    .slice(0, WORST_LAGS);
  return { scopes: health.length, byState, lagThresholdMs, failingByCode, worstLags };
}

/** The states `status` exits 1 for: a script or cron job learns from the exit code alone that the mirror needs someone. */
export const NEEDS_ATTENTION: ReadonlySet<ScopeState> = new Set(['failing', 'lagging']);

/** True when a scope of these is failing, or lagging past the threshold they were judged by. */
export function needsAttention(health: readonly ScopeHealth[]): boolean {
  return health.some((h) => NEEDS_ATTENTION.has(h.state));
}
