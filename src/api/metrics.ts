/**
 * The API client's Prometheus metrics, registered on a registry the caller owns (the worker's
 * `/metrics`). Labels stay low-cardinality: the scope kind, never the scope id, except the one
 * series a scope of budgetRemaining (issue 34's rule: a handful of series per scope at most).
 */
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';

export type ChallengeKind = 'initial' | 'stale' | 'renewed' | 'recount' | 'rejected';

export interface ApiMetrics {
  /** HTTP requests sent, by scope kind and status (`error` when no response arrived). */
  readonly requests: Counter<'scope_kind' | 'status'>;
  /** Attempts repeated after a transient failure, by reason code. */
  readonly retries: Counter<'scope_kind' | 'reason'>;
  /** Digest 401 challenges answered or refused, by kind. */
  readonly challenges: Counter<'scope_kind' | 'kind'>;
  /** 429 responses. */
  readonly rateLimited: Counter<'scope_kind'>;
  /**
   * Pages whose event texts did not pair with the parsed events (an id differed): their payloads
   * were serialised from the parsed events instead of stored as sent.
   */
  readonly unpairedTexts: Counter<'scope_kind'>;
  /** Time from sending a request to having its whole body. */
  readonly latency: Histogram<'scope_kind' | 'status'>;
  /**
   * Tokens the service said were left in a scope's token bucket (Atlas v2 RateLimit-Remaining, 0 on a
   * RATE_LIMITED_TOKEN_BUCKET 429), as of the last answer that said: one series per such scope.
   */
  readonly budgetRemaining: Gauge<'scope_kind' | 'scope'>;
  /** 1 while the service refuses a source's resource version (Atlas v2: 406, 410, 400 INVALID_VERSION_DATE), by credential name. */
  readonly versionRefused: Gauge<'source'>;
}

export function createApiMetrics(registry: Registry): ApiMetrics {
  const registers = [registry];
  return {
    requests: new Counter({
      name: 'events_mirror_api_requests_total',
      help: 'HTTP requests sent to the Events API',
      labelNames: ['scope_kind', 'status'],
      registers,
    }),
    retries: new Counter({
      name: 'events_mirror_api_retries_total',
      help: 'Events API attempts repeated after a transient failure',
      labelNames: ['scope_kind', 'reason'],
      registers,
    }),
    challenges: new Counter({
      name: 'events_mirror_api_digest_challenges_total',
      help: 'Digest 401 challenges from the Events API (initial, stale nonce, renewed nonce, refused nc answered again, rejected key)',
      labelNames: ['scope_kind', 'kind'],
      registers,
    }),
    rateLimited: new Counter({
      name: 'events_mirror_api_rate_limited_total',
      help: '429 responses from the Events API',
      labelNames: ['scope_kind'],
      registers,
    }),
    unpairedTexts: new Counter({
      name: 'events_mirror_api_unpaired_texts_total',
      help: 'Events API pages whose event texts did not pair with the parsed events by id (stored from the parsed events instead)',
      labelNames: ['scope_kind'],
      registers,
    }),
    latency: new Histogram({
      name: 'events_mirror_api_request_duration_seconds',
      help: 'Events API request latency, headers and body',
      labelNames: ['scope_kind', 'status'],
      buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers,
    }),
    budgetRemaining: new Gauge({
      name: 'events_mirror_api_budget_remaining',
      help: "Tokens left in the scope's Atlas v2 token bucket, as the last answer that said so (RateLimit-Remaining, or a 429 RATE_LIMITED_TOKEN_BUCKET) told it",
      labelNames: ['scope_kind', 'scope'],
      registers,
    }),
    versionRefused: new Gauge({
      name: 'events_mirror_api_version_refused',
      help: 'Whether the Events API refuses the resource version a source asks for (1: every scope of the source fails until api.version is fixed)',
      labelNames: ['source'],
      registers,
    }),
  };
}
