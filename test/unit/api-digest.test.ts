import { describe, expect, it } from 'vitest';
import {
  buildAuthorizationHeader,
  digestResponse,
  formatNonceCount,
  isSupportedChallenge,
  parseDigestChallenge,
  parseDigestChallenges,
  type DigestChallenge,
} from '../../src/api/digest.js';

describe('digest maths on the RFC worked examples', () => {
  it('RFC 2617 §3.5 (Mufasa, "Circle Of Life")', () => {
    const challenge: DigestChallenge = {
      realm: 'testrealm@host.com',
      nonce: 'dcd98b7102dd2f0e8b11d0f600bfb0c093',
      qop: ['auth', 'auth-int'],
      algorithm: 'MD5',
      opaque: '5ccc069c403ebaf9f0171e9517f40e41',
      stale: false,
    };
    const answer = {
      username: 'Mufasa',
      password: 'Circle Of Life',
      method: 'GET',
      uri: '/dir/index.html',
      challenge,
      nc: 1,
      cnonce: '0a4f113b',
    };
    expect(digestResponse(answer)).toBe('6629fae49393a05397450978507c4ef1');
    const header = buildAuthorizationHeader(answer);
    expect(header).toContain('response="6629fae49393a05397450978507c4ef1"');
    expect(header).toContain('nc=00000001');
    expect(header).toContain('qop=auth,');
    expect(header).toContain('opaque="5ccc069c403ebaf9f0171e9517f40e41"');
    expect(header).toMatch(/^Digest username="Mufasa", realm="testrealm@host.com"/);
  });

  it('RFC 7616 §3.9.1 MD5 example', () => {
    const header =
      'Digest realm="http-auth@example.org", qop="auth, auth-int", algorithm=SHA-256, ' +
      'nonce="7ypf/xlj9XXwfDPEoM4URrv/xwf94BcCAzFZH4GiTo0v", opaque="FQhe/qaU925kfnzjCev0ciny7QMkPqMAFRtzCUYo5tdS", ' +
      'Digest realm="http-auth@example.org", qop="auth, auth-int", algorithm=MD5, ' +
      'nonce="7ypf/xlj9XXwfDPEoM4URrv/xwf94BcCAzFZH4GiTo0v", opaque="FQhe/qaU925kfnzjCev0ciny7QMkPqMAFRtzCUYo5tdS"';
    const challenge = parseDigestChallenge(header)!;
    // The SHA-256 challenge comes first; the MD5 one is the one this client picks.
    expect(parseDigestChallenges(header).map((c) => c.algorithm)).toEqual(['SHA-256', 'MD5']);
    expect(isSupportedChallenge(parseDigestChallenges(header)[0]!)).toBe(false);
    const md5 = challenge;
    expect(md5.algorithm).toBe('MD5');
    expect(md5.nonce).toBe('7ypf/xlj9XXwfDPEoM4URrv/xwf94BcCAzFZH4GiTo0v');
    expect(md5.qop).toEqual(['auth', 'auth-int']);
    expect(md5.opaque).toBe('FQhe/qaU925kfnzjCev0ciny7QMkPqMAFRtzCUYo5tdS');
    const response = digestResponse({
      username: 'Mufasa',
      password: 'Circle of Life',
      method: 'GET',
      uri: '/dir/index.html',
      challenge: md5,
      nc: 1,
      cnonce: 'f2/wE4q74E6zIJEtWaHKaf5wv/H5QzzpXusqGemxURZJ',
    });
    expect(response).toBe('8ca523f5e9506fed4657c9700eebdbec');
  });
});

describe('parseDigestChallenge', () => {
  it('reads the service challenge, including its quoted and unquoted forms', () => {
    const c = parseDigestChallenge('Digest realm="MMS Public API", domain="", nonce="abc+/=", algorithm=MD5, qop="auth", stale=false')!;
    expect(c).toEqual({ realm: 'MMS Public API', nonce: 'abc+/=', qop: ['auth'], algorithm: 'MD5', opaque: undefined, stale: false });
  });

  it('reads stale=true quoted or not, and the documentation\'s "op" misspelling', () => {
    expect(parseDigestChallenge('Digest realm="r", nonce="n", op="auth", stale="true"')).toMatchObject({ stale: true, qop: ['auth'] });
    expect(parseDigestChallenge('Digest realm="r", nonce="n", stale=TRUE')!.stale).toBe(true);
  });

  it('finds Digest after another scheme and handles escaped quotes and commas', () => {
    const c = parseDigestChallenge('Basic realm="x", Digest realm="a \\"b\\", c", nonce="n1", qop="auth"')!;
    expect(c.realm).toBe('a "b", c');
    expect(c.nonce).toBe('n1');
  });

  it('returns undefined without a Digest challenge or a nonce', () => {
    expect(parseDigestChallenge(undefined)).toBeUndefined();
    expect(parseDigestChallenge('Basic realm="x"')).toBeUndefined();
    expect(parseDigestChallenge('Digest realm="x"')).toBeUndefined();
  });

  it('formats nc as eight hex digits', () => {
    expect(formatNonceCount(1)).toBe('00000001');
    expect(formatNonceCount(255)).toBe('000000ff');
  });
});
