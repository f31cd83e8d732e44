/**
 * The token endpoint's side of service accounts (`POST /api/oauth/token`, client credentials):
 * opaque tokens that live `ttlSeconds` (3600), at most `perWindow` token requests per client per
 * `windowSeconds` (10 a minute; then 429 `rate_limited` with Retry-After), at most `maxLive` (100)
 * live tokens per account. Tokens cannot be refreshed; tests revoke them to model a rotated secret.
 */
import { randomBytes } from 'node:crypto';

export interface TokenLimits {
  readonly ttlSeconds: number;
  readonly perWindow: number;
  readonly windowSeconds: number;
  readonly maxLive: number;
}

export const DEFAULT_TOKEN_LIMITS: TokenLimits = { ttlSeconds: 3600, perWindow: 10, windowSeconds: 60, maxLive: 100 };

export type IssueResult =
  | { readonly ok: true; readonly token: string; readonly expiresIn: number }
  | {
      readonly ok: false;
      readonly status: number;
      readonly error: string;
      readonly description: string;
      readonly retryAfterSeconds?: number;
    };

export class TokenIssuer {
  readonly #limits: TokenLimits;
  readonly #now: () => number;
  readonly #tokens = new Map<string, { clientId: string; expiresAtMs: number }>();
  readonly #requests = new Map<string, number[]>();
  readonly #everIssued: string[] = [];
  #refused = 0;

  constructor(limits: Partial<TokenLimits>, now: () => number) {
    this.#limits = { ...DEFAULT_TOKEN_LIMITS, ...limits };
    this.#now = now;
  }

  /** Tokens issued so far, over every account. */
  get issued(): number {
    return this.#everIssued.length;
  }

  /** Token requests answered 429 or 400 for the limits. */
  get refused(): number {
    return this.#refused;
  }

  issue(clientId: string): IssueResult {
    const now = this.#now();
    const windowMs = this.#limits.windowSeconds * 1000;
    const recent = (this.#requests.get(clientId) ?? []).filter((at) => at > now - windowMs);
    if (recent.length >= this.#limits.perWindow) {
      this.#requests.set(clientId, recent);
      this.#refused += 1;
      return {
        ok: false,
        status: 429,
        error: 'rate_limited',
        description: `Too many token requests: at most ${this.#limits.perWindow} every ${this.#limits.windowSeconds} seconds.`,
        retryAfterSeconds: Math.max(1, Math.ceil((recent[0]! + windowMs - now) / 1000)),
      };
    }
    recent.push(now);
    this.#requests.set(clientId, recent);
    const live = [...this.#tokens.values()].filter((t) => t.clientId === clientId && t.expiresAtMs > now).length;
    if (live >= this.#limits.maxLive) {
      this.#refused += 1;
      return {
        ok: false,
        status: 400,
        error: 'invalid_request',
        description: `The service account already has ${this.#limits.maxLive} active tokens.`,
      };
    }
    const token = randomBytes(24).toString('base64url');
    this.#tokens.set(token, { clientId, expiresAtMs: now + this.#limits.ttlSeconds * 1000 });
    this.#everIssued.push(token);
    return { ok: true, token, expiresIn: this.#limits.ttlSeconds };
  }

  /** The account a live token belongs to, or undefined (unknown, expired or revoked). */
  verify(token: string): string | undefined {
    const entry = this.#tokens.get(token);
    return entry && entry.expiresAtMs > this.#now() ? entry.clientId : undefined;
  }

  /** Every live token of the account stops working at once. */
  revokeAll(clientId: string): number {
    let revoked = 0;
    for (const [token, entry] of this.#tokens) {
      if (entry.clientId !== clientId) continue;
      this.#tokens.delete(token);
      revoked += 1;
    }
    return revoked;
  }

  /** Every token ever issued (for tests that check none leaks into logs). */
  tokens(): string[] {
    return [...this.#everIssued];
  }
}
