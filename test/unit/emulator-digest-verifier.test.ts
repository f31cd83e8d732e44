import { describe, expect, it } from 'vitest';
import { DIGEST_REALM, DigestVerifier, digestResponse, parseDigestAuthorization } from '../../src/emulator/digest-verifier.js';

const T0 = Date.UTC(2026, 10, 1, 12, 0, 0);
const USER = 'abcdefgh';
const PASSWORD = '0a1b2c3d-0000-4000-8000-123456789abc';
const URI = '/api/public/v1.0/groups/g1/events?pageNum=1&itemsPerPage=500';

function setup(ttlSeconds = 60) {
  let clock = T0;
  const verifier = new DigestVerifier({
    nonceTtlSeconds: ttlSeconds,
    now: () => clock,
    passwordOf: (user) => (user === USER ? PASSWORD : undefined),
  });
  return { verifier, advance: (ms: number) => (clock += ms) };
}

function header(fields: {
  nonce: string;
  nc?: string;
  uri?: string;
  password?: string;
  username?: string;
  realm?: string;
  qop?: string;
  algorithm?: string;
}): string {
  const nc = fields.nc ?? '00000001';
  const uri = fields.uri ?? URI;
  const username = fields.username ?? USER;
  const realm = fields.realm ?? DIGEST_REALM;
  const qop = fields.qop ?? 'auth';
  const response = digestResponse({
    username,
    password: fields.password ?? PASSWORD,
    realm,
    method: 'GET',
    uri,
    nonce: fields.nonce,
    nc,
    cnonce: 'c0ffee',
    qop,
  });
  return (
    `Digest username="${username}", realm="${realm}", nonce="${fields.nonce}", uri="${uri}", ` +
    `algorithm=${fields.algorithm ?? 'MD5'}, response="${response}", qop=${qop}, nc=${nc}, cnonce="c0ffee"`
  );
}

describe('digestResponse', () => {
  it('matches the worked example of RFC 2617 section 3.5', () => {
    expect(
      digestResponse({
        username: 'Mufasa',
        password: 'Circle Of Life',
        realm: 'testrealm@host.com',
        method: 'GET',
        uri: '/dir/index.html',
        nonce: 'dcd98b7102dd2f0e8b11d0f600bfb0c093',
        nc: '00000001',
        cnonce: '0a4f113b',
        qop: 'auth',
      }),
    ).toBe('6629fae49393a05397450978507c4ef1');
  });
});

describe('parseDigestAuthorization', () => {
  it('reads quoted values with commas and escapes, and bare tokens', () => {
    const fields = parseDigestAuthorization('Digest username="a\\"b", uri="/x?a=1,2", nc=00000002, qop=auth');
    expect(fields?.get('username')).toBe('a"b');
    expect(fields?.get('uri')).toBe('/x?a=1,2');
    expect(fields?.get('nc')).toBe('00000002');
    expect(fields?.get('qop')).toBe('auth');
  });

  it('returns undefined for another scheme or no header', () => {
    expect(parseDigestAuthorization('Basic YTpi')).toBeUndefined();
    expect(parseDigestAuthorization(undefined)).toBeUndefined();
  });
});

describe('DigestVerifier', () => {
  it('issues the challenge exactly as the service does', () => {
    const { verifier } = setup();
    expect(verifier.challenge(false)).toMatch(
      /^Digest realm="MMS Public API", domain="", nonce="[A-Za-z0-9+/]{32}", algorithm=MD5, qop="auth", stale=false$/,
    );
    expect(verifier.challenge(true)).toMatch(/, stale=true$/);
  });

  it('accepts a correct response and increasing nc on one nonce', () => {
    const { verifier } = setup();
    const nonce = verifier.issueNonce();
    expect(verifier.verify('GET', URI, header({ nonce }))).toEqual({ ok: true, username: USER });
    expect(verifier.verify('GET', URI, header({ nonce, nc: '00000002' })).ok).toBe(true);
    expect(verifier.verify('GET', URI, header({ nonce, nc: '0000000a' })).ok).toBe(true);
  });

  it('refuses a replayed or non-increasing nc with stale=false', () => {
    const { verifier } = setup();
    const nonce = verifier.issueNonce();
    expect(verifier.verify('GET', URI, header({ nonce, nc: '00000005' })).ok).toBe(true);
    expect(verifier.verify('GET', URI, header({ nonce, nc: '00000005' }))).toMatchObject({ ok: false, stale: false });
    expect(verifier.verify('GET', URI, header({ nonce, nc: '00000003' }))).toMatchObject({ ok: false, stale: false });
  });

  it('answers an expired nonce with a correct response stale=true, and a wrong one stale=false', () => {
    const { verifier, advance } = setup(60);
    const nonce = verifier.issueNonce();
    advance(59_999);
    expect(verifier.verify('GET', URI, header({ nonce })).ok).toBe(true);
    advance(1);
    expect(verifier.verify('GET', URI, header({ nonce, nc: '00000002' }))).toMatchObject({ ok: false, stale: true });
    expect(verifier.verify('GET', URI, header({ nonce, nc: '00000003', password: 'wrong' }))).toMatchObject({ ok: false, stale: false });
  });

  it('refuses wrong password, unknown user, other uri, realm, qop, algorithm and forged nonces', () => {
    const { verifier } = setup();
    const nonce = verifier.issueNonce();
    const refused = (authorization: string | undefined, uri = URI) => verifier.verify('GET', uri, authorization);
    expect(refused(header({ nonce, password: 'nope' }))).toMatchObject({ ok: false, stale: false });
    expect(refused(header({ nonce, username: 'someone' }))).toMatchObject({ ok: false, stale: false });
    expect(refused(header({ nonce }), `${URI}&pretty=true`)).toMatchObject({ ok: false, reason: 'uri does not match the request' });
    expect(refused(header({ nonce, realm: 'other' }))).toMatchObject({ ok: false });
    expect(refused(header({ nonce, qop: 'auth-int' }))).toMatchObject({ ok: false });
    expect(refused(header({ nonce, algorithm: 'SHA-256' }))).toMatchObject({ ok: false });
    expect(refused(header({ nonce: 'dcd98b7102dd2f0e8b11d0f600bfb0c093' }))).toMatchObject({ ok: false, stale: false });
    const tampered = `${nonce.slice(0, 10)}${nonce[10] === 'A' ? 'B' : 'A'}${nonce.slice(11)}`;
    expect(refused(header({ nonce: tampered }))).toMatchObject({ ok: false, stale: false });
    expect(refused(undefined)).toMatchObject({ ok: false, stale: false });
    // A nonce of another verifier (another secret) is not ours.
    const other = setup().verifier.issueNonce();
    expect(refused(header({ nonce: other }))).toMatchObject({ ok: false, stale: false });
  });

  it('compares the response case-insensitively as hex', () => {
    const { verifier } = setup();
    const nonce = verifier.issueNonce();
    const upper = header({ nonce }).replace(/response="([0-9a-f]+)"/, (_m, hex: string) => `response="${hex.toUpperCase()}"`);
    expect(verifier.verify('GET', URI, upper).ok).toBe(true);
  });
});
