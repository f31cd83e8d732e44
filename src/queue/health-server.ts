/**
 * The HTTP side of the worker and the scheduler, three probes with distinct meanings:
 * - `/livez`: liveness. 200 whenever the process's event loop runs (it checks nothing else), so a
 *   dead dependency never gets the process restarted, which could not fix it.
 * - `/readyz`: readiness. Runs every check (each bounded in time): 200 when all pass, else 503
 *   with a JSON `reason` naming the failing ones.
 * - `/healthz`: the same checks in detail, for people (200 or 503, each check's result).
 * `/metrics` serves the Prometheus registry.
 */
import { listenOn, urlHost } from '../listen.js';
import { createServer, type Server } from 'node:http';
import type { Registry } from 'prom-client';
import { withDeadline } from '../deadline.js';
import { errorMessage } from '../errors.js';

export type HealthCheck = () => Promise<void>;

export interface HealthServerOptions {
  readonly port: number;
  readonly host: string;
  readonly registry: Registry;
  /** Named checks, e.g. redis, postgres, migrations. */
  readonly checks: Readonly<Record<string, HealthCheck>>;
  readonly checkTimeoutMs?: number;
}

export interface HealthServer {
  readonly port: number;
  readonly url: string;
  close(): Promise<void>;
}

export interface HealthReport {
  readonly status: 'ok' | 'failing';
  /** `ok`, or what failed. */
  readonly checks: Record<string, string>;
}

export async function runHealthChecks(checks: Readonly<Record<string, HealthCheck>>, timeoutMs: number): Promise<HealthReport> {
  const entries = await Promise.all(
    Object.entries(checks).map(async ([name, check]) => {
      try {
        await withDeadline(check(), timeoutMs, `no answer within ${timeoutMs} ms`);
        return [name, 'ok'] as const;
      } catch (error) {
        return [name, errorMessage(error)] as const;
      }
    }),
  );
  const results = Object.fromEntries(entries);
  return { status: entries.every(([, r]) => r === 'ok') ? 'ok' : 'failing', checks: results };
}

export async function startHealthServer(options: HealthServerOptions): Promise<HealthServer> {
  const timeoutMs = options.checkTimeoutMs ?? 2_000;
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    const reply = (status: number, type: string, body: string) => {
      res.writeHead(status, { 'content-type': type, 'cache-control': 'no-store' });
      res.end(req.method === 'HEAD' ? undefined : body);
    };
    if (req.method !== 'GET' && req.method !== 'HEAD') return reply(405, 'text/plain', 'method not allowed\n');
    if (path === '/livez') return reply(200, 'application/json', `${JSON.stringify({ status: 'live' })}\n`);
    if (path === '/readyz') {
      void runHealthChecks(options.checks, timeoutMs).then(
        (report) => {
          const failing = Object.entries(report.checks).filter(([, result]) => result !== 'ok');
          const body =
            failing.length === 0
              ? { status: 'ready', checks: report.checks }
              : { status: 'unready', reason: failing.map(([name, result]) => `${name}: ${result}`).join('; '), checks: report.checks };
          reply(failing.length === 0 ? 200 : 503, 'application/json', `${JSON.stringify(body)}\n`);
        },
        (error: unknown) => reply(503, 'application/json', `${JSON.stringify({ status: 'unready', reason: errorMessage(error) })}\n`),
      );
      return;
    }
    if (path === '/healthz') {
      void runHealthChecks(options.checks, timeoutMs).then(
        (report) => reply(report.status === 'ok' ? 200 : 503, 'application/json', `${JSON.stringify(report)}\n`),
        (error: unknown) => reply(500, 'text/plain', `${errorMessage(error)}\n`),
      );
      return;
    }
    if (path === '/metrics') {
      void options.registry.metrics().then(
        (text) => reply(200, options.registry.contentType, text),
        (error: unknown) => reply(500, 'text/plain', `${errorMessage(error)}\n`),
      );
      return;
    }
    reply(404, 'text/plain', 'not found: try /livez, /readyz, /healthz or /metrics\n');
  });
  server.keepAliveTimeout = 5_000;
  const port = await listenOn(server, options.port, options.host);
  return {
    port,
    url: `http://${urlHost(options.host)}:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
