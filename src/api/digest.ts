/**
 * HTTP Digest authentication maths (RFC 7616 / RFC 2617), MD5 and MD5-sess with qop=auth.
 * Pure: no I/O, no clock, no randomness (the cnonce is an input).
 */
import { createHash } from 'node:crypto';

export interface DigestChallenge {
  readonly realm: string;
  readonly nonce: string;
  /** Qualities of protection offered; empty when the server sent none (RFC 2069 style). */
  readonly qop: readonly string[];
  readonly algorithm: string;
  readonly opaque: string | undefined;
  /** The previous nonce was valid but expired: answer the new one with the same credentials. */
  readonly stale: boolean;
}

export interface DigestAnswer {
  readonly username: string;
  readonly password: string;
  readonly method: string;
  /** The request target exactly as sent: path plus query. */
  readonly uri: string;
  readonly challenge: DigestChallenge;
  readonly nc: number;
  readonly cnonce: string;
  /**
   * MD5-sess: the session key (A1's hash) fixed for this nonce by the first request that answered
   * it (RFC 7616 §3.4.2); computed from this answer's cnonce when absent.
   */
  readonly sessionKey?: string;
}

export function md5Hex(text: string): string {
  return createHash('md5').update(text, 'utf8').digest('hex');
}

/** `nc` as sent on the wire: eight lower-case hex digits. */
export function formatNonceCount(nc: number): string {
  return nc.toString(16).padStart(8, '0');
}

/**
 * Finds the Digest challenge in a WWW-Authenticate header value (which may list several schemes
 * or several Digest challenges, e.g. SHA-256 and MD5): the first this client can answer, else the
 * first; undefined when there is no Digest challenge with a realm and a nonce.
 */
export function parseDigestChallenge(header: string | undefined): DigestChallenge | undefined {
  const all = parseDigestChallenges(header);
  return all.find(isSupportedChallenge) ?? all[0];
}

export function parseDigestChallenges(header: string | undefined): DigestChallenge[] {
  if (!header) return [];
  const challenges: DigestChallenge[] = [];
  const scheme = /(?:^|[\s,])Digest\s+/gi;
  for (let match = scheme.exec(header); match; match = scheme.exec(header)) {
    const { params, consumed } = parseAuthParams(header.slice(match.index + match[0].length));
    scheme.lastIndex = match.index + match[0].length + consumed;
    const challenge = toChallenge(params);
    if (challenge) challenges.push(challenge);
  }
  return challenges;
}

function toChallenge(params: Map<string, string>): DigestChallenge | undefined {
  const realm = params.get('realm');
  const nonce = params.get('nonce');
  if (realm === undefined || !nonce) return undefined;
  // The service's own documentation spells qop as "op"; accept either.
  const qopText = params.get('qop') ?? params.get('op') ?? '';
  return {
    realm,
    nonce,
    qop: qopText
      .split(',')
      .map((q) => q.trim().toLowerCase())
      .filter((q) => q !== ''),
    algorithm: params.get('algorithm') ?? 'MD5',
    opaque: params.get('opaque'),
    stale: (params.get('stale') ?? '').toLowerCase() === 'true',
  };
}

/** Parses `key=value, key="quoted, value"` pairs up to the next scheme name. */
function parseAuthParams(text: string): { params: Map<string, string>; consumed: number } {
  const params = new Map<string, string>();
  const pair = /\s*([A-Za-z0-9_-]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^\s,"]*))\s*(?:,|$)/y;
  let index = 0;
  while (index < text.length) {
    pair.lastIndex = index;
    const match = pair.exec(text);
    if (!match) break; // another scheme starts here, or junk: stop
    const value = match[2] !== undefined ? match[2].replace(/\\(.)/g, '$1') : (match[3] ?? '');
    const key = match[1]!.toLowerCase();
    if (!params.has(key)) params.set(key, value);
    index = pair.lastIndex;
  }
  return { params, consumed: index };
}

/** True when this client can answer the challenge (MD5 or MD5-sess, with qop auth or none). */
export function isSupportedChallenge(challenge: DigestChallenge): boolean {
  const algorithm = challenge.algorithm.toUpperCase();
  const qopOk = challenge.qop.length === 0 || challenge.qop.includes('auth');
  return (algorithm === 'MD5' || algorithm === 'MD5-SESS') && qopOk;
}

/** The `response` value of RFC 7616 §3.4.1. */
export function digestResponse(answer: DigestAnswer): string {
  const { challenge } = answer;
  const ha1 = digestHa1(answer);
  const ha2 = md5Hex(`${answer.method}:${answer.uri}`);
  if (challenge.qop.length === 0) return md5Hex(`${ha1}:${challenge.nonce}:${ha2}`);
  return md5Hex(`${ha1}:${challenge.nonce}:${formatNonceCount(answer.nc)}:${answer.cnonce}:auth:${ha2}`);
}

/** A1's hash: for MD5-sess the session key, given or computed from this answer's cnonce. */
export function digestHa1(answer: DigestAnswer): string {
  const { challenge } = answer;
  const ha1 = md5Hex(`${answer.username}:${challenge.realm}:${answer.password}`);
  if (challenge.algorithm.toUpperCase() !== 'MD5-SESS') return ha1;
  return answer.sessionKey ?? md5Hex(`${ha1}:${challenge.nonce}:${answer.cnonce}`);
}

/** The full `Authorization` header value answering a challenge. */
export function buildAuthorizationHeader(answer: DigestAnswer): string {
  const { challenge } = answer;
  const parts = [
    `username="${quote(answer.username)}"`,
    `realm="${quote(challenge.realm)}"`,
    `nonce="${quote(challenge.nonce)}"`,
    `uri="${quote(answer.uri)}"`,
    `algorithm=${challenge.algorithm}`,
    `response="${digestResponse(answer)}"`,
  ];
  if (challenge.qop.length > 0) parts.push('qop=auth', `nc=${formatNonceCount(answer.nc)}`, `cnonce="${quote(answer.cnonce)}"`);
  if (challenge.opaque !== undefined) parts.push(`opaque="${quote(challenge.opaque)}"`);
  return `Digest ${parts.join(', ')}`;
}

function quote(value: string): string {
  return value.replace(/(["\\])/g, '\\$1');
}
