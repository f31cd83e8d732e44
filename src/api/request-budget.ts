/**
 * A per-scope request budget so a large fleet of scopes does not live in 429s: at most N requests
 * a minute per project (`group:`) and M per organization (`org:`), counted in fixed one-minute
 * windows by rate-limiter-flexible (in memory for one process, in Redis when workers share it).
 * A 429 pauses the scope for everyone who shares the budget.
 */
import { sleep } from '../abort.js';
import type { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { Scope, ScopeKind } from '../scope.js';

export interface RequestBudget {
  /** Waits until the scope may send one more request (abortable), then counts it. */
  take(scope: Scope, signal?: AbortSignal): Promise<void>;
  /** Holds every request of the scope back for `ms` (after a 429). Never shortens a longer pause. */
  pause(scope: Scope, ms: number): Promise<void>;
}

export interface RequestsPerMinute {
  readonly group: number;
  readonly org: number;
}

export const DEFAULT_REQUESTS_PER_MINUTE: RequestsPerMinute = { group: 100, org: 250 };

type Limiters = Record<ScopeKind, RateLimiterAbstract>;

export function memoryRequestBudget(perMinute: RequestsPerMinute = DEFAULT_REQUESTS_PER_MINUTE): RequestBudget {
  return limiterBudget(
    {
      group: new RateLimiterMemory({ points: perMinute.group, duration: 60, keyPrefix: 'group' }),
      org: new RateLimiterMemory({ points: perMinute.org, duration: 60, keyPrefix: 'org' }),
    },
    (ms) => ms / 1000,
  );
}

/** Shared by every worker using the same Redis and keyPrefix. */
export function redisRequestBudget(redis: Redis, perMinute: RequestsPerMinute, keyPrefix: string): RequestBudget {
  const make = (points: number, kind: ScopeKind): RateLimiterRedis =>
    new RateLimiterRedis({ storeClient: redis, points, duration: 60, keyPrefix: `${keyPrefix}:budget:${kind}` });
  // Redis expiries are whole seconds here, and a zero would mean "never expires": round up.
  return limiterBudget({ group: make(perMinute.group, 'group'), org: make(perMinute.org, 'org') }, (ms) =>
    Math.max(1, Math.ceil(ms / 1000)),
  );
}

/** Drops a scope's shared budget and pause from Redis (`forget`); they would lapse within a minute anyway. */
export async function forgetRequestBudget(redis: Redis, keyPrefix: string, scope: Scope): Promise<void> {
  await new RateLimiterRedis({ storeClient: redis, points: 1, duration: 60, keyPrefix: `${keyPrefix}:budget:${scope.kind}` }).delete(
    scope.key,
  );
}

/** A budget that never waits, for tests and callers that meter elsewhere. */
export function unlimitedRequestBudget(): RequestBudget {
  return { take: async () => {}, pause: async () => {} };
}

function limiterBudget(limiters: Limiters, toBlockSeconds: (ms: number) => number): RequestBudget {
  return {
    async take(scope, signal) {
      const limiter = limiters[scope.kind];
      for (;;) {
        signal?.throwIfAborted();
        try {
          await limiter.consume(scope.key, 1);
          return;
        } catch (rejection) {
          if (!(rejection instanceof RateLimiterRes)) throw rejection;
          await sleep(rejection.msBeforeNext > 0 ? rejection.msBeforeNext : 1000, signal);
        }
      }
    },
    async pause(scope, ms) {
      if (ms <= 0) return;
      const limiter = limiters[scope.kind];
      const current = await limiter.get(scope.key);
      if (current && current.consumedPoints > limiter.points && current.msBeforeNext >= ms) return;
      await limiter.block(scope.key, toBlockSeconds(ms));
    },
  };
}
