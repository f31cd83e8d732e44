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
import { buildAuthorizationHeader, digestHa1, type DigestChallenge } from './digest.js';

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
  /** The server refused our `nc` and challenged again with the same nonce: answer with a higher one. */
  | 'recount'
  /** We answered the nonce the server had just issued and it still refused: wrong key pair. */
  | 'rejected';

/**
 * Pure decision for a Digest 401. `sent` is what the request carried; `justIssuedNonce` is the
 * nonce of the challenge this same request received immediately before, if any; `recounted`
 * whether this request already answered that nonce again with a higher `nc`.
 *
 * A re-challenge with the very nonce we answered can mean a refused `nc` (a server that wants
 * them strictly increasing, another client that used the same one) as well as a wrong key: a
 * shared nonce proved the key already, and a private one gets one more answer before the key is
 * called wrong.
 */
export function judgeChallenge(
  challenge: DigestChallenge,
  sent: PreparedAuthorization | undefined,
  justIssuedNonce: string | undefined,
  recounted = false,
): ChallengeVerdict {
  if (sent === undefined) return 'initial';
  if (challenge.stale) return 'stale';
  if (challenge.nonce === sent.nonce && (sent.shared || !recounted)) return 'recount';
  if (sent.nonce === justIssuedNonce) return 'rejected';
  return 'renewed';
}

export class DigestSession {
  #challenge: DigestChallenge | undefined;
  #nc = 0;
  /** MD5-sess session keys by nonce, fixed by the first answer to each (a few recent nonces). */
  readonly #sessionKeys = new Map<string, string>();
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

  /**
   * Answers a challenge this request just received; private (nc=1, or one above `previous` when
   * that answered the same nonce privately) unless it is the shared nonce.
   */
  answer(challenge: DigestChallenge, method: string, uri: string, previous?: PreparedAuthorization): PreparedAuthorization {
    if (this.#isShared(challenge)) return this.authorize(method, uri)!;
    const nc = previous && !previous.shared && previous.nonce === challenge.nonce ? previous.nc + 1 : 1;
    return this.#prepare(challenge, nc, method, uri, false);
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
    const answer = {
      username: this.#credentials.username,
      password: this.#credentials.password,
      method,
      uri,
      challenge,
      nc,
      cnonce: this.#newCnonce(),
    };
    const header = buildAuthorizationHeader({ ...answer, sessionKey: this.#sessionKey(answer) });
    return { header, nonce: challenge.nonce, nc, challenge, shared };
  }

  /** MD5-sess: the key the first answer to this nonce computed, so every later answer uses it too. */
  #sessionKey(answer: Parameters<typeof digestHa1>[0]): string | undefined {
    if (answer.challenge.algorithm.toUpperCase() !== 'MD5-SESS') return undefined;
    const nonce = answer.challenge.nonce;
    let key = this.#sessionKeys.get(nonce);
    if (key === undefined) {
      key = digestHa1(answer);
      this.#sessionKeys.set(nonce, key);
      if (this.#sessionKeys.size > 8) this.#sessionKeys.delete(this.#sessionKeys.keys().next().value!);
    }
    return key;
  }

  /** Keeps the password out of JSON (private fields are not shown by util.inspect either). */
  toJSON(): object {
    return { realm: this.realm, nonce: this.nonce, nc: this.#nc };
  }
}
