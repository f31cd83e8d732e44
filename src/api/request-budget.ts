/**
 * A per-scope request budget so a large fleet of scopes does not live in 429s: at most N requests
 * a minute per project (`group:`) and M per organization (`org:`), counted in fixed one-minute
 * windows by rate-limiter-flexible (in memory for one process, in Redis when workers share it).
 * A 429 pauses the scope for everyone who shares the budget.
 *
 * The budget listens (Atlas v2's token buckets): once an answer says how many tokens the scope's
 * bucket has left (`RateLimit-Remaining`, `RateLimit-Limit`) or a 429 `RATE_LIMITED_TOKEN_BUCKET`
 * body says how fast it refills, the scope follows that instead of the configured guess: tokens are
 * counted down a request at a time, refilled at the bucket's rate (the configured rate until a 429
 * body tells the real one), and a request waits while the count is at a small reserve
 * (RESERVE_SHARE of the capacity, at least 2, at most MAX_RESERVE_TOKENS, below the capacity), so a
 * fleet slows before it is refused. What was heard is kept for HINT_TTL_MS after the last answer
 * that said it (in Redis for every worker); with no such answer the budget is the configured one,
 * as before. The numbers heard are clamped to their ranges (network-ranges.ts), a wait lasts
 * BUDGET_WAIT_MS.min to .max before the budget is asked again, and a pause at most the longest
 * Retry-After: whatever the service says, no scope waits for hours and no loop spins.
 */
import { randomUUID } from 'node:crypto';
import { sleep } from '../abort.js';
import type { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { Scope, ScopeKind } from '../scope.js';
import { boundedHint, type BucketHint } from './bucket-hints.js';
import { NETWORK_RANGES } from './network-ranges.js';

export interface RequestBudget {
  /**
   * Waits until the scope may send one more request (abortable), then counts it. A budget that
   * follows token buckets returns the request's place among those in flight: hand it to `heard`
   * with the request's answer, and call its `done` once the request is over, answered or not.
   */
  take(scope: Scope, signal?: AbortSignal): Promise<InFlightRequest | void>;
  /** Holds every request of the scope back for `ms` (after a 429). Never shortens a longer pause. */
  pause(scope: Scope, ms: number): Promise<void>;
  /**
   * Follows what the answer to `request` said of the scope's token bucket: the tokens left, less
   * the scope's other requests still in flight (sent, so already spent, but not yet counted in
   * any answer). Budgets that meter elsewhere leave it out.
   */
  heard?(scope: Scope, hint: BucketHint, request?: InFlightRequest | void): Promise<void>;
}

/** One request the budget let go, until its answer is in. */
export interface InFlightRequest {
  readonly id: string;
  /** The request is over (answered, failed or given up): it no longer counts as in flight. */
  done(): Promise<void>;
}

/**
 * How long a request counts as in flight at most (twice the default request timeout): one whose
 * process died never calls `done`, and must not hold the budget back for ever.
 */
export const IN_FLIGHT_TTL_MS = 60_000;

/** How long a scope follows what it heard after the last answer that said it. */
export const HINT_TTL_MS = 120_000;
/** The share of the bucket's capacity kept back for requests already in flight (at least 2 tokens). */
export const RESERVE_SHARE = 0.05;
/** The most tokens kept back (5 % of the documented 500-token bucket): a refill of seconds, never minutes. */
export const MAX_RESERVE_TOKENS = 25;
/**
 * One wait of `take` before it asks the budget again: at least `min` (so a waiting request asks
 * Redis at most 50 times a second, whatever the arithmetic said), at most `max` (so what a later
 * answer or the lapse of a hint changes is noticed within a minute).
 */
export const BUDGET_WAIT_MS = { min: 20, max: 60_000 } as const;
/** The longest pause a 429 may put on a scope: the longest Retry-After honoured. */
export const MAX_PAUSE_MS = NETWORK_RANGES.retryAfter.max * 1000;

/** A wait within BUDGET_WAIT_MS (a NaN, from arithmetic on nonsense, waits the longest). */
function boundedWait(ms: number): number {
  return Number.isNaN(ms) ? BUDGET_WAIT_MS.max : Math.min(BUDGET_WAIT_MS.max, Math.max(BUDGET_WAIT_MS.min, ms));
}

/** Where what was heard is kept: this process's memory, or Redis for every worker. */
interface HeardStore {
  /**
   * undefined: nothing heard (use the configured budget); 0: a token was taken, and request `id`
   * recorded as in flight in the same step; else ms to wait.
   */
  take(scope: Scope, id: string): Promise<number | undefined>;
  /** Records a request the configured budget let go as in flight until `id` is done or heard. */
  sent(scope: Scope, id: string): Promise<void>;
  done(scope: Scope, id: string): Promise<void>;
  /** `id`: the request this answer is to (no longer in flight). */
  heard(scope: Scope, hint: BucketHint, fallbackRefillPerMs: number, id: string | undefined): Promise<void>;
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
    memoryHeardStore(),
    perMinute,
  );
}

/** Shared by every worker using the same Redis and keyPrefix. */
export function redisRequestBudget(redis: Redis, perMinute: RequestsPerMinute, keyPrefix: string): RequestBudget {
  const make = (points: number, kind: ScopeKind): RateLimiterRedis =>
    new RateLimiterRedis({ storeClient: redis, points, duration: 60, keyPrefix: `${keyPrefix}:budget:${kind}` });
  // Redis expiries are whole seconds here, and a zero would mean "never expires": round up.
  return limiterBudget(
    { group: make(perMinute.group, 'group'), org: make(perMinute.org, 'org') },
    (ms) => Math.max(1, Math.ceil(ms / 1000)),
    redisHeardStore(redis, keyPrefix),
    perMinute,
  );
}

/** Drops a scope's shared budget and pause from Redis (`forget`); they would lapse within a minute anyway. */
export async function forgetRequestBudget(redis: Redis, keyPrefix: string, scope: Scope): Promise<void> {
  await new RateLimiterRedis({ storeClient: redis, points: 1, duration: 60, keyPrefix: `${keyPrefix}:budget:${scope.kind}` }).delete(
    scope.key,
  );
  await redis.del(heardKey(keyPrefix, scope), inFlightKey(keyPrefix, scope));
}

/** A budget that never waits, for tests and callers that meter elsewhere. */
export function unlimitedRequestBudget(): RequestBudget {
  return { take: async () => {}, pause: async () => {} };
}

function limiterBudget(
  limiters: Limiters,
  toBlockSeconds: (ms: number) => number,
  store: HeardStore,
  perMinute: RequestsPerMinute,
): RequestBudget {
  const inFlight = (scope: Scope, id: string): InFlightRequest => ({ id, done: () => store.done(scope, id) });
  return {
    async take(scope, signal) {
      const limiter = limiters[scope.kind];
      const id = randomUUID();
      for (;;) {
        signal?.throwIfAborted();
        const wait = await store.take(scope, id);
        if (wait === 0) return inFlight(scope, id);
        if (wait !== undefined) {
          await sleep(boundedWait(wait), signal);
          continue;
        }
        try {
          await limiter.consume(scope.key, 1);
          await store.sent(scope, id);
          return inFlight(scope, id);
        } catch (rejection) {
          if (!(rejection instanceof RateLimiterRes)) throw rejection;
          await sleep(boundedWait(rejection.msBeforeNext > 0 ? rejection.msBeforeNext : 1000), signal);
        }
      }
    },
    async pause(scope, asked) {
      if (!(asked > 0)) return;
      const ms = Math.min(asked, MAX_PAUSE_MS);
      await store.pause(scope, ms);
      const limiter = limiters[scope.kind];
      const current = await limiter.get(scope.key);
      if (current && current.consumedPoints > limiter.points && current.msBeforeNext >= ms) return;
      await limiter.block(scope.key, toBlockSeconds(ms));
    },
    async heard(scope, hint, request) {
      await store.heard(scope, boundedHint(hint), perMinute[scope.kind] / 60_000, request ? request.id : undefined);
    },
  };
}

/** The tokens kept back: RESERVE_SHARE of the capacity, at least 2, at most MAX_RESERVE_TOKENS, and always one less than the capacity. */
function reserveOf(capacity: number): number {
  return Math.min(Math.max(2, Math.ceil(capacity * RESERVE_SHARE)), MAX_RESERVE_TOKENS, capacity - 1);
}

interface Heard {
  tokens: number;
  /** The in-flight lapse of the request whose answer set `tokens`: orders answers by sending. */
  order: number;
  atMs: number;
  refillPerMs: number;
  capacity: number;
  pausedUntilMs: number;
  expiresMs: number;
}

function memoryHeardStore(now: () => number = Date.now): HeardStore {
  const scopes = new Map<string, Heard>();
  /** Per scope: each request in flight and when it stops counting. */
  const flying = new Map<string, Map<string, number>>();
  const flyingOf = (scope: Scope): Map<string, number> => {
    let requests = flying.get(scope.key);
    if (!requests) flying.set(scope.key, (requests = new Map<string, number>()));
    const at = now();
    for (const [id, until] of requests) if (until <= at) requests.delete(id);
    return requests;
  };
  const current = (scope: Scope): Heard | undefined => {
    const heard = scopes.get(scope.key);
    if (heard && heard.expiresMs <= now()) scopes.delete(scope.key);
    return scopes.get(scope.key);
  };
  return {
    async take(scope, id) {
      const heard = current(scope);
      if (!heard) return undefined;
      const at = now();
      if (heard.pausedUntilMs > at) return heard.pausedUntilMs - at;
      heard.tokens = Math.min(heard.capacity, heard.tokens + Math.max(0, at - heard.atMs) * heard.refillPerMs);
      heard.atMs = at;
      const reserve = reserveOf(heard.capacity);
      if (heard.tokens - 1 >= reserve) {
        heard.tokens -= 1;
        flyingOf(scope).set(id, at + IN_FLIGHT_TTL_MS);
        return 0;
      }
      return Math.ceil((reserve + 1 - heard.tokens) / heard.refillPerMs);
    },
    async sent(scope, id) {
      flyingOf(scope).set(id, now() + IN_FLIGHT_TTL_MS);
      // Let go by the configured budget while an answer's count arrived: a token that count does not know of.
      const heard = current(scope);
      if (heard) heard.tokens -= 1;
    },
    async done(scope, id) {
      const requests = flyingOf(scope);
      requests.delete(id);
      if (requests.size === 0) flying.delete(scope.key);
    },
    async heard(scope, hint, fallbackRefillPerMs, id) {
      const before = current(scope);
      const at = now();
      const others = flyingOf(scope);
      // Requests are ordered by when they were sent (their in-flight lapse); an answer to one sent
      // before the one that set the count is stale (answers overtake one another): it may lower
      // the count, never raise it.
      const order = (id === undefined ? undefined : others.get(id)) ?? at + IN_FLIGHT_TTL_MS;
      if (id !== undefined) others.delete(id);
      const tokens = Math.max(0, hint.remaining - others.size);
      if (before && order < before.order && before.tokens <= tokens) return;
      scopes.set(scope.key, {
        tokens,
        order: Math.max(order, before?.order ?? 0),
        atMs: at,
        refillPerMs: hint.refillPerSecond !== undefined ? hint.refillPerSecond / 1000 : (before?.refillPerMs ?? fallbackRefillPerMs),
        capacity: hint.capacity,
        pausedUntilMs: before?.pausedUntilMs ?? 0,
        expiresMs: at + HINT_TTL_MS,
      });
    },
    async pause(scope, ms) {
      const heard = current(scope);
      if (heard) heard.pausedUntilMs = Math.max(heard.pausedUntilMs, now() + ms);
    },
  };
}

function heardKey(keyPrefix: string, scope: Scope): string {
  return `${keyPrefix}:budget:heard:${scope.key}`;
}

function inFlightKey(keyPrefix: string, scope: Scope): string {
  return `${keyPrefix}:budget:in-flight:${scope.key}`;
}

// The same arithmetic as memoryHeardStore's, atomic in Redis, on Redis's clock (workers' clocks differ).
const NOW_MS = "local t = redis.call('TIME') local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)";
const TAKE_SCRIPT = `${NOW_MS}
local s = redis.call('HMGET', KEYS[1], 'tokens', 'at', 'refill', 'capacity', 'paused')
if not s[1] then return -1 end
local paused = tonumber(s[5] or '0')
if paused > now then return paused - now end
local capacity = tonumber(s[4])
local refill = tonumber(s[3])
local tokens = math.min(capacity, tonumber(s[1]) + math.max(0, now - tonumber(s[2])) * refill)
local reserve = math.min(math.max(2, math.ceil(capacity * tonumber(ARGV[1]))), tonumber(ARGV[2]), capacity - 1)
if tokens - 1 >= reserve then
  redis.call('HSET', KEYS[1], 'tokens', tostring(tokens - 1), 'at', tostring(now))
  redis.call('ZADD', KEYS[2], now + tonumber(ARGV[4]), ARGV[3])
  redis.call('PEXPIRE', KEYS[2], ARGV[4])
  return 0
end
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'at', tostring(now))
return math.ceil((reserve + 1 - tokens) / refill)`;
// KEYS[2]: the scope's requests in flight, a sorted set scored by when each stops counting.
// An answer to a request sent before the one whose answer set the count is stale (answers overtake
// one another): it may lower the count, never raise it. In-flight scores order requests by sending.
const HEARD_SCRIPT = `${NOW_MS}
local refill = tonumber(ARGV[3])
if refill == nil then refill = tonumber(redis.call('HGET', KEYS[1], 'refill') or ARGV[4]) end
local order = now + tonumber(ARGV[7])
if ARGV[6] ~= '' then
  order = tonumber(redis.call('ZSCORE', KEYS[2], ARGV[6]) or order)
  redis.call('ZREM', KEYS[2], ARGV[6])
end
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
local tokens = math.max(0, tonumber(ARGV[1]) - redis.call('ZCARD', KEYS[2]))
local last = tonumber(redis.call('HGET', KEYS[1], 'order') or '0')
local held = tonumber(redis.call('HGET', KEYS[1], 'tokens') or '')
if order < last and held ~= nil and held <= tokens then
  redis.call('PEXPIRE', KEYS[1], ARGV[5])
  return 0
end
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'capacity', ARGV[2], 'refill', tostring(refill), 'at', tostring(now), 'order', tostring(math.max(order, last)))
redis.call('PEXPIRE', KEYS[1], ARGV[5])
return 1`;
// A request the configured budget let go while an answer's count arrived spends a token that count
// does not know of: take it from the count (KEYS[2], the scope's heard hash, when there is one).
const SENT_SCRIPT = `${NOW_MS}
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[2]), ARGV[1])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
if redis.call('HEXISTS', KEYS[2], 'tokens') == 1 then redis.call('HINCRBYFLOAT', KEYS[2], 'tokens', -1) end
return 1`;
const PAUSE_SCRIPT = `${NOW_MS}
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
local till = now + tonumber(ARGV[1])
if till > tonumber(redis.call('HGET', KEYS[1], 'paused') or '0') then redis.call('HSET', KEYS[1], 'paused', tostring(till)) end
return 1`;

function redisHeardStore(redis: Redis, keyPrefix: string): HeardStore {
  return {
    async take(scope, id) {
      const keys = [heardKey(keyPrefix, scope), inFlightKey(keyPrefix, scope)];
      const wait = Number(
        await redis.eval(TAKE_SCRIPT, 2, ...keys, String(RESERVE_SHARE), String(MAX_RESERVE_TOKENS), id, String(IN_FLIGHT_TTL_MS)),
      );
      return wait < 0 ? undefined : wait;
    },
    async sent(scope, id) {
      await redis.eval(SENT_SCRIPT, 2, inFlightKey(keyPrefix, scope), heardKey(keyPrefix, scope), id, String(IN_FLIGHT_TTL_MS));
    },
    async done(scope, id) {
      await redis.zrem(inFlightKey(keyPrefix, scope), id);
    },
    async heard(scope, hint, fallbackRefillPerMs, id) {
      await redis.eval(
        HEARD_SCRIPT,
        2,
        heardKey(keyPrefix, scope),
        inFlightKey(keyPrefix, scope),
        String(hint.remaining),
        String(hint.capacity),
        hint.refillPerSecond === undefined ? '' : String(hint.refillPerSecond / 1000),
        String(fallbackRefillPerMs),
        String(HINT_TTL_MS),
        id ?? '',
        String(IN_FLIGHT_TTL_MS),
      );
    },
    async pause(scope, ms) {
      await redis.eval(PAUSE_SCRIPT, 1, heardKey(keyPrefix, scope), String(Math.ceil(ms)));
    },
  };
}
