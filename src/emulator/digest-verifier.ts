/**
 * Server side of HTTP Digest authentication (RFC 7616 subset: MD5, qop=auth) as the Events API
 * does it. Nonces carry their issue time and an HMAC, so the verifier recognises its own nonces
 * without storing them; an expired nonce with an otherwise correct response is answered
 * `stale=true`. Per nonce, `nc` must strictly increase (a replay is refused). Comparisons are
 * constant-time. No I/O; the clock is injected.
 */
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

export const DIGEST_REALM = 'MMS Public API';

export interface DigestVerifierOptions {
  nonceTtlSeconds: number;
  now: () => number;
  /** Password (private key) for a user name (public key), or undefined when unknown. */
  passwordOf: (username: string) => string | undefined;
  /** HMAC key for nonces; random per verifier by default. */
  secret?: Buffer;
}

export type DigestResult = { ok: true; username: string } | { ok: false; stale: boolean; reason: string };

const TIME_BYTES = 6;
const RANDOM_BYTES = 9;
const MAC_BYTES = 9;
const PRUNE_EVERY = 1000;

const md5 = (text: string): string => createHash('md5').update(text, 'utf8').digest('hex');

/** Parses `Digest k=v, k="v", ...` into a map; undefined when the scheme is not Digest. */
export function parseDigestAuthorization(header: string | undefined): Map<string, string> | undefined {
  if (!header) return undefined;
  const match = /^\s*Digest\s+(.*)$/is.exec(header);
  if (!match) return undefined;
  const fields = new Map<string, string>();
  const pair = /([A-Za-z0-9_-]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^\s,"]*))\s*(?:,|$)/g;
  for (const part of (match[1] as string).matchAll(pair)) {
    const value = part[2] !== undefined ? part[2].replace(/\\(.)/g, '$1') : (part[3] ?? '');
    fields.set((part[1] as string).toLowerCase(), value);
  }
  return fields;
}

/** The `response` a correct client computes (exported for tests and the benchmark's client). */
export function digestResponse(input: {
  username: string;
  password: string;
  realm: string;
  method: string;
  uri: string;
  nonce: string;
  nc: string;
  cnonce: string;
  qop: string;
}): string {
  const ha1 = md5(`${input.username}:${input.realm}:${input.password}`);
  const ha2 = md5(`${input.method}:${input.uri}`);
  return md5(`${ha1}:${input.nonce}:${input.nc}:${input.cnonce}:${input.qop}:${ha2}`);
}

function constantTimeEqual(a: string, b: string): boolean {
  const left = Buffer.from(a, 'utf8');
  const right = Buffer.from(b, 'utf8');
  // Compare equal-length buffers either way so the time does not reveal the length mismatch.
  const same = timingSafeEqual(left.length === right.length ? left : right, right);
  return same && left.length === right.length;
}

export class DigestVerifier {
  private readonly secret: Buffer;
  private readonly lastNc = new Map<string, { nc: number; issuedMs: number }>();
  private verifications = 0;

  constructor(private readonly options: DigestVerifierOptions) {
    this.secret = options.secret ?? randomBytes(32);
  }

  issueNonce(): string {
    const body = Buffer.alloc(TIME_BYTES + RANDOM_BYTES);
    body.writeUIntBE(Math.floor(this.options.now()), 0, TIME_BYTES);
    randomBytes(RANDOM_BYTES).copy(body, TIME_BYTES);
    return Buffer.concat([body, this.mac(body)]).toString('base64');
  }

  /** The WWW-Authenticate value of a 401 challenge, with a fresh nonce. */
  challenge(stale: boolean): string {
    return `Digest realm="${DIGEST_REALM}", domain="", nonce="${this.issueNonce()}", algorithm=MD5, qop="auth", stale=${stale}`;
  }

  verify(method: string, requestUri: string, authorization: string | undefined): DigestResult {
    const fields = parseDigestAuthorization(authorization);
    if (!fields) return { ok: false, stale: false, reason: 'no Digest credentials' };
    const get = (name: string): string => fields.get(name) ?? '';
    const [username, nonce, uri, response, nc, cnonce] = ['username', 'nonce', 'uri', 'response', 'nc', 'cnonce'].map(get) as [
      string,
      string,
      string,
      string,
      string,
      string,
    ];
    if (!username || !nonce || !uri || !response || !cnonce) return { ok: false, stale: false, reason: 'incomplete Digest credentials' };
    if (get('realm') !== DIGEST_REALM) return { ok: false, stale: false, reason: 'wrong realm' };
    const algorithm = fields.get('algorithm');
    if (algorithm !== undefined && algorithm.toUpperCase() !== 'MD5') return { ok: false, stale: false, reason: 'unsupported algorithm' };
    if (get('qop') !== 'auth') return { ok: false, stale: false, reason: 'qop must be auth' };
    if (!/^[0-9a-fA-F]{8}$/.test(nc)) return { ok: false, stale: false, reason: 'malformed nc' };
    if (uri !== requestUri) return { ok: false, stale: false, reason: 'uri does not match the request' };
    const issuedMs = this.nonceIssuedMs(nonce);
    if (issuedMs === undefined) return { ok: false, stale: false, reason: 'not a nonce of this server' };

    const password = this.options.passwordOf(username);
    const expected = digestResponse({
      username,
      password: password ?? randomBytes(16).toString('hex'),
      realm: DIGEST_REALM,
      method,
      uri,
      nonce,
      nc,
      cnonce,
      qop: 'auth',
    });
    if (!constantTimeEqual(expected, response.toLowerCase()) || password === undefined) {
      return { ok: false, stale: false, reason: 'wrong credentials' };
    }
    const now = this.options.now();
    if (now - issuedMs >= this.options.nonceTtlSeconds * 1000) return { ok: false, stale: true, reason: 'nonce expired' };
    const count = Number.parseInt(nc, 16);
    const seen = this.lastNc.get(nonce);
    if (seen && count <= seen.nc) return { ok: false, stale: false, reason: 'nc replayed or not increasing' };
    this.lastNc.set(nonce, { nc: count, issuedMs });
    this.prune(now);
    return { ok: true, username };
  }

  private mac(body: Buffer): Buffer {
    return createHmac('sha256', this.secret).update(body).digest().subarray(0, MAC_BYTES);
  }

  private nonceIssuedMs(nonce: string): number | undefined {
    const raw = Buffer.from(nonce, 'base64');
    if (raw.length !== TIME_BYTES + RANDOM_BYTES + MAC_BYTES || raw.toString('base64') !== nonce) return undefined;
    const body = raw.subarray(0, TIME_BYTES + RANDOM_BYTES);
    if (!timingSafeEqual(raw.subarray(TIME_BYTES + RANDOM_BYTES), this.mac(body))) return undefined;
    return body.readUIntBE(0, TIME_BYTES);
  }

  /** Forgets counters of expired nonces (they can only be answered stale=true now). */
  private prune(now: number): void {
    this.verifications += 1;
    if (this.verifications % PRUNE_EVERY !== 0) return;
    const ttlMs = this.options.nonceTtlSeconds * 1000;
    for (const [nonce, entry] of this.lastNc) if (now - entry.issuedMs >= ttlMs) this.lastNc.delete(nonce);
  }
}
