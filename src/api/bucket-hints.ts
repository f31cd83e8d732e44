/**
 * What an answer says of its scope's token bucket (Atlas v2): `RateLimit-Limit` (the capacity) and
 * `RateLimit-Remaining` on any answer, and a 429 `RATE_LIMITED_TOKEN_BUCKET` body whose parameters
 * are `[path, retryAfterSec, capacity, refill, periodSec]`. The service "might not always" send
 * them: an answer without them says nothing (the budget keeps its configured guess). Each number is
 * clamped to its range in network-ranges.ts.
 */
import { clampNetworkNumber } from './network-ranges.js';

/** The parts of an answer that speak of the rate limit (send-with-digest hands them over). */
export interface RateLimitHeaders {
  readonly status: number;
  readonly limit: string | undefined;
  readonly remaining: string | undefined;
  /** The body of a 429, else undefined. */
  readonly bodyText: string | undefined;
}

export interface BucketHint {
  /** Tokens left after this request. */
  readonly remaining: number;
  /** The bucket's size. */
  readonly capacity: number;
  /** Tokens refilled a second, when the answer says (only a 429 body does). */
  readonly refillPerSecond: number | undefined;
}

export function readBucketHint(answer: RateLimitHeaders): BucketHint | undefined {
  const hint = unboundedHint(answer);
  return hint === undefined ? undefined : boundedHint(hint);
}

/** The hint with each number within its range (network-ranges.ts). */
export function boundedHint(hint: BucketHint): BucketHint {
  const capacity = clampNetworkNumber('bucketCapacity', hint.capacity);
  return {
    capacity,
    remaining: Math.min(capacity, clampNetworkNumber('bucketRemaining', hint.remaining)),
    refillPerSecond: hint.refillPerSecond === undefined ? undefined : clampNetworkNumber('bucketRefill', hint.refillPerSecond),
  };
}

function unboundedHint(answer: RateLimitHeaders): BucketHint | undefined {
  if (answer.status === 429 && answer.bodyText !== undefined) {
    const fromBody = bodyHint(answer.bodyText);
    if (fromBody) return fromBody;
  }
  const remaining = leadingNumber(answer.remaining);
  const capacity = leadingNumber(answer.limit);
  if (remaining === undefined || capacity === undefined || capacity < 1) return undefined;
  return { remaining: Math.min(remaining, capacity), capacity, refillPerSecond: undefined };
}

function bodyHint(text: string): BucketHint | undefined {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof body !== 'object' || body === null) return undefined;
  const { errorCode, parameters } = body as { errorCode?: unknown; parameters?: unknown };
  if (errorCode !== 'RATE_LIMITED_TOKEN_BUCKET' || !Array.isArray(parameters)) return undefined;
  const [, , capacity, refill, periodSec] = parameters.map((p) => (typeof p === 'number' ? p : Number(p)));
  if (!positive(capacity) || !positive(refill) || !positive(periodSec)) return undefined;
  return { remaining: 0, capacity, refillPerSecond: refill / periodSec };
}

/** `42`, or the first figure of a structured value such as `300, 300;w=60`. */
function leadingNumber(value: string | undefined): number | undefined {
  const match = value === undefined ? null : /^\s*(\d+(?:\.\d+)?)/.exec(value);
  return match ? Number(match[1]) : undefined;
}

function positive(n: number | undefined): n is number {
  return n !== undefined && Number.isFinite(n) && n > 0;
}
