/**
 * The retry table end to end over real HTTP: a scripted server (no auth) answers each request
 * with the next scripted reply, then with a good page.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { Registry } from 'prom-client';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ApiError, ApiTransientError } from '../../src/api/api-error.js';
import { EventsClient, type EventsClientOptions } from '../../src/api/client.js';
import { createApiMetrics } from '../../src/api/metrics.js';
import type { RequestBudget } from '../../src/api/request-budget.js';
import { PermanentError, RetryableError } from '../../src/errors.js';
import { createLogger } from '../../src/logger.js';
import { parseScope } from '../../src/scope.js';

type Reply = (req: IncomingMessage, res: ServerResponse) => void;

const GOOD_BODY = {
  results: [
    { id: 'e2', created: '2026-11-01T10:00:02Z', eventTypeName: 'NEW_TYPE_NOBODY_KNOWS', port: 'not-a-number' },
    { id: 'bad-created', created: 'yesterday' },
    { created: '2026-11-01T10:00:01Z' },
    { id: 'e1', created: '2026-11-01T10:00:01Z' },
  ],
  links: [{ rel: 'self', href: 'x' }],
  totalCount: 4,
};

const json =
  (status: number, body: unknown, headers: Record<string, string> = {}): Reply =>
  (_req, res) => {
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(typeof body === 'string' ? body : JSON.stringify(body));
  };
const errorBody = (status: number, errorCode: string, detail: string) => ({
  detail,
  error: status,
  errorCode,
  parameters: [],
  reason: 'x',
});

let server: Server;
let baseUrl: string;
let script: Reply[] = [];
let served: string[] = [];
let clients: EventsClient[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    served.push(req.url ?? '');
    (script.shift() ?? json(200, GOOD_BODY))(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/public/v1.0`;
});
afterEach(async () => {
  await Promise.all(clients.map((c) => c.close()));
  clients = [];
  script = [];
  served = [];
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const group = parseScope('group:g1');
const waits: number[] = [];
const pauses: Array<[string, number]> = [];
const takes: string[] = [];
const recordingBudget: RequestBudget = {
  take: async (scope) => void takes.push(scope.key),
  pause: async (scope, ms) => void pauses.push([scope.key, ms]),
};

function client(overrides: Partial<EventsClientOptions> = {}): EventsClient {
  waits.length = 0;
  pauses.length = 0;
  takes.length = 0;
  const made = new EventsClient({
    baseUrl,
    publicKey: 'pub',
    privateKey: 'priv-secret',
    budget: recordingBudget,
    retry: { maxAttempts: 4, baseDelayMs: 100, maxDelayMs: 1000, deadlineMs: 60_000 },
    sleep: async (ms) => void waits.push(ms),
    random: () => 0.5,
    ...overrides,
  });
  clients.push(made);
  return made;
}

describe('retries', () => {
  it('retries 500/502/503/504 with full-jitter backoff and returns the page', async () => {
    script = [json(500, errorBody(500, 'UNEXPECTED_ERROR', 'x')), json(502, 'bad gateway'), json(503, ''), json(504, '')];
    const registry = new Registry();
    const metrics = createApiMetrics(registry);
    const page = await client({ metrics, retry: { maxAttempts: 5, baseDelayMs: 100, maxDelayMs: 1000 } }).listEvents(group, {});
    expect(page.requests).toBe(5);
    expect(served).toHaveLength(5);
    expect(takes).toEqual(Array(5).fill('group:g1')); // one budget token per HTTP request
    expect(waits).toEqual([50, 100, 200, 400]); // random 0.5 × min(1000, 100·2^(n−1))
    expect(page.events.map((e) => e.id)).toEqual(['e2', 'e1']);
    expect(page.rejected.map((r) => r.reason)).toEqual([expect.stringMatching(/created/), expect.stringMatching(/id/)]);
    const text = await registry.metrics();
    expect(text).toMatch(/events_mirror_api_retries_total\{scope_kind="group",reason="UNEXPECTED_ERROR"\} 1/);
    expect(text).toMatch(/events_mirror_api_requests_total\{scope_kind="group",status="200"\} 1/);
    expect(text).toMatch(/events_mirror_api_request_duration_seconds_count\{scope_kind="group",status="503"\} 1/);
  });

  it('throws a RetryableError with the last status once attempts are spent', async () => {
    script = Array.from({ length: 4 }, () => json(503, errorBody(503, 'SERVICE_UNAVAILABLE', 'try later')));
    const error = await client()
      .listEvents(group, {})
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiTransientError);
    expect(error).toBeInstanceOf(RetryableError);
    expect(error).toMatchObject({ status: 503, errorCode: 'SERVICE_UNAVAILABLE', attempts: 4 });
    expect((error as Error).message).toMatch(/503 SERVICE_UNAVAILABLE: try later \(gave up after 4 attempts/);
    expect(served).toHaveLength(4);
  });

  it('stops at the total deadline', async () => {
    let clock = 0;
    script = Array.from({ length: 4 }, () => json(500, ''));
    const error = await client({
      now: () => (clock += 400),
      retry: { maxAttempts: 10, baseDelayMs: 100, maxDelayMs: 100, deadlineMs: 1000 },
    })
      .listEvents(group, {})
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RetryableError);
    expect((error as Error).message).toMatch(/retry deadline reached/);
    expect(served.length).toBeLessThan(4);
    script = [];
  });

  it('waits Retry-After on 429 and pauses the scope budget', async () => {
    script = [json(429, errorBody(429, 'RATE_LIMITED', 'slow down'), { 'retry-after': '3' })];
    const page = await client().listEvents(group, {});
    expect(page.requests).toBe(2);
    expect(waits).toEqual([3000]);
    expect(pauses).toEqual([['group:g1', 3000]]);
  });

  it('pauses the scope budget for a Retry-After longer than the retry deadline, then gives up', async () => {
    script = [json(429, errorBody(429, 'RATE_LIMITED', 'slow down'), { 'retry-after': '3600' })];
    const error = await client()
      .listEvents(group, {})
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RetryableError);
    expect((error as Error).message).toMatch(/retry deadline reached/);
    expect(served).toHaveLength(1);
    // Every worker sharing the budget now holds back for the hour the service asked for.
    expect(pauses).toEqual([['group:g1', 3_600_000]]);
  });

  it("retries every 5xx (a CDN's 520-529 too) and no 4xx but 408, 425 and 429", async () => {
    script = [501, 505, 507, 520, 522, 524, 529].map((status) => json(status, ''));
    const page = await client({ retry: { maxAttempts: 10, baseDelayMs: 1, maxDelayMs: 1 } }).listEvents(group, {});
    expect(page.requests).toBe(8);
    for (const status of [405, 409, 410, 422]) {
      served = [];
      script = [json(status, errorBody(status, 'NOPE', 'no'))];
      const error = await client()
        .listEvents(group, {})
        .catch((e: unknown) => e);
      expect(error, `HTTP ${status}`).toBeInstanceOf(PermanentError);
      expect(served).toHaveLength(1);
    }
  });

  it('backs off on 429 without Retry-After', async () => {
    script = [json(429, ''), json(429, '')];
    await client().listEvents(group, {});
    expect(waits).toEqual([50, 100]);
    expect(pauses).toEqual([
      ['group:g1', 50],
      ['group:g1', 100],
    ]);
  });

  it('logs TIMEOUT_WHILE_PAGING on a line of its own and retries it', async () => {
    const lines: string[] = [];
    const logger = createLogger({
      level: 'info',
      stream: new Writable({
        write: (chunk, _enc, done) => {
          lines.push(String(chunk));
          done();
        },
      }),
    });
    script = [json(500, errorBody(500, 'TIMEOUT_WHILE_PAGING', 'paging timed out'))];
    const page = await client({ logger }).listEvents(group, { pageNum: 435 });
    expect(page.requests).toBe(2);
    expect(lines.some((l) => /keep windows shallow/.test(l) && /"level":40/.test(l))).toBe(true);
  });

  it.each([
    ['a body that is not JSON', json(200, '{"results": [ {"id": "e'), 'BODY_NOT_JSON'],
    ['results that is not an array', json(200, { results: 'x', totalCount: 1, links: [] }), 'MALFORMED_RESPONSE'],
    [
      'a body cut short',
      ((_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': '5000' });
        res.write('{"results": [');
        setTimeout(() => res.destroy(), 5);
      }) as Reply,
      undefined,
    ],
    ['a connection reset', ((req) => req.socket.destroy()) as Reply, undefined],
  ])('retries %s', async (_name, reply, code) => {
    script = [reply];
    const registry = new Registry();
    const page = await client({ metrics: createApiMetrics(registry) }).listEvents(group, {});
    expect(page.requests).toBe(2);
    expect(page.events).toHaveLength(2);
    if (code) expect(await registry.metrics()).toContain(`reason="${code}"`);
  });

  it('retries a response that does not arrive within the request timeout', async () => {
    script = [(_req, res) => setTimeout(() => json(200, GOOD_BODY)(_req, res), 1500)];
    const page = await client({ requestTimeoutMs: 300 }).listEvents(group, {});
    expect(page.requests).toBe(2);
  });
});

describe('permanent failures', () => {
  it.each([
    [400, 'INVALID_DATE_RANGE', 'maxDate is before minDate.'],
    [401, 'USER_CANNOT_ACCESS_GROUP', 'The current user cannot access group g1.'],
    [403, 'IP_ADDRESS_NOT_ON_WHITELIST', 'IP address 10.0.0.1 is not allowed.'],
    [404, 'GROUP_NOT_FOUND', 'No group with ID g1 exists.'],
  ])('%i %s is permanent after one request, with status, code and detail', async (status, errorCode, detail) => {
    script = [json(status, errorBody(status, errorCode, detail))];
    const error = await client()
      .listEvents(group, {})
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toBeInstanceOf(PermanentError);
    expect(error).toMatchObject({ status, errorCode, detail, method: 'GET', scope: 'group:g1', code: `API_${errorCode}` });
    // Codes a person can act on carry the fix in parentheses after the service's detail.
    expect((error as Error).message).toMatch(
      new RegExp(
        `^GET /groups/g1/events\\?pageNum=1&itemsPerPage=500 for group:g1 failed: ${status} ${errorCode}: ${detail.replace(/\./g, '\\.')}( \\(.+\\))?$`,
      ),
    );
    expect(served).toHaveLength(1);
  });

  it('reads the envelope form: a list with status, and an error as 200 {status, content}', async () => {
    script = [json(200, { ...GOOD_BODY, status: 200 }), json(200, { status: 404, content: errorBody(404, 'GROUP_NOT_FOUND', 'gone') })];
    const c = client();
    const page = await c.listEvents(group, { envelope: true });
    expect(page.events).toHaveLength(2);
    expect(served[0]).toMatch(/envelope=true/);
    await expect(c.listEvents(group, { envelope: true })).rejects.toMatchObject({ status: 404, errorCode: 'GROUP_NOT_FOUND' });
  });

  it('stops waiting when the caller aborts', async () => {
    script = [json(503, '')];
    const controller = new AbortController();
    const pending = client({
      sleep: (_ms, signal) => new Promise((_resolve, reject) => signal?.addEventListener('abort', () => reject(signal.reason as Error))),
    }).listEvents(group, {}, controller.signal);
    await new Promise((resolve) => setTimeout(resolve, 50));
    controller.abort();
    await expect(pending).rejects.toThrow(/abort/i);
  });
});
