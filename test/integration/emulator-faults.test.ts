/**
 * Faults, the per-scope rate limit, live and late events, malformed events and request logging,
 * over real HTTP with an npm Digest client (digest-fetch).
 */
import DigestClient from 'digest-fetch';
import { Writable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import type { ListEventsResponse } from '../../src/events/types.js';
import { createLogger } from '../../src/logger.js';
import { parseIsoDate } from '../../src/time.js';
import { startTestEmulator, type RunningEmulator } from '../helpers/emulator.js';

describe('emulator faults', () => {
  let emulator: RunningEmulator | undefined;
  afterEach(async () => {
    await emulator?.close();
    emulator = undefined;
  });

  function clientOf(running: RunningEmulator): DigestClient {
    const key = running.keys[0] as { publicKey: string; privateKey: string };
    return new DigestClient(key.publicKey, key.privateKey);
  }
  const groupUrl = (running: RunningEmulator, index = 1, query = ''): string =>
    `${running.baseUrl}/groups/${(running.dataset.scopes()[index] as string).split(':')[1]}/events${query}`;

  it('answers 429 RATE_LIMITED with Retry-After only when configured, and 500/503', async () => {
    emulator = await startTestEmulator({ faults: { rate429: 1, retryAfterSeconds: 7 } });
    const client = clientOf(emulator);
    const limited = await client.fetch(groupUrl(emulator));
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('7');
    expect(await limited.json()).toMatchObject({ error: 429, errorCode: 'RATE_LIMITED' });
    emulator.setFaults({ retryAfterSeconds: undefined });
    const bare = await client.fetch(groupUrl(emulator));
    expect(bare.status).toBe(429);
    expect(bare.headers.get('retry-after')).toBeNull();
    emulator.setFaults({ rate429: 0, rate5xx: 1 });
    const statuses = new Set<number>();
    for (let i = 0; i < 30; i += 1) {
      const res = await client.fetch(groupUrl(emulator));
      statuses.add(res.status);
      const body = (await res.json()) as { errorCode: string };
      expect(body.errorCode).toBe(res.status === 500 ? 'UNEXPECTED_ERROR' : 'SERVICE_UNAVAILABLE');
    }
    expect([...statuses].sort()).toEqual([500, 503]);
    emulator.setFaults({ rate5xx: 0 });
    expect((await client.fetch(groupUrl(emulator))).status).toBe(200);
  });

  it('drops connections and cuts bodies short under a full Content-Length', async () => {
    emulator = await startTestEmulator({ faults: { dropRate: 1 } });
    const client = clientOf(emulator);
    await expect(client.fetch(groupUrl(emulator))).rejects.toThrow();
    expect(emulator.stats().dropped).toBe(1);
    emulator.setFaults({ dropRate: 0, cutBodyRate: 1 });
    const cut = await client.fetch(groupUrl(emulator));
    expect(cut.status).toBe(200);
    expect(Number(cut.headers.get('content-length'))).toBeGreaterThan(100);
    await expect(cut.text()).rejects.toThrow();
    expect(emulator.stats().cutBodies).toBe(1);
  });

  it('adds latency before answering', async () => {
    emulator = await startTestEmulator({ faults: { latencyMs: 120 } });
    const client = clientOf(emulator);
    await client.fetch(groupUrl(emulator)); // challenge round trip first
    const started = performance.now();
    expect((await client.fetch(groupUrl(emulator))).status).toBe(200);
    // A lower bound only: a sleep never ends early.
    expect(performance.now() - started).toBeGreaterThanOrEqual(115);
  });

  it('meters each scope per minute like the real service', async () => {
    let clock = Date.now();
    emulator = await startTestEmulator({ now: () => clock, faults: { rateLimitPerMinute: 2 } });
    const client = clientOf(emulator);
    const statuses = [];
    for (let i = 0; i < 3; i += 1) statuses.push((await client.fetch(groupUrl(emulator, 1))).status);
    expect(statuses).toEqual([200, 200, 429]);
    expect((await client.fetch(groupUrl(emulator, 2))).status).toBe(200);
    clock += 30_000;
    expect((await client.fetch(groupUrl(emulator, 1))).status).toBe(200);
    expect((await client.fetch(groupUrl(emulator, 1))).status).toBe(429);
  });

  it('adds live events while running, late ones up to N seconds in the past, visible at once', async () => {
    emulator = await startTestEmulator({ eventsPerScope: 10, liveRatePerSecond: 40, faults: { lateEventsMaxSeconds: 3600 } });
    const scope = emulator.dataset.scopes()[1] as string;
    const startedSec = Math.floor(Date.now() / 1000);
    while (emulator.dataset.count(scope) < 40) await new Promise((resolve) => setTimeout(resolve, 50));
    emulator.setLiveRate(0);
    const body = (await (await clientOf(emulator).fetch(groupUrl(emulator, 1, '?itemsPerPage=500'))).json()) as ListEventsResponse;
    const count = emulator.dataset.count(scope);
    expect(body.totalCount).toBe(count);
    const liveIds = new Set([...emulator.dataset.validIds(scope)]);
    expect(body.results.map((e) => e.id).filter((id) => liveIds.has(id as string))).toHaveLength(count);
    const created = body.results.map((e) => (parseIsoDate(e.created as string)?.getTime() ?? 0) / 1000);
    const late = created.filter((sec) => sec < startedSec - 1 && sec >= startedSec - 3601);
    expect(late.length).toBeGreaterThan(0);
    for (const scopeKey of emulator.dataset.scopes()) expect(emulator.dataset.count(scopeKey)).toBeGreaterThanOrEqual(40);
  });

  it('serves malformed events (no id, unparseable created) among the others', async () => {
    emulator = await startTestEmulator({ faults: { malformedRate: 0.2 } });
    const body = (await (await clientOf(emulator).fetch(groupUrl(emulator, 1, '?itemsPerPage=500'))).json()) as ListEventsResponse;
    expect(body.results.some((e) => e.id === undefined)).toBe(true);
    expect(body.results.some((e) => e.id !== undefined && parseIsoDate(String(e.created)) === undefined)).toBe(true);
    expect(body.results.filter((e) => e.id === undefined || parseIsoDate(String(e.created)) === undefined)).toHaveLength(
      emulator.dataset.malformedCount(emulator.dataset.scopes()[1] as string),
    );
  });

  it('logs one debug line per request without the Authorization header or the private key', async () => {
    const lines: string[] = [];
    const stream = new Writable({
      write(chunk, _encoding, done) {
        lines.push(String(chunk));
        done();
      },
    });
    emulator = await startTestEmulator({ logger: createLogger({ level: 'debug', stream }) });
    const client = clientOf(emulator);
    await client.fetch(groupUrl(emulator, 1, '?itemsPerPage=1'));
    await client.fetch(groupUrl(emulator, 1, '?itemsPerPage=2'));
    const requests = lines.map((line) => JSON.parse(line) as Record<string, unknown>).filter((entry) => entry.msg === 'emulator request');
    expect(requests.map((entry) => entry.status)).toEqual([401, 200, 200]);
    expect(requests[2]).toMatchObject({
      level: 20,
      method: 'GET',
      url: expect.stringContaining('itemsPerPage=2'),
      scope: emulator.dataset.scopes()[1],
    });
    const all = lines.join('');
    expect(all).not.toContain(emulator.keys[0]?.privateKey);
    expect(all.toLowerCase()).not.toContain('digest username');
  });
});
