/**
 * Probes that never restart-loop (issue 37): a worker and a scheduler (discovering an
 * organization's projects, so the API is one of its dependencies) run as child processes against
 * real PostgreSQL and Redis and the emulator over real HTTP behind a proxy that drops every packet.
 * While the API is silent, /livez answers 200 every time (a liveness probe would never restart
 * them), /readyz turns 503 naming the API within the documented time (docs/operations.md:
 * 10 s without an answer, then a 1.5 s probe) and 200 again at the first probe after the heal.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiReachability } from '../../src/api/reachability.js';
import { API_PROBE_TIMEOUT_MS } from '../../src/queue/worker-process.js';
import { createMigratedTestDatabase, type TestDatabase } from '../helpers/database.js';
import { startTestEmulator, type RunningEmulator } from '../helpers/emulator.js';
import { startPartitionProxy, type PartitionProxy } from '../helpers/partition-proxy.js';
import { failWhenAnyExits, freePort, obliterateSyncQueue, sleep, startCli, waitFor, type CliProcess } from '../helpers/queue-processes.js';
import { REDIS_URL } from '../helpers/services.js';
import { daysAgo } from '../helpers/sync-fixture.js';

const ORG = '5f0000000000000000000371';
const PROJECT = '6a0000000000000000000371';
/** The documented time for readiness to turn red: no answer for 10 s, then a probe of 1.5 s. */
const RED_WITHIN_MS = ApiReachability.FRESH_ANSWER_MS + API_PROBE_TIMEOUT_MS;
/** And green again: the first probe after the heal answers at once. */
const GREEN_WITHIN_MS = API_PROBE_TIMEOUT_MS;
/** How often the test asks, the slack every measured time gets (one round, and a loaded machine). */
const EVERY_MS = 500;
const SLACK_MS = 2 * EVERY_MS + 1_000;
const PARTITION_MS = 20_000;

interface Probe {
  status: number;
  body: { status: string; reason?: string; checks?: Record<string, string> };
}

async function probe(port: number, path: '/livez' | '/readyz' | '/healthz'): Promise<Probe> {
  const response = await fetch(`http://127.0.0.1:${port}${path}`, { signal: AbortSignal.timeout(5_000) });
  return { status: response.status, body: (await response.json()) as Probe['body'] };
}

describe('liveness and readiness of the worker and the scheduler under a silent API', () => {
  let emulator: RunningEmulator;
  let database: TestDatabase;
  let api: PartitionProxy;
  const prefix = `em-test-${randomUUID()}`;
  const processes: CliProcess[] = [];

  beforeAll(async () => {
    emulator = await startTestEmulator({
      orgs: [ORG],
      projects: [{ id: PROJECT, orgId: ORG, name: 'Probed' }],
      eventsPerScope: 100,
      days: 1,
      liveRatePerSecond: 2,
    });
    database = await createMigratedTestDatabase();
    api = await startPartitionProxy({ host: '127.0.0.1', port: Number(new URL(emulator.baseUrl).port) });
  });

  afterAll(async () => {
    await Promise.all(processes.map((p) => p.stop('SIGKILL').catch(() => undefined)));
    await api?.close();
    await database?.drop();
    await emulator?.close();
    await obliterateSyncQueue(REDIS_URL, prefix);
  });

  it('keeps /livez at 200, turns /readyz 503 within the documented time, and 200 again after the heal', async () => {
    const key = emulator.keys[0]!;
    const ports = { worker: await freePort(), scheduler: await freePort() };
    const env = {
      EVENTS_API_BASE_URL: api.via(emulator.baseUrl),
      EVENTS_API_PUBLIC_KEY: key.publicKey,
      EVENTS_API_PRIVATE_KEY: key.privateKey,
      EVENTS_SCOPES: `org:${ORG}`,
      EVENTS_DISCOVER_PROJECTS: 'true',
      EVENTS_START_DATE: daysAgo(2).toISOString(),
      EVENTS_POLL_INTERVAL_SECONDS: '1',
      DATABASE_URL: database.url,
      REDIS_PREFIX: prefix,
      METRICS_PORT: String(ports.worker),
      SCHEDULER_METRICS_PORT: String(ports.scheduler),
    };
    const worker = startCli('worker', ['worker'], env);
    const scheduler = startCli('scheduler', ['scheduler'], env);
    processes.push(worker, scheduler);
    const died = failWhenAnyExits(processes);
    const diagnostics = () => processes.map((p) => p.output()).join('\n');
    const waitUp = <T>(what: string, check: () => Promise<T | undefined | false>, ms = 90_000) =>
      Promise.race([waitFor(what, check, ms, EVERY_MS), died]);
    const names = ['worker', 'scheduler'] as const;

    for (const name of names) {
      await waitUp(`the ${name} ready`, async () => (await probe(ports[name], '/readyz')).status === 200);
      expect(await probe(ports[name], '/livez'), diagnostics()).toEqual({ status: 200, body: { status: 'live' } });
    }
    // The worker has work: polls every second keep its API answers fresh up to the partition.
    await sleep(3_000);

    const partitionedAt = performance.now();
    api.partition();
    const redAfter: Partial<Record<(typeof names)[number], number>> = {};
    const reasons: Partial<Record<(typeof names)[number], string>> = {};
    let livezAsked = 0;
    while (performance.now() - partitionedAt < PARTITION_MS) {
      for (const name of names) {
        const live = await probe(ports[name], '/livez');
        livezAsked += 1;
        expect(live.status, `${name} /livez during the partition\n${diagnostics()}`).toBe(200);
        if (redAfter[name] === undefined) {
          const ready = await probe(ports[name], '/readyz');
          if (ready.status === 503) {
            redAfter[name] = performance.now() - partitionedAt;
            reasons[name] = ready.body.reason;
          } else expect(ready.status).toBe(200);
        }
      }
      await Promise.race([sleep(EVERY_MS), died]);
    }
    // For people, /healthz says the same in detail; the processes never stopped.
    const healthz = await probe(ports.worker, '/healthz');
    expect(healthz.status).toBe(503);
    expect(healthz.body.checks).toMatchObject({ redis: 'ok', postgres: 'ok', migrations: 'ok' });
    expect(healthz.body.checks?.api).toMatch(/^the Events API at http:\/\/127\.0\.0\.1:\d+\/api\/public\/v1\.0 did not answer/);

    api.heal();
    const healedAt = performance.now();
    const greenAfter: Partial<Record<(typeof names)[number], number>> = {};
    for (const name of names) {
      await waitUp(`the ${name} ready again`, async () => (await probe(ports[name], '/readyz')).status === 200, 30_000);
      greenAfter[name] = performance.now() - healedAt;
      expect((await probe(ports[name], '/livez')).status).toBe(200);
    }
    console.log(
      `silent API: /livez 200 all ${livezAsked} times; /readyz 503 after ` +
        names.map((n) => `${n} ${((redAfter[n] ?? NaN) / 1000).toFixed(1)} s`).join(', ') +
        `; 200 again after the heal: ` +
        names.map((n) => `${n} ${((greenAfter[n] ?? NaN) / 1000).toFixed(1)} s`).join(', '),
    );
    for (const name of names) {
      expect(redAfter[name], `${name} unready during the partition\n${diagnostics()}`).toBeDefined();
      expect(redAfter[name]!, `${name}: /readyz 503 within the documented time`).toBeLessThanOrEqual(RED_WITHIN_MS + SLACK_MS);
      expect(reasons[name]).toMatch(/^api: the Events API at .* did not answer: no answer within 1500 ms \(last answer: /);
      expect(greenAfter[name]!, `${name}: /readyz 200 within the documented time after the heal`).toBeLessThanOrEqual(
        GREEN_WITHIN_MS + SLACK_MS,
      );
    }
    expect(worker.child.exitCode).toBeNull();
    expect(scheduler.child.exitCode).toBeNull();
  });
});
