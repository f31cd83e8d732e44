/**
 * OAuth 2.0 client credentials for a service account: one access token per credential, shared by
 * every request of every scope that uses it, minted again shortly before it expires or when the
 * API refuses it (a revoked token). Tokens cannot be refreshed, the token endpoint allows about
 * 10 requests a minute and an account holds at most 100 live tokens, so a token is minted once per
 * lifetime of use, never per request, and concurrent callers wait for the same mint. Neither the
 * secret nor a token ever reaches a log line or an error.
 */
import { setTimeout as delay } from 'node:timers/promises';
import { request, type Dispatcher } from 'undici';
import { z } from 'zod';
import type { Logger } from '../logger.js';
import { ApiError, ApiTransientError, type ApiFailure } from './api-error.js';
import { backoffDelayMs, parseRetryAfterMs } from './retry-policy.js';

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
  readonly sleep?: (ms: number) => Promise<void>;
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

export class ServiceAccountTokens {
  readonly #options: ServiceAccountTokensOptions;
  readonly #now: () => number;
  #current: { token: string; renewAtMs: number } | undefined;
  #minting: Promise<string> | undefined;
  /** Tokens minted so far (metrics and tests). */
  minted = 0;

  constructor(options: ServiceAccountTokensOptions) {
    this.#options = options;
    this.#now = options.now ?? Date.now;
  }

  /** A live token: the current one, or a new one minted once for every caller waiting. */
  token(): Promise<string> {
    if (this.#current && this.#now() < this.#current.renewAtMs) return Promise.resolve(this.#current.token);
    this.#minting ??= this.#mint().finally(() => (this.#minting = undefined));
    return this.#minting;
  }

  /** The API refused `token` (revoked, or expired early): the next call mints a new one. */
  invalidate(token: string): void {
    if (this.#current?.token === token) this.#current = undefined;
  }

  async #mint(): Promise<string> {
    const { tokenUrl, clientId, clientSecret, dispatcher, requestTimeoutMs, logger, credential } = this.#options;
    const maxAttempts = this.#options.maxAttempts ?? 6;
    const sleep = this.#options.sleep ?? ((ms: number) => delay(ms));
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
        });
        status = response.statusCode;
        text = await response.body.text();
        const header = response.headers['retry-after'];
        retryAfter = Array.isArray(header) ? header[0] : header;
      } catch (error) {
        if (attempt >= maxAttempts) {
          throw new ApiTransientError(failure(undefined), {
            code: 'TOKEN_UNREACHABLE',
            reason: `the token endpoint did not answer (${(error as Error).message})`,
          });
        }
        await sleep(backoffDelayMs(attempt, { baseDelayMs: 500, maxDelayMs: 30_000 }));
        continue;
      }
      const body = safeJson(text);
      if (status === 200) {
        const parsed = tokenAnswer.safeParse(body);
        if (!parsed.success)
          throw new ApiError(failure(status, undefined, 'the token endpoint answered 200 without a Bearer access_token and expires_in'));
        const lifetimeMs = parsed.data.expires_in * 1000;
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
        logger.warn(
          { credential, status, waitMs: wait },
          `token endpoint answered ${status} for credential ${credential}: asking again in ${wait} ms`,
        );
        await sleep(wait);
        continue;
      }
      throw new ApiError(failure(status, code, description), {
        message:
          `POST ${target} for service account ${clientId} (credential ${credential}) failed: ${status}${code ? ` ${code}` : ''}${description ? `: ${description}` : ''} ` +
          `(check the credential's client id and secret, and that the service account is not deleted)`,
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
