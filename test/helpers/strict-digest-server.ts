/**
 * A Digest server stricter than most, written from RFC 7616 independently of the client: one
 * nonce for its lifetime; every `nc` must be higher than any seen for it, and a lower or repeated
 * one is answered with a new challenge carrying the same nonce (stale=false), as some servers do;
 * optionally it refuses the first answer to its nonce that way; and with MD5-sess the session key
 * is fixed by the first answer's cnonce (§3.4.2), not recomputed per request.
 */
import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface StrictDigestServer {
  readonly baseUrl: string;
  readonly stats: { accepted: number; refusedNc: number; badResponse: number };
  close(): Promise<void>;
}

const md5 = (text: string) => createHash('md5').update(text).digest('hex');

export async function startStrictDigestServer(options: {
  readonly username: string;
  readonly password: string;
  readonly algorithm: 'MD5' | 'MD5-sess';
  readonly refuseFirstAnswer: boolean;
}): Promise<StrictDigestServer> {
  const realm = 'strict';
  const nonce = md5(`${Date.now()}:${Math.random()}`);
  let highestNc = 0;
  let answers = 0;
  let sessionCnonce: string | undefined;
  const stats = { accepted: 0, refusedNc: 0, badResponse: 0 };
  const challenge = (res: import('node:http').ServerResponse) => {
    res.writeHead(401, {
      'www-authenticate': `Digest realm="${realm}", nonce="${nonce}", qop="auth", algorithm=${options.algorithm}, stale=false`,
      'content-type': 'application/json',
    });
    res.end(JSON.stringify({ error: 401, errorCode: 'UNAUTHORIZED', detail: 'digest', reason: 'Unauthorized', parameters: [] }));
  };
  const server: Server = createServer((req, res) => {
    const header = req.headers.authorization;
    if (!header?.startsWith('Digest ')) return challenge(res);
    const fields = Object.fromEntries(
      [...header.slice(7).matchAll(/(\w+)=(?:"((?:[^"\\]|\\.)*)"|([^,\s]+))/g)].map((m) => [m[1]!, m[2] ?? m[3]!]),
    );
    const nc = Number.parseInt(fields.nc ?? '0', 16);
    answers += 1;
    sessionCnonce ??= fields.cnonce;
    const refuseAsFirst = options.refuseFirstAnswer && answers === 1;
    if (fields.nonce !== nonce || nc <= highestNc || refuseAsFirst) {
      highestNc = Math.max(highestNc, nc);
      stats.refusedNc += 1;
      return challenge(res);
    }
    highestNc = nc;
    let ha1 = md5(`${options.username}:${realm}:${options.password}`);
    if (options.algorithm === 'MD5-sess') ha1 = md5(`${ha1}:${nonce}:${sessionCnonce}`);
    const expected = md5(`${ha1}:${nonce}:${fields.nc}:${fields.cnonce}:auth:${md5(`${req.method}:${fields.uri}`)}`);
    if (fields.username !== options.username || fields.response !== expected || fields.uri !== req.url) {
      stats.badResponse += 1;
      return challenge(res);
    }
    stats.accepted += 1;
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ results: [{ id: `e${stats.accepted}`, created: '2026-11-01T00:00:00Z' }], links: [], totalCount: 1 }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/public/v1.0`,
    stats,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
