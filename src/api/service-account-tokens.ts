/**
 * OAuth 2.0 client credentials for a service account: one access token per credential, shared by
 * every request of every scope that uses it, minted again shortly before it expires or when the
 * API refuses it (a revoked token). Tokens cannot be refreshed, the token endpoint allows about
 * 10 requests a minute and an account holds at most 100 live tokens, so a token is minted once per
 * lifetime of use, never per request, and concurrent callers wait for the same mint. The mint's
 * waits end at the retry deadline (a longer Retry-After fails the callers at once, and token
 * requests stay refused until it has passed) and when every waiting caller's signal aborts. Neither
 * the secret nor a token ever reaches a log line or an error.
 */
import { setTimeout as delay } from 'node:timers/promises';
import { request, type Dispatcher } from 'undici';
import { z } from 'zod';
import type { Logger } from '../logger.js';
import { ApiError, ApiTransientError, describeFailure, type ApiFailure } from './api-error.js';
import { backoffDelayMs, parseRetryAfterMs } from './retry-policy.js';
import { clampNetworkNumber } from './network-ranges.js';
import { utf8Text } from '../utf8-text.js';

export interface ServiceAccountTokensOptions {
  /** `{origin}/api/oauth/token`. */
  readonly tokenUrl: string;
  readonly credential: string;
  readonly clientId: string;
  readonly clientSecret: string;
  readonly dispatcher: Dispatcher;
  readonly requestTimeoutMs: number;
  readonly logger: Logger;
  readonly now?: () => number;
  readonly maxAttempts?: number;
  /** The client's retry deadline (api.retryDeadlineMs): no mint waits past it. Default 10 minutes. */
  readonly retryDeadlineMs?: number;
  readonly sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
}

const tokenAnswer = z.looseObject({
  access_token: z.string().min(1),
  token_type: z.string().regex(/^bearer$/i),
  expires_in: z.number().positive(),
});

/** Renew this long before expiry (or at 90% of a shorter lifetime), so no request carries a token about to lapse. */
const RENEW_BEFORE_MS = 60_000;
/** The endpoint allows about 10 requests a minute: a 429 without Retry-After waits this long. */
const RATE_LIMITED_WAIT_MS = 6_000;
/** Without a retry deadline given, the client's default (api.retryDeadlineMs). */
const DEFAULT_RETRY_DEADLINE_MS = 10 * 60_000;

export class ServiceAccountTokens {
  readonly #options: ServiceAccountTokensOptions;
  readonly #now: () => number;
  #current: { token: string; renewAtMs: number } | undefined;
  #minting: { promise: Promise<string>; stop: AbortController; waiting: number } | undefined;
  /** The endpoint asked for a wait past the retry deadline: token requests are refused until then. */
  #refusedUntil: { atMs: number; failure: ApiFailure; message: string } | undefined;
  /** Tokens minted so far (metrics and tests). */
  minted = 0;

  constructor(options: ServiceAccountTokensOptions) {
    this.#options = options;
    this.#now = options.now ?? Date.now;
  }

  /**
   * A live token: the current one, or a new one minted once for every caller waiting. A caller
   * whose `signal` aborts stops waiting at once; the mint stops when no caller waits any more.
   */
  token(signal?: AbortSignal): Promise<string> {
    if (this.#current && this.#now() < this.#current.renewAtMs) return Promise.resolve(this.#current.token);
    if (signal?.aborted) return Promise.reject(signal.reason as Error);
    const refused = this.#refusedUntil;
    if (refused && this.#now() < refused.atMs) {
      const retryAfterMs = refused.atMs - this.#now();
      return Promise.reject(new ApiTransientError(refused.failure, { code: 'TOKEN_429', message: refused.message, retryAfterMs }));
    }
    if (!this.#minting) {
      const stop = new AbortController();
      const minting = { promise: this.#mint(stop.signal), stop, waiting: 0 };
      const clear = () => {
        if (this.#minting === minting) this.#minting = undefined;
      };
      void minting.promise.then(clear, clear);
      this.#minting = minting;
    }
    const minting = this.#minting;
    minting.waiting += 1;
    return new Promise<string>((resolve, reject) => {
      let waiting = true;
      const leave = (): boolean => {
        if (!waiting) return false;
        waiting = false;
        minting.waiting -= 1;
        signal?.removeEventListener('abort', onAbort);
        return true;
      };
      const onAbort = () => {
        if (!leave()) return;
        if (minting.waiting === 0) minting.stop.abort(signal!.reason);
        reject(signal!.reason as Error);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      minting.promise.then(
        (token) => leave() && resolve(token),
        (error: unknown) => leave() && reject(error as Error),
      );
    });
  }

  /** The API refused `token` (revoked, or expired early): the next call mints a new one. */
  invalidate(token: string): void {
    if (this.#current?.token === token) this.#current = undefined;
  }

  async #mint(signal: AbortSignal): Promise<string> {
    const { tokenUrl, clientId, clientSecret, dispatcher, requestTimeoutMs, logger, credential } = this.#options;
    const maxAttempts = this.#options.maxAttempts ?? 6;
    const deadlineMs = this.#options.retryDeadlineMs ?? DEFAULT_RETRY_DEADLINE_MS;
    const sleep = this.#options.sleep ?? ((ms: number, stop: AbortSignal) => delay(ms, undefined, { signal: stop }));
    const started = this.#now();
    const target = new URL(tokenUrl).pathname;
    const failure = (status: number | undefined, errorCode?: string, detail?: string): ApiFailure => ({
      scope: `credential ${credential}`,
      method: 'POST',
      url: tokenUrl,
      target,
      status,
      errorCode,
      detail,
      bodySnippet: undefined,
    });
    for (let attempt = 1; ; attempt += 1) {
      let status: number;
      let text: string;
      let retryAfter: string | undefined;
      try {
        const response = await request(tokenUrl, {
          method: 'POST',
          dispatcher,
          headers: {
            authorization: `Basic ${Buffer.from(`${clientId}:${clientSecret}`).toString('base64')}`,
            'content-type': 'application/x-www-form-urlencoded',
            accept: 'application/json',
          },
          body: 'grant_type=client_credentials',
          headersTimeout: requestTimeoutMs,
          bodyTimeout: requestTimeoutMs,
          signal,
        });
        status = response.statusCode;
        text = utf8Text(Buffer.from(await response.body.arrayBuffer()));
        const header = response.headers['retry-after'];
        retryAfter = Array.isArray(header) ? header[0] : header;
      } catch (error) {
        signal.throwIfAborted();
        const wait = backoffDelayMs(attempt, { baseDelayMs: 500, maxDelayMs: 30_000 });
        if (attempt >= maxAttempts || this.#now() - started + wait > deadlineMs) {
          throw new ApiTransientError(failure(undefined), {
            code: 'TOKEN_UNREACHABLE',
            reason: `the token endpoint did not answer (${(error as Error).message})`,
          });
        }
        await sleep(wait, signal);
        continue;
      }
      const body = safeJson(text);
      if (status === 200) {
        const parsed = tokenAnswer.safeParse(body);
        if (!parsed.success)
          throw new ApiError(failure(status, undefined, 'the token endpoint answered 200 without a Bearer access_token and expires_in'));
        const lifetimeMs = clampNetworkNumber('tokenLifetime', parsed.data.expires_in) * 1000;
        const renewIn = lifetimeMs > RENEW_BEFORE_MS * 2 ? lifetimeMs - RENEW_BEFORE_MS : lifetimeMs * 0.9;
        this.#current = { token: parsed.data.access_token, renewAtMs: this.#now() + renewIn };
        this.minted += 1;
        logger.info(
          { credential, clientId, expiresInSeconds: parsed.data.expires_in },
          `service account ${clientId} (credential ${credential}): new access token, valid ${parsed.data.expires_in} s`,
        );
        return parsed.data.access_token;
      }
      const error = typeof body === 'object' && body !== null ? (body as { error?: unknown; error_description?: unknown }) : {};
      const code = typeof error.error === 'string' ? error.error : undefined;
      const description = typeof error.error_description === 'string' ? error.error_description : undefined;
      if (status === 429 || status >= 500) {
        if (attempt >= maxAttempts) {
          throw new ApiTransientError(failure(status, code, description), {
            code: `TOKEN_${status}`,
            reason: `the token endpoint answered ${status} ${attempt} times`,
          });
        }
        const wait =
          status === 429
            ? (parseRetryAfterMs(retryAfter, this.#now()) ?? RATE_LIMITED_WAIT_MS)
            : backoffDelayMs(attempt, { baseDelayMs: 500, maxDelayMs: 30_000 });
        if (this.#now() - started + wait > deadlineMs) {
          // Waiting that long would hold every scope of this credential past its deadline: fail them
          // now (transient: the next run tries again) and ask the endpoint nothing until then.
          const refusal = failure(status, code, description);
          const seconds = Math.ceil(wait / 1000);
          const message =
            `${describeFailure(refusal)} (${status === 429 ? `it asks to wait ${seconds} s` : `the next attempt is ${seconds} s away`}, ` +
            `past the retry deadline (api.retryDeadlineMs, ${Math.round(deadlineMs / 1000)} s): not waiting` +
            `${status === 429 ? ', and not asking again before then' : ''})`;
          if (status === 429) this.#refusedUntil = { atMs: this.#now() + wait, failure: refusal, message };
          logger.warn({ credential, status, waitMs: wait, deadlineMs }, message);
          throw new ApiTransientError(refusal, { code: `TOKEN_${status}`, message, retryAfterMs: wait });
        }
        logger.warn(
          { credential, status, waitMs: wait },
          `token endpoint answered ${status} for credential ${credential}: asking again in ${wait} ms`,
        );
        await sleep(wait, signal);
        continue;
      }
      const fix = `the service account ${clientId} was refused a token: check the credential's client id and secret, and that the service account is not deleted`;
      throw new ApiError(failure(status, code, description), {
        fix,
        message: `POST ${target} for service account ${clientId} (credential ${credential}) failed: ${status}${code ? ` ${code}` : ''}${description ? `: ${description}` : ''} (${fix})`,
      });
    }
  }
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
