/**
 * No log line, error message or thrown object carries the private key or an Authorization header,
 * across a wrong key, a 404, 5xx until retries are spent, dropped connections and a success.
 */
import { Writable } from 'node:stream';
import { inspect } from 'node:util';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EventsClient } from '../../src/api/client.js';
import { createApiMetrics } from '../../src/api/metrics.js';
import { unlimitedRequestBudget } from '../../src/api/request-budget.js';
import { startEmulator, type RunningEmulator } from '../../src/emulator/server.js';
import { createLogger } from '../../src/logger.js';
import { parseScope } from '../../src/scope.js';

const PRIVATE_KEY = 'PRIVATE-9f8e7d6c-5b4a-3210-fedc-ba9876543210';
const WRONG_PRIVATE_KEY = 'WRONG-PRIVATE-0a1b2c3d4e5f';
const KEY = { publicKey: 'secrets-pub', privateKey: PRIVATE_KEY, roles: [{ orgId: 'o1', roleName: 'ORG_OWNER' }] };

let emulator: RunningEmulator;
beforeAll(async () => {
  emulator = await startEmulator({ port: 0, seed: 5, orgs: ['o1'], groups: ['g1'], eventsPerScope: 120, days: 2, keys: [KEY] as never });
});
afterAll(async () => {
  await emulator.close();
});

function everyRendering(error: unknown): string[] {
  const out: string[] = [];
  for (let current: unknown = error, depth = 0; current !== undefined && current !== null && depth < 6; depth += 1) {
    const e = current as Error;
    out.push(String(e.message), String(e.stack), JSON.stringify(e), inspect(e, { depth: Infinity, showHidden: true }));
    current = e.cause;
  }
  return out;
}

describe('secrets stay out of logs and errors', () => {
  it('never shows the private key or an Authorization header', async () => {
    const lines: string[] = [];
    const logger = createLogger({
      level: 'trace',
      stream: new Writable({
        write: (chunk, _encoding, done) => {
          lines.push(String(chunk));
          done();
        },
      }),
    });
    const registry = new Registry();
    const metrics = createApiMetrics(registry);
    const renderings: string[] = [];
    const thrown: unknown[] = [];
    const make = (privateKey: string) =>
      new EventsClient({
        baseUrl: emulator.baseUrl,
        publicKey: KEY.publicKey,
        privateKey,
        itemsPerPage: 50,
        logger,
        metrics,
        budget: unlimitedRequestBudget(),
        retry: { maxAttempts: 3, baseDelayMs: 1, maxDelayMs: 2 },
      });
    const good = make(PRIVATE_KEY);
    const wrong = make(WRONG_PRIVATE_KEY);
    const g1 = parseScope('group:g1');
    const window = { minDate: new Date(Date.now() - 5 * 86_400_000), maxDate: new Date(Date.now() + 86_400_000) };
    try {
      let pages = 0;
      for await (const page of good.pages(g1, window)) pages += page.events.length > 0 ? 1 : 0;
      expect(pages).toBe(3);
      renderings.push(inspect(good, { depth: Infinity, showHidden: true }), JSON.stringify(good));

      const attempts: Array<() => Promise<unknown>> = [
        () => wrong.listEvents(g1, window),
        () => good.listEvents(parseScope('group:missing'), window),
        async () => {
          emulator.setFaults({ rate5xx: 1 });
          try {
            return await good.listEvents(g1, window);
          } finally {
            emulator.setFaults({ rate5xx: 0 });
          }
        },
        async () => {
          emulator.setFaults({ dropRate: 1 });
          try {
            return await good.listEvents(g1, window);
          } finally {
            emulator.setFaults({ dropRate: 0 });
          }
        },
      ];
      for (const attempt of attempts) {
        const error = await attempt().then(
          () => undefined,
          (e: unknown) => e,
        );
        expect(error).toBeInstanceOf(Error);
        thrown.push(error);
        renderings.push(...everyRendering(error));
      }
    } finally {
      await Promise.all([good.close(), wrong.close()]);
    }
    expect((thrown[0] as Error).message).toContain(KEY.publicKey);
    expect(thrown.map((e) => (e as { code: string }).code)).toEqual([
      'API_CREDENTIALS_REJECTED',
      'API_GROUP_NOT_FOUND',
      expect.stringMatching(/UNEXPECTED_ERROR|SERVICE_UNAVAILABLE/),
      expect.any(String),
    ]);
    expect(lines.length).toBeGreaterThan(10); // trace/debug lines per request were written
    const everything = [...lines, ...renderings, await registry.metrics()];
    for (const text of everything) {
      expect(text).not.toContain(PRIVATE_KEY);
      expect(text).not.toContain(WRONG_PRIVATE_KEY);
      expect(text).not.toMatch(/Digest username/i);
      expect(text).not.toMatch(/cnonce=|response="/i);
      expect(text.toLowerCase()).not.toContain('authorization');
    }
  });
});
