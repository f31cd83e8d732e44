/**
 * The Atlas Administration API v2's token buckets: one per endpoint set and scope (project feed;
 * organization feed and its project list), each holding `capacity` tokens and refilling `refill`
 * every `periodSeconds` (continuously here). A request takes one token; an empty bucket is a 429
 * RATE_LIMITED_TOKEN_BUCKET. Off unless configured, like the other faults. Pure; the clock is injected.
 */
import type { ScopeKind } from '../scope.js';

export interface BucketSize {
  readonly capacity: number;
  readonly refill: number;
}

export interface TokenBucketSettings {
  readonly group: BucketSize;
  readonly org: BucketSize;
  /** The refill period; the service's is 60 s (tests scale it down). */
  readonly periodSeconds: number;
  /** Send RateLimit-Limit / RateLimit-Remaining and the 429 body's parameters (the service "might not always"). */
  readonly hints: boolean;
}

/** The service's documented defaults ("not part of the API contract"). */
export const ATLAS_TOKEN_BUCKETS: Readonly<TokenBucketSettings> = Object.freeze({
  group: { capacity: 300, refill: 100 },
  org: { capacity: 500, refill: 250 },
  periodSeconds: 60,
  hints: true,
});

export type BucketAnswer =
  | { readonly ok: true; readonly limit: number; readonly remaining: number }
  | {
      readonly ok: false;
      readonly limit: number;
      readonly retryAfterSec: number;
      readonly size: BucketSize;
      readonly periodSeconds: number;
    };

export function checkTokenBucketSettings(settings: TokenBucketSettings): void {
  for (const kind of ['group', 'org'] as const) {
    const { capacity, refill } = settings[kind];
    if (!(Number.isInteger(capacity) && capacity >= 1)) throw new RangeError(`tokenBuckets.${kind}.capacity must be a whole number >= 1`);
    if (!(refill > 0 && Number.isFinite(refill))) throw new RangeError(`tokenBuckets.${kind}.refill must be a number > 0`);
  }
  if (!(settings.periodSeconds > 0 && Number.isFinite(settings.periodSeconds))) {
    throw new RangeError('tokenBuckets.periodSeconds must be a number > 0');
  }
}

export class TokenBuckets {
  readonly #buckets = new Map<string, { tokens: number; updatedMs: number }>();

  constructor(
    readonly settings: Readonly<TokenBucketSettings>,
    private readonly now: () => number,
  ) {
    checkTokenBucketSettings(settings);
  }

  /** Takes one token of the bucket of `kind` for `scopeKey`. */
  take(kind: ScopeKind, scopeKey: string): BucketAnswer {
    const size = this.settings[kind];
    const periodMs = this.settings.periodSeconds * 1000;
    const now = this.now();
    const bucket = this.#buckets.get(scopeKey) ?? { tokens: size.capacity, updatedMs: now };
    bucket.tokens = Math.min(size.capacity, bucket.tokens + ((now - bucket.updatedMs) * size.refill) / periodMs);
    bucket.updatedMs = now;
    this.#buckets.set(scopeKey, bucket);
    if (bucket.tokens < 1) {
      const retryAfterSec = Math.max(1, Math.ceil(((1 - bucket.tokens) * periodMs) / size.refill / 1000));
      return { ok: false, limit: size.capacity, retryAfterSec, size, periodSeconds: this.settings.periodSeconds };
    }
    bucket.tokens -= 1;
    return { ok: true, limit: size.capacity, remaining: Math.floor(bucket.tokens) };
  }
}
