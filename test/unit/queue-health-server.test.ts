import { Counter, Registry } from 'prom-client';
import { afterEach, describe, expect, it } from 'vitest';
import { startHealthServer, type HealthServer } from '../../src/queue/health-server.js';

describe('health server', () => {
  let server: HealthServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it('answers 200 when every check passes, 503 naming the failing one, and serves metrics', async () => {
    const registry = new Registry();
    new Counter({ name: 'probe_total', help: 'probe', registers: [registry] }).inc(3);
    let redisUp = true;
    server = await startHealthServer({
      port: 0,
      host: '127.0.0.1',
      registry,
      checkTimeoutMs: 200,
      checks: {
        redis: async () => {
          if (!redisUp) throw new Error('connection refused');
        },
        postgres: async () => {},
        migrations: () => new Promise<void>(() => {}),
      },
    });
    const hung = await fetch(`${server.url}/healthz`);
    const hungBody = (await hung.json()) as { status: string; checks: Record<string, string> };
    expect(hung.status).toBe(503);
    expect(hungBody.checks).toEqual({ redis: 'ok', postgres: 'ok', migrations: 'no answer within 200 ms' });
    await server.close();

    server = await startHealthServer({
      port: 0,
      host: '127.0.0.1',
      registry,
      checks: {
        redis: async () => {
          if (!redisUp) throw new Error('connection refused');
        },
        postgres: async () => {},
      },
    });
    const ok = await fetch(`${server.url}/healthz`);
    expect(ok.status).toBe(200);
    expect(await ok.json()).toEqual({ status: 'ok', checks: { redis: 'ok', postgres: 'ok' } });
    redisUp = false;
    const down = await fetch(`${server.url}/healthz`);
    expect(down.status).toBe(503);
    expect(((await down.json()) as { checks: Record<string, string> }).checks.redis).toBe('connection refused');
    // Readiness says the same with a reason; liveness looks at no dependency.
    const unready = await fetch(`${server.url}/readyz`);
    expect(unready.status).toBe(503);
    expect(await unready.json()).toEqual({
      status: 'unready',
      reason: 'redis: connection refused',
      checks: { redis: 'connection refused', postgres: 'ok' },
    });
    const live = await fetch(`${server.url}/livez`);
    expect(live.status).toBe(200);
    expect(await live.json()).toEqual({ status: 'live' });
    redisUp = true;
    const ready = await fetch(`${server.url}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ status: 'ready', checks: { redis: 'ok', postgres: 'ok' } });

    const metrics = await fetch(`${server.url}/metrics`);
    expect(metrics.status).toBe(200);
    expect(await metrics.text()).toContain('probe_total 3');
    expect((await fetch(`${server.url}/nope`)).status).toBe(404);
  });
});
