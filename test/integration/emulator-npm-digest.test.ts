/**
 * Pages through both endpoints with npm Digest clients this project did not write (digest-fetch,
 * which reuses a nonce with nc counting up, and urllib), and walks the stale-nonce path.
 */
import { request as httpRequest } from 'node:http';
import DigestClient from 'digest-fetch';
import { request as urllibRequest } from 'urllib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ListEventsResponse } from '../../src/events/types.js';
import { digestResponse } from '../../src/emulator/digest-verifier.js';
import { startTestEmulator, type RunningEmulator } from '../helpers/emulator.js';

/** A bare GET with a hand-made Authorization header, to probe the verifier's edges. */
function rawGet(url: string, authorization?: string): Promise<{ status: number; wwwAuthenticate?: string; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { headers: authorization ? { authorization } : {} }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, wwwAuthenticate: res.headers['www-authenticate'], body }));
    });
    req.on('error', reject);
    req.end();
  });
}

function nonceOf(challenge: string | undefined): string {
  const match = /nonce="([^"]+)"/.exec(challenge ?? '');
  if (!match) throw new Error(`no nonce in ${challenge}`);
  return match[1] as string;
}

describe('emulator with npm Digest clients', () => {
  let emulator: RunningEmulator;
  let clock = Date.now();
  let publicKey: string;
  let privateKey: string;

  beforeAll(async () => {
    emulator = await startTestEmulator({ eventsPerScope: 1200, now: () => clock, nonceTtlSeconds: 60 });
    ({ publicKey, privateKey } = emulator.keys[0] as { publicKey: string; privateKey: string });
  });
  afterAll(() => emulator.close());

  const listUrl = (scope: string, query: string): string => {
    const [kind, id] = scope.split(':');
    return `${emulator.baseUrl}/${kind === 'org' ? 'orgs' : 'groups'}/${id}/events?${query}`;
  };

  it('digest-fetch pages through every scope with one challenge per client', async () => {
    for (const scope of emulator.dataset.scopes()) {
      const client = new DigestClient(publicKey, privateKey);
      const before = emulator.stats().challenges;
      let url: string | undefined = listUrl(scope, 'itemsPerPage=500');
      const ids: string[] = [];
      while (url) {
        const res = await client.fetch(url, { headers: { Accept: 'application/json' } });
        expect(res.status).toBe(200);
        const body = (await res.json()) as ListEventsResponse;
        ids.push(...body.results.map((event) => event.id as string));
        url = body.links.find((link) => link.rel === 'next')?.href;
      }
      expect(ids).toHaveLength(1200);
      expect(new Set(ids)).toEqual(emulator.dataset.validIds(scope));
      expect(emulator.stats().challenges - before).toBe(1);
    }
  });

  it('urllib pages through the organization feed with eventType and date filters', async () => {
    const org = emulator.dataset.scopes()[0] as string;
    const all = emulator.dataset.allEvents(org);
    const types = ['JOINED_ORG', 'INVOICE_CLOSED'];
    const minDate = all[900]?.created as string;
    const maxDate = all[100]?.created as string;
    const expected = all.filter(
      (e) => types.includes(e.eventTypeName as string) && (e.created as string) >= minDate && (e.created as string) <= maxDate,
    );
    let url: string | undefined = listUrl(
      org,
      `eventType=JOINED_ORG&eventType=INVOICE_CLOSED&minDate=${minDate}&maxDate=${maxDate}&itemsPerPage=20`,
    );
    const ids: string[] = [];
    while (url) {
      const res = await urllibRequest(url, { digestAuth: `${publicKey}:${privateKey}`, dataType: 'json' });
      expect(res.status).toBe(200);
      const body = res.data as ListEventsResponse;
      expect(body.totalCount).toBe(expected.length);
      ids.push(...body.results.map((event) => event.id as string));
      url = body.links.find((link) => link.rel === 'next')?.href;
    }
    expect(expected.length).toBeGreaterThan(20);
    expect(ids).toEqual(expected.map((e) => e.id));
  });

  it('answers an expired nonce with stale=true, and digest-fetch recovers with the same credentials', async () => {
    const group = emulator.dataset.scopes()[1] as string;
    const client = new DigestClient(publicKey, privateKey);
    expect((await client.fetch(listUrl(group, 'pageNum=1'))).status).toBe(200);
    const staleBefore = emulator.stats().staleChallenges;
    clock += 61_000;
    const res = await client.fetch(listUrl(group, 'pageNum=2'));
    expect(res.status).toBe(200);
    expect(emulator.stats().staleChallenges).toBe(staleBefore + 1);

    // The same, seen on the wire: a correct answer to an expired nonce gets stale=true.
    const path = new URL(listUrl(group, 'pageNum=3')).pathname + '?pageNum=3';
    const nonce = nonceOf((await rawGet(listUrl(group, 'pageNum=3'))).wwwAuthenticate);
    const sign = (nc: string, password = privateKey): string => {
      const response = digestResponse({
        username: publicKey,
        password,
        realm: 'MMS Public API',
        method: 'GET',
        uri: path,
        nonce,
        nc,
        cnonce: 'abc',
        qop: 'auth',
      });
      return `Digest username="${publicKey}", realm="MMS Public API", nonce="${nonce}", uri="${path}", algorithm=MD5, response="${response}", qop=auth, nc=${nc}, cnonce="abc"`;
    };
    expect((await rawGet(listUrl(group, 'pageNum=3'), sign('00000001'))).status).toBe(200);
    const replay = await rawGet(listUrl(group, 'pageNum=3'), sign('00000001'));
    expect(replay.status).toBe(401);
    expect(replay.wwwAuthenticate).toMatch(/stale=false$/);
    expect((await rawGet(listUrl(group, 'pageNum=3'), sign('00000002'))).status).toBe(200);
    expect((await rawGet(listUrl(group, 'pageNum=4'), sign('00000003'))).status).toBe(401); // uri is not the request's
    clock += 60_000;
    const stale = await rawGet(listUrl(group, 'pageNum=3'), sign('00000004'));
    expect(stale.status).toBe(401);
    expect(stale.wwwAuthenticate).toMatch(
      /^Digest realm="MMS Public API", domain="", nonce="[^"]+", algorithm=MD5, qop="auth", stale=true$/,
    );
    expect(nonceOf(stale.wwwAuthenticate)).not.toBe(nonce);
    const wrong = await rawGet(listUrl(group, 'pageNum=3'), sign('00000005', 'not-the-key'));
    expect(wrong.wwwAuthenticate).toMatch(/stale=false$/);
  });
});
