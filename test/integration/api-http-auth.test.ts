/**
 * The client against an independent Digest server: the `http-auth` package wrapped around a small
 * node:http server that serves a canned events list.
 */
import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ApiCredentialsError, ApiError } from '../../src/api/api-error.js';
import { EventsClient } from '../../src/api/client.js';
import { unlimitedRequestBudget } from '../../src/api/request-budget.js';
import { parseScope } from '../../src/scope.js';

interface DigestAuth {
  check(handler: (req: IncomingMessage, res: ServerResponse) => void): (req: IncomingMessage, res: ServerResponse) => void;
}
const auth = createRequire(import.meta.url)('http-auth') as { digest(options: { realm: string; file: () => string }): DigestAuth };

const REALM = 'MMS Public API';
const PUBLIC_KEY = 'pubkey-httpauth';
const PRIVATE_KEY = 'priv-7c1f0e42-aa51-4c7b-9d2e';
const md5 = (text: string) => createHash('md5').update(text).digest('hex');

const EVENTS = Array.from({ length: 7 }, (_, i) => ({
  id: `ev${String(7 - i).padStart(2, '0')}`,
  created: new Date(Date.UTC(2026, 10, 1, 12, 0, 7 - i)).toISOString().replace('.000Z', 'Z'),
  eventTypeName: 'DATA_EXPLORER',
  groupId: 'g1',
  extra: { kept: true },
}));

interface Fixture {
  server: Server;
  baseUrl: string;
  requests: string[];
  /** Replaces the Digest state, as if the server restarted and forgot its nonces. */
  restart(): void;
}

async function startServer(): Promise<Fixture> {
  const requests: string[] = [];
  const serve = (req: IncomingMessage, res: ServerResponse): void => {
    const url = new URL(req.url ?? '/', 'http://x');
    const match = /^\/api\/public\/v1\.0\/groups\/([^/]+)\/events$/.exec(url.pathname);
    res.setHeader('content-type', 'application/json');
    if (!match || match[1] !== 'g1') {
      res.statusCode = 404;
      res.end(
        JSON.stringify({
          detail: `No group with ID ${match?.[1]} exists.`,
          error: 404,
          errorCode: 'GROUP_NOT_FOUND',
          parameters: [match?.[1]],
          reason: 'Not Found',
        }),
      );
      return;
    }
    const pageNum = Number(url.searchParams.get('pageNum') ?? 1);
    const itemsPerPage = Number(url.searchParams.get('itemsPerPage') ?? 100);
    const results = EVENTS.slice((pageNum - 1) * itemsPerPage, pageNum * itemsPerPage);
    const links = [{ rel: 'self', href: `http://x${req.url}` }];
    if (pageNum * itemsPerPage < EVENTS.length) links.push({ rel: 'next', href: 'http://x/next' });
    res.end(JSON.stringify({ results, links, totalCount: EVENTS.length }));
  };
  let handler = makeHandler();
  function makeHandler() {
    const digest = auth.digest({ realm: REALM, file: () => `${PUBLIC_KEY}:${REALM}:${md5(`${PUBLIC_KEY}:${REALM}:${PRIVATE_KEY}`)}` });
    return digest.check(serve);
  }
  const server = createServer((req, res) => {
    requests.push(`${req.url} ${req.headers.authorization ? 'auth' : 'none'}`);
    handler(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { server, baseUrl: `http://127.0.0.1:${port}/api/public/v1.0`, requests, restart: () => (handler = makeHandler()) };
}

const group = parseScope('group:g1');
let fixture: Fixture;
let clients: EventsClient[] = [];

function client(privateKey = PRIVATE_KEY): EventsClient {
  const made = new EventsClient({
    baseUrl: fixture.baseUrl,
    publicKey: PUBLIC_KEY,
    privateKey,
    itemsPerPage: 3,
    budget: unlimitedRequestBudget(),
    retry: { maxAttempts: 3, baseDelayMs: 1, maxDelayMs: 5 },
  });
  clients.push(made);
  return made;
}

beforeEach(async () => {
  fixture = await startServer();
});
afterEach(async () => {
  await Promise.all(clients.map((c) => c.close()));
  clients = [];
  await new Promise((resolve) => fixture.server.close(resolve));
});

describe('EventsClient against http-auth Digest', () => {
  it('pages a window with one challenge in total, reusing the nonce with nc counting up', async () => {
    const pages = [];
    for await (const page of client().pages(group, {
      minDate: new Date('2026-11-01T00:00:00Z'),
      maxDate: new Date('2026-11-02T00:00:00Z'),
    })) {
      pages.push(page);
    }
    expect(pages.map((p) => p.pageNum)).toEqual([1, 2, 3]);
    expect(pages.flatMap((p) => p.events.map((e) => e.id))).toEqual(EVENTS.map((e) => e.id));
    expect(pages[0]!.events[0]!.payload).toEqual(EVENTS[0]);
    expect(pages.map((p) => p.requests)).toEqual([2, 1, 1]);
    expect(pages.every((p) => p.totalCount === 7 && p.bytes > 0)).toBe(true);
    expect(fixture.requests).toHaveLength(4);
    expect(fixture.requests[0]).toMatch(/pageNum=1&itemsPerPage=3&minDate=2026-11-01T00:00:00Z&maxDate=2026-11-02T00:00:00Z none$/);
  });

  it('answers concurrent requests with distinct nc values (stale answers re-sent, none failing)', async () => {
    const shared = client();
    await shared.listEvents(group, { pageNum: 1 });
    const results = await Promise.all(Array.from({ length: 12 }, (_, i) => shared.listEvents(group, { pageNum: (i % 3) + 1 })));
    expect(results.map((p) => p.events.length)).toEqual(Array.from({ length: 12 }, (_, i) => [3, 3, 1][i % 3]));
    // http-auth answers an nc that arrives out of order with stale=true; every extra request is such a re-send.
    const total = results.reduce((sum, p) => sum + p.requests, 0);
    expect(fixture.requests).toHaveLength(2 + total);
  });

  it('takes a new nonce once when the server forgot the cached one', async () => {
    const shared = client();
    await shared.listEvents(group, { pageNum: 1 });
    fixture.restart();
    const page = await shared.listEvents(group, { pageNum: 2 });
    expect(page.requests).toBe(2);
    expect(page.events.map((e) => e.id)).toEqual(['ev04', 'ev03', 'ev02']);
  });

  it('reports a wrong private key as a permanent credential failure naming the public key', async () => {
    const error = await client('wrong-private-key')
      .listEvents(group, { pageNum: 1 })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiCredentialsError);
    const failure = error as ApiCredentialsError;
    expect(failure.status).toBe(401);
    expect(failure.message).toContain(PUBLIC_KEY);
    expect(failure.message).not.toContain('wrong-private-key');
    expect(fixture.requests).toHaveLength(2); // the challenge and one answer; no retries
  });

  it('reports an unknown group as a permanent 404 with the service detail', async () => {
    const error = await client()
      .listEvents(parseScope('group:abc'), { pageNum: 2, itemsPerPage: 500 })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).message).toBe(
      'GET /groups/abc/events?pageNum=2&itemsPerPage=500 for group:abc failed: 404 GROUP_NOT_FOUND: No group with ID abc exists. ' +
        '(no project has this id: fix the scope in EVENTS_SCOPES or --scope)',
    );
    expect(error).toMatchObject({ status: 404, errorCode: 'GROUP_NOT_FOUND', scope: 'group:abc', method: 'GET' });
    expect((error as ApiError).url).toBe(`${fixture.baseUrl}/groups/abc/events?pageNum=2&itemsPerPage=500`);
  });
});
