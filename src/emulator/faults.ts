/**
 * Faults the emulator can inject, each off by default, and the per-scope request budget (a token
 * bucket of `rateLimitPerMinute` that refills at that rate, like the real service's meter).
 * Decisions only; the server acts on them. The random source and the clock are injected.
 */
import type { ScopeKind } from '../scope.js';
import { TokenBuckets, checkTokenBucketSettings, type BucketAnswer, type TokenBucketSettings } from './token-buckets.js';
export interface FaultOptions {
  /** 0..1 probability a request gets 429 RATE_LIMITED. */
  rate429: number;
  /** When set, 429s carry Retry-After: N; when undefined, no header. */
  retryAfterSeconds?: number;
  /** 0..1, answered 500 UNEXPECTED_ERROR or 503 at random. */
  rate5xx: number;
  /** 0..1, socket destroyed before any response. */
  dropRate: number;
  /** 0..1, a 200 with the full Content-Length but the body cut short, then the socket destroyed. */
  cutBodyRate: number;
  /** Added before answering. */
  latencyMs: number;
  /** Live events get created = now - random(0..N) seconds (visible immediately). */
  lateEventsMaxSeconds: number;
  /** 0 = off; per-scope token bucket, 429 when empty. */
  rateLimitPerMinute: number;
  /** 0..1 of generated and live events that are malformed (no id, or an unparseable created). */
  malformedRate: number;
  /**
   * 0..1 of events whose text fields (`username`, `hostname`, `clusterName`, …) carry a NUL
   * character, as a user can type into the service; chosen by id, so a re-read returns the same.
   */
  poisonTextRate: number;
  /** 0..1 of list pages served with `links: []`, as if the service cut them. */
  dropLinksRate: number;
  /**
   * The share of the true count that list pages report as `totalCount` (1 = the truth); `links`
   * follow the reported count, as the service's do when its count is an estimate.
   */
  totalCountShare: number;
  /**
   * Atlas v2: a list page past this page number answers 500 TIMEOUT_WHILE_PAGING when the count
   * is asked for (includeCount true, the default); 0 = off.
   */
  timeoutPagingDepth: number;
  /**
   * Atlas v2: projects whose events answer 410 GROUP_DELETED, as the service answers for a project
   * deleted while a client still reads it (a 410 that is no version refusal).
   */
  deletedGroups: readonly string[];
  /** Atlas v2: token buckets per endpoint set and scope (undefined = off; ATLAS_TOKEN_BUCKETS are the service's). */
  tokenBuckets?: TokenBucketSettings;
}

export const NO_FAULTS: Readonly<FaultOptions> = Object.freeze({
  rate429: 0,
  rate5xx: 0,
  dropRate: 0,
  cutBodyRate: 0,
  latencyMs: 0,
  lateEventsMaxSeconds: 0,
  rateLimitPerMinute: 0,
  malformedRate: 0,
  poisonTextRate: 0,
  dropLinksRate: 0,
  totalCountShare: 1,
  timeoutPagingDepth: 0,
  deletedGroups: [],
});

const PROBABILITIES = [
  'rate429',
  'rate5xx',
  'dropRate',
  'cutBodyRate',
  'malformedRate',
  'poisonTextRate',
  'dropLinksRate',
  'totalCountShare',
] as const;
const NON_NEGATIVE = ['latencyMs', 'lateEventsMaxSeconds', 'rateLimitPerMinute', 'timeoutPagingDepth'] as const;

/** Merges `changes` over `current`, refusing values out of range with a RangeError naming the key. */
export function mergeFaults(current: Readonly<FaultOptions>, changes: Partial<FaultOptions>): FaultOptions {
  const merged: FaultOptions = { ...current, ...changes };
  if ('retryAfterSeconds' in changes && changes.retryAfterSeconds === undefined) delete merged.retryAfterSeconds;
  if ('tokenBuckets' in changes && changes.tokenBuckets === undefined) delete merged.tokenBuckets;
  if (merged.tokenBuckets) checkTokenBucketSettings(merged.tokenBuckets);
  for (const key of PROBABILITIES) {
    const value = merged[key];
    if (!(value >= 0 && value <= 1)) throw new RangeError(`fault ${key} must be a number from 0 to 1, got ${value}`);
  }
  for (const key of NON_NEGATIVE) {
    const value = merged[key];
    if (!(value >= 0 && Number.isFinite(value))) throw new RangeError(`fault ${key} must be a number >= 0, got ${value}`);
  }
  const retry = merged.retryAfterSeconds;
  if (retry !== undefined && !(Number.isInteger(retry) && retry >= 0)) {
    throw new RangeError(`fault retryAfterSeconds must be a whole number >= 0, got ${retry}`);
  }
  return merged;
}

export type FaultDecision = 'none' | 'rateLimited' | 'random429' | 'error500' | 'error503' | 'drop';

export class FaultInjector {
  private current: FaultOptions;
  private readonly buckets = new Map<string, { tokens: number; updatedMs: number }>();
  #tokenBuckets: TokenBuckets | undefined;

  constructor(
    faults: Partial<FaultOptions>,
    private readonly now: () => number,
    private readonly random: () => number,
  ) {
    this.current = mergeFaults(NO_FAULTS, faults);
  }

  get options(): Readonly<FaultOptions> {
    return this.current;
  }

  set(changes: Partial<FaultOptions>): void {
    const next = mergeFaults(this.current, changes);
    if (next.rateLimitPerMinute !== this.current.rateLimitPerMinute) this.buckets.clear();
    if (next.tokenBuckets !== this.current.tokenBuckets) this.#tokenBuckets = undefined;
    this.current = next;
  }

  /** What happens to one request to `scopeKey`, after authentication. */
  decide(scopeKey: string): FaultDecision {
    if (this.current.rateLimitPerMinute > 0 && !this.take(scopeKey)) return 'rateLimited';
    if (this.hit(this.current.dropRate)) return 'drop';
    if (this.hit(this.current.rate429)) return 'random429';
    if (this.hit(this.current.rate5xx)) return this.random() < 0.5 ? 'error500' : 'error503';
    return 'none';
  }

  /** Atlas v2: one token of the scope's bucket, or undefined when token buckets are off. */
  takeToken(kind: ScopeKind, scopeKey: string): BucketAnswer | undefined {
    const settings = this.current.tokenBuckets;
    if (!settings) return undefined;
    this.#tokenBuckets ??= new TokenBuckets(settings, this.now);
    return this.#tokenBuckets.take(kind, scopeKey);
  }

  /** Whether one 200 answer is cut short. */
  cutBody(): boolean {
    return this.hit(this.current.cutBodyRate);
  }

  dropLinks(): boolean {
    return this.hit(this.current.dropLinksRate);
  }

  /** The `totalCount` a list page reports for a true count. */
  reportedTotal(trueCount: number): number {
    return Math.floor(trueCount * this.current.totalCountShare);
  }

  /** The event with a NUL in each of its text fields when its id falls in `poisonTextRate`. */
  poisonText<T extends Record<string, unknown>>(event: T): T {
    const rate = this.current.poisonTextRate;
    if (rate <= 0 || typeof event.id !== 'string' || idShare(event.id) >= rate) return event;
    const poisoned: Record<string, unknown> = { ...event };
    for (const field of POISONED_FIELDS) {
      const value = poisoned[field];
      if (typeof value === 'string') poisoned[field] = `${value.slice(0, 1)}\u0000${value.slice(1)}`;
    }
    return poisoned as T;
  }

  private hit(rate: number): boolean {
    return rate > 0 && this.random() < rate;
  }

  private take(scopeKey: string): boolean {
    const capacity = this.current.rateLimitPerMinute;
    const now = this.now();
    const bucket = this.buckets.get(scopeKey) ?? { tokens: capacity, updatedMs: now };
    bucket.tokens = Math.min(capacity, bucket.tokens + ((now - bucket.updatedMs) * capacity) / 60_000);
    bucket.updatedMs = now;
    this.buckets.set(scopeKey, bucket);
    if (bucket.tokens < 1) return false;
    bucket.tokens -= 1;
    return true;
  }
}

const POISONED_FIELDS = ['username', 'targetUsername', 'hostname', 'clusterName', 'replicaSetName', 'database', 'collection'];

/** A stable 0..1 share for an id (FNV-1a). */
function idShare(id: string): number {
  let hash = 2166136261;
  for (let i = 0; i < id.length; i++) {
    hash ^= id.charCodeAt(i);
    hash = Math.imul(hash, 16777619) >>> 0;
  }
  return hash / 0x1_0000_0000;
}
