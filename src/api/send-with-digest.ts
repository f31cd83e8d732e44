/**
 * One attempt at a page: budget token, Digest Authorization from the cached nonce, the HTTP
 * exchange, and the 401 challenge dance (initial, stale, renewed nonce, refused key). Transport
 * failures and HTTP errors come out classified (ApiError / ApiTransientError).
 */
import { request, type Dispatcher } from 'undici';
import { linkedSignal } from '../abort.js';
import type { Logger } from '../logger.js';
import type { Scope } from '../scope.js';
import { ApiCredentialsError, ApiError, ApiTransientError, type ApiFailure } from './api-error.js';
import { isSupportedChallenge, parseDigestChallenge, type DigestChallenge } from './digest.js';
import { judgeChallenge, type DigestSession, type PreparedAuthorization } from './digest-session.js';
import type { ApiMetrics } from './metrics.js';
import type { ApiReachability } from './reachability.js';
import type { ServiceAccountTokens } from './service-account-tokens.js';
import { isTokenRefused } from './token-refusal.js';
import type { RateLimitHeaders } from './bucket-hints.js';
import type { InFlightRequest, RequestBudget } from './request-budget.js';
import { interpretResponse, type RequestContext } from './response.js';
import { classifyTransportError } from './retry-policy.js';
import type { ListBody } from './validate.js';
import { utf8Text } from '../utf8-text.js';

export interface ExchangeDeps {
  readonly dispatcher: Dispatcher;
  readonly session: DigestSession;
  readonly publicKey: string;
  /** A service account's tokens: requests carry a Bearer token instead of answering Digest. */
  readonly tokens: ServiceAccountTokens | undefined;
  readonly budget: RequestBudget;
  readonly metrics: ApiMetrics | undefined;
  readonly reachability: ApiReachability;
  readonly logger: Logger;
  readonly requestTimeoutMs: number;
  readonly now: () => number;
  /** The dialect's media type: application/json on v1, application/vnd.atlas.<version>+json on Atlas v2. */
  readonly accept: string;
  /** Told the rate-limit headers of every answer (Atlas v2's token buckets); awaited before the answer is read. */
  readonly onRateLimitHeaders?: (scope: Scope, headers: RateLimitHeaders, request: InFlightRequest | void) => Promise<void> | void;
}

export type { RateLimitHeaders } from './bucket-hints.js';

/** Challenges one attempt may answer before it counts as a transient failure (a nonce churn). */
const MAX_CHALLENGES_PER_ATTEMPT = 4;

const TLS_HINT = /CERT|SELF_SIGNED|UNABLE_TO_VERIFY|ERR_TLS/;

export async function sendWithDigest(
  deps: ExchangeDeps,
  scope: Scope,
  context: RequestContext,
  uri: string,
  counter: { requests: number },
  signal: AbortSignal | undefined,
  countRequired = true,
): Promise<{ list: ListBody; bytes: number; text: string }> {
  const { session, metrics, logger } = deps;
  let received: DigestChallenge | undefined;
  let previous: PreparedAuthorization | undefined;
  let recounted = false;
  let renewedToken = false;
  for (let challenges = 0; ;) {
    const sent = await deps.budget.take(scope, signal);
    // Counted as in flight until its answer is heard or it failed (a lost `done` lapses on its own).
    const over = (): Promise<void> => (sent ? sent.done().catch(() => undefined) : Promise.resolve());
    let bearer: string | undefined;
    try {
      bearer = deps.tokens ? await deps.tokens.token(signal) : undefined;
    } catch (error) {
      await over();
      throw error;
    }
    const auth = bearer
      ? undefined
      : received
        ? session.answer(received, context.method, uri, previous)
        : session.authorize(context.method, uri);
    previous = auth;
    counter.requests += 1;
    const started = performance.now();
    let status: number;
    let headers: Record<string, string | string[] | undefined>;
    let body: Buffer;
    let text: string;
    // The request listens on a signal of its own, linked to the caller's until its body is read.
    const link = signal ? linkedSignal(signal) : undefined;
    try {
      const response = await request(context.url, {
        method: 'GET',
        headers: bearer
          ? { accept: deps.accept, authorization: `Bearer ${bearer}` }
          : auth
            ? { accept: deps.accept, authorization: auth.header }
            : { accept: deps.accept },
        dispatcher: deps.dispatcher,
        headersTimeout: deps.requestTimeoutMs,
        bodyTimeout: deps.requestTimeoutMs,
        ...(link ? { signal: link.signal } : {}),
      });
      status = response.statusCode;
      headers = response.headers;
      body = Buffer.from(await response.body.arrayBuffer());
      text = utf8Text(body);
    } catch (error) {
      await over();
      signal?.throwIfAborted();
      const elapsedMs = performance.now() - started;
      metrics?.requests.inc({ scope_kind: scope.kind, status: 'error' });
      metrics?.latency.observe({ scope_kind: scope.kind, status: 'error' }, elapsedMs / 1000);
      const failure = transportFailure(context, error, logger, elapsedMs);
      deps.reachability.noAnswer(failure.message);
      throw failure;
    } finally {
      link?.unlink();
    }
    deps.reachability.answered();
    const elapsedMs = performance.now() - started;
    metrics?.requests.inc({ scope_kind: scope.kind, status: String(status) });
    metrics?.latency.observe({ scope_kind: scope.kind, status: String(status) }, elapsedMs / 1000);
    logger.debug(
      {
        scope: context.scope,
        method: context.method,
        target: context.target,
        status,
        ms: Math.round(elapsedMs),
        bytes: body.length,
        nc: auth?.nc,
      },
      `${context.method} ${context.target} ${status} in ${Math.round(elapsedMs)} ms`,
    );
    if (status === 429) metrics?.rateLimited.inc({ scope_kind: scope.kind });
    try {
      await deps.onRateLimitHeaders?.(
        scope,
        {
          status,
          limit: headerText(headers['ratelimit-limit']),
          remaining: headerText(headers['ratelimit-remaining']),
          bodyText: status === 429 ? text : undefined,
        },
        sent,
      );
    } finally {
      await over();
    }

    // A refused token (revoked, or expired early) is replaced once per request; a second refusal is
    // the answer. An access error (no role on this scope) is this scope's answer: the token is kept.
    if (status === 401 && bearer && deps.tokens && !renewedToken && isTokenRefused(status, headerText(headers['www-authenticate']), text)) {
      renewedToken = true;
      deps.tokens.invalidate(bearer);
      logger.info({ scope: context.scope }, `the service account's token was refused for ${context.scope}: minting a new one`);
      continue;
    }
    const challenge = status === 401 && !bearer ? parseDigestChallenge(headerText(headers['www-authenticate'])) : undefined;
    if (challenge) {
      const base: ApiFailure = { ...context, status, errorCode: undefined, detail: undefined, bodySnippet: undefined };
      if (!isSupportedChallenge(challenge)) {
        throw new ApiError(base, {
          code: 'API_DIGEST_UNSUPPORTED',
          message: `${context.method} ${context.target} for ${context.scope} failed: 401 asks for Digest algorithm ${challenge.algorithm} with qop ${challenge.qop.join(',') || 'none'}; this client answers MD5 / MD5-sess with qop auth`,
        });
      }
      const verdict = judgeChallenge(challenge, auth, received?.nonce, recounted);
      if (verdict === 'recount') recounted = true;
      metrics?.challenges.inc({ scope_kind: scope.kind, kind: verdict });
      if (verdict === 'rejected') throw new ApiCredentialsError(base, deps.publicKey);
      challenges += 1;
      if (challenges > MAX_CHALLENGES_PER_ATTEMPT) {
        throw new ApiTransientError(base, {
          code: 'DIGEST_CHALLENGE_LOOP',
          reason: `answered ${challenges - 1} Digest challenges and the server keeps issuing new nonces`,
        });
      }
      if (verdict !== 'initial') logger.debug({ scope: context.scope, verdict }, `Digest nonce ${verdict}: answering the new challenge`);
      received = challenge;
      continue;
    }
    if (auth) session.confirm(auth);
    const list = interpretResponse(
      context,
      { status, retryAfter: headerText(headers['retry-after']), bodyText: text },
      deps.now(),
      countRequired,
    );
    return { list, bytes: body.length, text };
  }
}

function transportFailure(context: RequestContext, error: unknown, logger: Logger, elapsedMs: number): Error {
  const { code, policy } = classifyTransportError(error);
  const original = error instanceof Error ? error.message : String(error);
  const failure: ApiFailure = { ...context, status: undefined, errorCode: undefined, detail: undefined, bodySnippet: undefined };
  logger.debug(
    { scope: context.scope, target: context.target, code, ms: Math.round(elapsedMs) },
    `${context.method} ${context.target} failed: ${code}`,
  );
  if (policy.retry) return new ApiTransientError(failure, { code, reason: `${code} (${policy.why})`, cause: error });
  const hint = TLS_HINT.test(code)
    ? ' (a private certificate authority? set EVENTS_API_CA_FILE to its PEM file)'
    : code === 'ERR_SSL_WRONG_VERSION_NUMBER'
      ? ' (the server does not speak TLS: should EVENTS_API_BASE_URL start with http://?)'
      : code === 'ENOTFOUND'
        ? ' (no such host: check EVENTS_API_BASE_URL)'
        : '';
  // OpenSSL's messages span lines and repeat the library's internals: keep the first line only.
  const what = code.startsWith('ERR_SSL_') ? '' : `: ${original.split('\n')[0]!.trim()}`;
  return new ApiError(failure, {
    code: `API_${code}`,
    message: `${context.method} ${context.target} for ${context.scope} failed: ${code}${what}${hint}`,
    cause: error,
  });
}

function headerText(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value.join(', ') : value;
}
