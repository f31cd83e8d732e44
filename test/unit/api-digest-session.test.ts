import { describe, expect, it } from 'vitest';
import { parseDigestChallenge } from '../../src/api/digest.js';
import { DigestSession, judgeChallenge } from '../../src/api/digest-session.js';

const challenge = (nonce: string, stale = false) =>
  parseDigestChallenge(`Digest realm="MMS Public API", nonce="${nonce}", algorithm=MD5, qop="auth", stale=${stale}`)!;

describe('DigestSession', () => {
  it('sends nothing before a challenge; answers a new challenge privately with nc=1, then shares it', () => {
    let n = 0;
    const session = new DigestSession({ username: 'pub', password: 'secret' }, { cnonce: () => `c${++n}` });
    expect(session.authorize('GET', '/x')).toBeUndefined();
    const answer = session.answer(challenge('n1'), 'GET', '/x');
    expect(answer).toMatchObject({ nonce: 'n1', nc: 1, shared: false });
    expect(answer.header).toContain('nc=00000001');
    expect(session.authorize('GET', '/x')).toBeUndefined(); // not shared before the server accepted it
    session.confirm(answer);
    const second = session.authorize('GET', '/x')!;
    const third = session.authorize('GET', '/x')!;
    expect([second.nc, third.nc]).toEqual([2, 3]);
    expect(second.header).toContain('nc=00000002');
    expect(second.header).toContain('cnonce="c2"');
    expect(third.header).toContain('cnonce="c3"');
  });

  it('keeps counting when a challenge repeats the shared nonce, and restarts for a new one', () => {
    const session = new DigestSession({ username: 'pub', password: 'secret' });
    session.confirm(session.answer(challenge('n1'), 'GET', '/x'));
    session.authorize('GET', '/x');
    const again = session.answer(challenge('n1'), 'GET', '/x');
    expect(again).toMatchObject({ nonce: 'n1', nc: 3, shared: true });
    const fresh = session.answer(challenge('n2'), 'GET', '/x');
    expect(session.authorize('GET', '/x')).toMatchObject({ nonce: 'n1', nc: 4 });
    session.confirm(fresh);
    expect(session.authorize('GET', '/x')).toMatchObject({ nonce: 'n2', nc: 2 });
    expect(session.nonce).toBe('n2');
  });

  it('gives concurrent requests distinct nc values', () => {
    const session = new DigestSession({ username: 'pub', password: 'secret' });
    session.confirm(session.answer(challenge('n'), 'GET', '/x'));
    const ncs = Array.from({ length: 50 }, () => session.authorize('GET', '/x')!.nc);
    expect(new Set(ncs).size).toBe(50);
  });

  it('keeps the password out of inspect and JSON', async () => {
    const session = new DigestSession({ username: 'pub', password: 'very-secret-pw' });
    session.confirm(session.answer(challenge('n'), 'GET', '/x'));
    const { inspect } = await import('node:util');
    expect(inspect(session, { depth: Infinity })).not.toContain('very-secret-pw');
    expect(JSON.stringify(session)).not.toContain('very-secret-pw');
  });
});

describe('judgeChallenge', () => {
  const sent = (nonce: string) => ({ header: 'x', nonce, nc: 1, challenge: challenge(nonce), shared: true });
  it('classifies each 401', () => {
    expect(judgeChallenge(challenge('a'), undefined, undefined)).toBe('initial');
    expect(judgeChallenge(challenge('b', true), sent('a'), 'a')).toBe('stale');
    expect(judgeChallenge(challenge('b'), sent('a'), 'a')).toBe('rejected');
    expect(judgeChallenge(challenge('b'), sent('old'), undefined)).toBe('renewed');
    expect(judgeChallenge(challenge('c'), sent('old'), 'b')).toBe('renewed');
  });

  it('answers a re-challenge with the same nonce again (a refused nc), and a private one only once', () => {
    expect(judgeChallenge(challenge('a'), sent('a'), 'a')).toBe('recount');
    expect(judgeChallenge(challenge('a'), sent('a'), 'a', true)).toBe('recount'); // shared: the key is proven
    const own = { ...sent('a'), shared: false };
    expect(judgeChallenge(challenge('a'), own, 'a')).toBe('recount');
    expect(judgeChallenge(challenge('a'), own, 'a', true)).toBe('rejected');
  });
});
