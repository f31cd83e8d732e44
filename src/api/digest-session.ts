/**
 * The Digest state one client keeps for its base URL: the last challenge (realm, nonce, opaque)
 * and the nonce count. Every request answers the cached nonce with the next `nc`, so a page costs
 * one round trip instead of two. `authorize` is synchronous: each request takes its own `nc`
 * before anything is awaited, so concurrent requests never send the same `nc` for a nonce.
 *
 * A request that receives a challenge answers that nonce by itself first (nc=1, nobody else knows
 * it yet) and shares it only once the server accepted it (`confirm`). So a 401 to that answer can
 * only mean the key pair is wrong, never that a concurrent request's higher `nc` got there first.
 */
import { randomBytes } from 'node:crypto';
import { buildAuthorizationHeader, type DigestChallenge } from './digest.js';

export interface DigestCredentials {
  readonly username: string;
  readonly password: string;
}

export interface PreparedAuthorization {
  /** The Authorization header value. A secret: never log it or put it in an error. */
  readonly header: string;
  readonly nonce: string;
  readonly nc: number;
  readonly challenge: DigestChallenge;
  /** Built on the session's shared nonce (false: a private answer to this request's own challenge). */
  readonly shared: boolean;
}

/** How a request reacts to a 401 that carries a Digest challenge. */
export type ChallengeVerdict =
  /** We sent no credentials yet: answer the challenge. */
  | 'initial'
  /** Our nonce expired (`stale=true`): answer the new one; not a credential failure. */
  | 'stale'
  /** We used an older cached nonce the server no longer knows (e.g. it restarted): answer once. */
  | 'renewed'
  /** We answered the nonce the server had just issued and it still refused: wrong key pair. */
  | 'rejected';

/**
 * Pure decision for a Digest 401. `sent` is what the request carried; `justIssuedNonce` is the
 * nonce of the challenge this same request received immediately before, if any.
 */
export function judgeChallenge(
  challenge: DigestChallenge,
  sent: PreparedAuthorization | undefined,
  justIssuedNonce: string | undefined,
): ChallengeVerdict {
  if (sent === undefined) return 'initial';
  if (challenge.stale) return 'stale';
  if (sent.nonce === justIssuedNonce) return 'rejected';
  return 'renewed';
}

export class DigestSession {
  #challenge: DigestChallenge | undefined;
  #nc = 0;
  readonly #credentials: DigestCredentials;
  readonly #newCnonce: () => string;

  constructor(credentials: DigestCredentials, options: { cnonce?: () => string } = {}) {
    this.#credentials = credentials;
    this.#newCnonce = options.cnonce ?? (() => randomBytes(16).toString('hex'));
  }

  get nonce(): string | undefined {
    return this.#challenge?.nonce;
  }

  get realm(): string | undefined {
    return this.#challenge?.realm;
  }

  /** The Authorization for one request from the shared nonce, with its own `nc`; undefined before any. */
  authorize(method: string, uri: string): PreparedAuthorization | undefined {
    const challenge = this.#challenge;
    if (!challenge) return undefined;
    this.#nc += 1;
    return this.#prepare(challenge, this.#nc, method, uri, true);
  }

  /** Answers a challenge this request just received; private (nc=1) unless it is the shared nonce. */
  answer(challenge: DigestChallenge, method: string, uri: string): PreparedAuthorization {
    if (this.#isShared(challenge)) return this.authorize(method, uri)!;
    return this.#prepare(challenge, 1, method, uri, false);
  }

  /** The server accepted this Authorization: a privately answered nonce becomes the shared one. */
  confirm(prepared: PreparedAuthorization): void {
    if (prepared.shared) return;
    if (this.#isShared(prepared.challenge)) {
      this.#nc = Math.max(this.#nc, prepared.nc);
      return;
    }
    this.#challenge = prepared.challenge;
    this.#nc = prepared.nc;
  }

  #isShared(challenge: DigestChallenge): boolean {
    return this.#challenge?.nonce === challenge.nonce && this.#challenge.realm === challenge.realm;
  }

  #prepare(challenge: DigestChallenge, nc: number, method: string, uri: string, shared: boolean): PreparedAuthorization {
    const header = buildAuthorizationHeader({
      username: this.#credentials.username,
      password: this.#credentials.password,
      method,
      uri,
      challenge,
      nc,
      cnonce: this.#newCnonce(),
    });
    return { header, nonce: challenge.nonce, nc, challenge, shared };
  }

  /** Keeps the password out of JSON (private fields are not shown by util.inspect either). */
  toJSON(): object {
    return { realm: this.realm, nonce: this.nonce, nc: this.#nc };
  }
}
