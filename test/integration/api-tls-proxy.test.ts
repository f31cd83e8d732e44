/**
 * TLS and proxies over real sockets: a local HTTPS server with a certificate generated at test
 * time (openssl), EVENTS_API_CA_FILE trusting it, verification off only on request, and a local
 * CONNECT proxy used (or bypassed through noProxy) from explicit options.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer as createHttpServer, type Server as HttpServer } from 'node:http';
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import { connect, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError } from '../../src/api/api-error.js';
import { EventsClient, type EventsClientOptions } from '../../src/api/client.js';
import { unlimitedRequestBudget } from '../../src/api/request-budget.js';
import { createLogger } from '../../src/logger.js';
import { parseScope } from '../../src/scope.js';

const BODY = JSON.stringify({ results: [{ id: 'e1', created: '2026-11-01T00:00:00Z' }], links: [], totalCount: 1 });
let dir: string;
let caFile: string;
let https: HttpsServer;
let proxy: HttpServer;
let baseUrl: string;
let proxyUrl: string;
const tunnels: string[] = [];

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'events-mirror-tls-'));
  caFile = path.join(dir, 'cert.pem');
  const keyFile = path.join(dir, 'key.pem');
  const made = spawnSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-days',
      '1',
      '-subj',
      '/CN=127.0.0.1',
      '-addext',
      'subjectAltName=IP:127.0.0.1',
      '-keyout',
      keyFile,
      '-out',
      caFile,
    ],
    { encoding: 'utf8' },
  );
  if (made.status !== 0) throw new Error(`openssl failed: ${made.stderr}`);
  https = createHttpsServer({ key: readFileSync(keyFile), cert: readFileSync(caFile) }, (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(BODY);
  });
  await new Promise<void>((resolve) => https.listen(0, '127.0.0.1', resolve));
  baseUrl = `https://127.0.0.1:${(https.address() as AddressInfo).port}/api/public/v1.0`;
  proxy = createHttpServer();
  proxy.on('connect', (req, clientSocket, head) => {
    tunnels.push(req.url ?? '');
    const [host, port] = (req.url ?? '').split(':');
    const upstream = connect(Number(port), host, () => {
      clientSocket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      upstream.write(head);
      upstream.pipe(clientSocket);
      clientSocket.pipe(upstream);
    });
    upstream.on('error', () => clientSocket.destroy());
    clientSocket.on('error', () => upstream.destroy());
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
});
afterAll(async () => {
  https.closeAllConnections();
  proxy.closeAllConnections();
  await Promise.all([new Promise((r) => https.close(r)), new Promise((r) => proxy.close(r))]);
  rmSync(dir, { recursive: true, force: true });
});

const g1 = parseScope('group:g1');
async function fetchOnce(options: Partial<EventsClientOptions>): Promise<unknown> {
  const client = new EventsClient({
    baseUrl,
    publicKey: 'p',
    privateKey: 'k',
    budget: unlimitedRequestBudget(),
    retry: { maxAttempts: 2, baseDelayMs: 1, maxDelayMs: 1 },
    ...options,
  });
  try {
    return await client.listEvents(g1, {});
  } catch (error) {
    return error;
  } finally {
    await client.close();
  }
}

describe('TLS', () => {
  it('refuses an unknown certificate authority, permanently, pointing at EVENTS_API_CA_FILE', async () => {
    const error = await fetchOnce({});
    expect(error).toBeInstanceOf(ApiError);
    expect((error as Error).message).toMatch(/EVENTS_API_CA_FILE/);
  });

  it('trusts the CA file', async () => {
    expect(await fetchOnce({ caFile })).toMatchObject({ events: [{ id: 'e1' }] });
  });

  it('skips verification only when asked, with a loud warning', async () => {
    const lines: string[] = [];
    const logger = createLogger({
      level: 'warn',
      stream: new Writable({
        write: (c, _e, done) => {
          lines.push(String(c));
          done();
        },
      }),
    });
    expect(await fetchOnce({ insecureSkipTlsVerify: true, logger })).toMatchObject({ events: [{ id: 'e1' }] });
    expect(lines.join('')).toMatch(/TLS CERTIFICATE VERIFICATION IS OFF/);
  });
});

describe('proxy', () => {
  it('tunnels through the configured HTTPS proxy', async () => {
    tunnels.length = 0;
    expect(await fetchOnce({ caFile, httpsProxy: proxyUrl })).toMatchObject({ events: [{ id: 'e1' }] });
    expect(tunnels).toEqual([`127.0.0.1:${(https.address() as AddressInfo).port}`]);
  });

  it('goes direct for hosts in noProxy', async () => {
    tunnels.length = 0;
    expect(await fetchOnce({ caFile, httpsProxy: proxyUrl, noProxy: '127.0.0.1' })).toMatchObject({ events: [{ id: 'e1' }] });
    expect(tunnels).toEqual([]);
  });
});
