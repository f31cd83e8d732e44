/**
 * Every number the service sends that the client acts on, with the range it is clamped to before
 * it is used or stored, and why. A number past its range is read as the nearest end of it: a
 * service (or a proxy in front of it) that says `RateLimit-Limit: 100000000000` or
 * `Retry-After: 100000000` then costs the scope a bounded wait, never hours, years or a timer that
 * overflows into a spin. docs/configuration.md ("Numbers the service sends") is this table's twin,
 * checked by test/unit/docs-network-ranges.test.ts. Pure.
 */

export interface NetworkRange {
  /** Where the number comes from. */
  readonly source: string;
  readonly min: number;
  readonly max: number;
  readonly unit: string;
  /** Why these ends. */
  readonly why: string;
}

/** Capacities larger than this are no bucket the service documents (300 and 500) nor one of its kind. */
const MAX_CAPACITY = 10_000;

export const NETWORK_RANGES = {
  bucketCapacity: {
    source: "`RateLimit-Limit`; a 429 body's `parameters[2]` (capacity)",
    min: 1,
    max: MAX_CAPACITY,
    unit: 'tokens',
    why: 'the documented buckets hold 300 and 500 tokens; the ceiling keeps the reserve held back (5 %, at most 25 tokens) a matter of seconds',
  },
  bucketRemaining: {
    source: '`RateLimit-Remaining`',
    min: 0,
    max: MAX_CAPACITY,
    unit: 'tokens',
    why: 'never below empty, never above the capacity heard with it',
  },
  bucketRefill: {
    source: "a 429 body's `parameters[3] / parameters[4]` (refill / periodSec)",
    min: 1 / 60,
    max: MAX_CAPACITY,
    unit: 'tokens a second',
    why: 'the documented buckets refill 100 and 250 a minute; slower than one a minute would hold a scope for hours, faster than a full bucket a second is no limit',
  },
  retryAfter: {
    source: '`Retry-After` (seconds or an HTTP date), on the feeds and the OAuth token endpoint',
    min: 0,
    max: 3_600,
    unit: 'seconds',
    why: "an hourly quota is the longest a rate limiter plausibly asks to wait; a request waits no longer than the retry deadline (`api.retryDeadlineMs`, 10 minutes), the scope's shared budget is paused at most this long",
  },
  tokenLifetime: {
    source: "the OAuth token endpoint's `expires_in`",
    min: 10,
    max: 86_400,
    unit: 'seconds',
    why: 'tokens live an hour; a shorter lifetime would mint a token per request, a longer one is never renewed before the service refuses it',
  },
} as const satisfies Record<string, NetworkRange>;

export type NetworkNumber = keyof typeof NETWORK_RANGES;

/** `value` within its range; NaN reads as the range's low end. */
export function clampNetworkNumber(name: NetworkNumber, value: number): number {
  const { min, max } = NETWORK_RANGES[name];
  if (Number.isNaN(value)) return min;
  return Math.min(max, Math.max(min, value));
}
