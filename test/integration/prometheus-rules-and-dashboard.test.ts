/**
 * A real Prometheus (Debian's package) scrapes a real worker process that syncs from the emulator,
 * with config/prometheus/alerts.yml loaded. Every PromQL expression of config/grafana/operations.json
 * (variables substituted as Grafana does) and of the alert rules goes through the HTTP API: each
 * parses, and each returns series. Metrics that only appear on failures are driven: emulator faults
 * (429, 5xx) and a scope the emulator does not know (404, a permanent failure that must fire its alert).
 */
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSyncQueue } from '../../src/queue/scheduler.js';
import { PROJECT_ROOT } from '../helpers/cli.js';
import { dashboardQueries, promqlFor, readDashboard } from '../helpers/grafana-dashboard.js';
import { startPrometheus, type RunningPrometheus } from '../helpers/prometheus.js';
import { freePort, startCli, waitFor, type CliProcess } from '../helpers/queue-processes.js';
import { REDIS_URL } from '../helpers/services.js';
import { daysAgo, startSyncFixture, type SyncFixture } from '../helpers/sync-fixture.js';

const SCRAPE_JOB = 'events-mirror-worker';
const MISSING_GROUP = 'group:6a00000000000000000000fe';

interface Rule {
  name: string;
  query: string;
  type: 'alerting' | 'recording';
  health: string;
  lastError?: string;
  annotations?: Record<string, string>;
}
interface ActiveAlert {
  labels: Record<string, string>;
  state: string;
}

/** Metric selectors in an expression (`name{matchers}`), for the names this project exports plus up and ALERTS. */
function selectors(expr: string): Array<{ name: string; text: string }> {
  return [...expr.matchAll(/\b(events_mirror_\w+|up|ALERTS)\b(\{[^}]*\})?/g)].map((m) => ({ name: m[1]!, text: m[0] }));
}

describe('Prometheus scraping a worker: the dashboard and alert expressions', () => {
  let fixture: SyncFixture;
  let prometheus: RunningPrometheus | undefined;
  const processes: CliProcess[] = [];
  const prefix = `em-prom-${randomUUID().slice(0, 8)}`;
  let metricsPort: number;
  let scopes: string[];

  beforeAll(async () => {
    fixture = await startSyncFixture(
      {
        seed: 152,
        orgs: ['5f0000000000000000000152'],
        groups: ['6a0000000000000000000153', '6a0000000000000000000154'],
        eventsPerScope: 400,
        days: 3,
        faults: { malformedRate: 0.02 },
      },
      { EVENTS_START_DATE: daysAgo(4).toISOString() },
    );
    scopes = fixture.emulator.dataset.scopes();
    metricsPort = await freePort();
    const env = {
      ...fixture.envWith({
        api: { itemsPerPage: 100, maxAttempts: 2, baseRetryDelayMs: 20, maxRetryDelayMs: 200 },
        sync: { windowSeconds: 86_400 },
        worker: { shutdownTimeoutMs: 5_000 },
      }),
      EVENTS_SCOPES: [...scopes, MISSING_GROUP].join(','),
      REDIS_PREFIX: prefix,
      EVENTS_POLL_INTERVAL_SECONDS: '1',
      // Scheduled reconcile runs often enough to export its metrics during the test.
      EVENTS_RECONCILE_INTERVAL_SECONDS: '2',
      // The organization lists its projects (the ones configured already), so the listing's series exist.
      EVENTS_DISCOVER_PROJECTS: 'true',
      METRICS_PORT: String(metricsPort),
    };
    processes.push(startCli('scheduler', ['scheduler'], env), startCli('worker', ['worker'], env));
    prometheus = await startPrometheus({
      targets: { [SCRAPE_JOB]: [`127.0.0.1:${metricsPort}`] },
      ruleFiles: [path.join(PROJECT_ROOT, 'config', 'prometheus', 'alerts.yml')],
      intervalSeconds: 1,
    });
  });

  afterAll(async () => {
    const stopOne = async (p: (typeof processes)[number]): Promise<void> => {
      try {
        await p.stop('SIGTERM');
      } catch {
        await p.stop('SIGKILL').catch(() => undefined);
      }
    };
    await Promise.all(processes.map(stopOne));
    await prometheus?.stop();
    const connection = new Redis(REDIS_URL, { maxRetriesPerRequest: null });
    try {
      await createSyncQueue(connection, prefix).obliterate({ force: true });
    } finally {
      connection.disconnect();
    }
    await fixture?.close();
  });

  const diagnostics = () => [...processes.map((p) => p.output()), prometheus?.output() ?? ''].join('\n');
  const hasSeries = async (expr: string) => (await prometheus!.query(expr)).result.length > 0;
  /** A rate over a series needs two samples in its range: a series born a moment ago gets a few scrapes. */
  const expectSeries = async (what: string, expr: string) => {
    const found = await waitFor(what, () => hasSeries(expr), 60_000, 500).catch(() => false);
    expect(found, `${what} returned no series: ${expr}`).toBe(true);
  };

  it('parses every expression and gets series from each, with failures driven', { timeout: 300_000 }, async () => {
    const prom = prometheus!;
    try {
      // 1. Clean syncing: every scope of the emulator gets a checkpoint, scraped.
      await waitFor(
        'a scraped checkpoint for every emulator scope',
        async () => {
          const found = (await prom.query('events_mirror_scope_checkpoint_timestamp_seconds')).result.map((s) => s.metric.scope);
          return scopes.every((s) => found.includes(s));
        },
        120_000,
        500,
      );

      // 2. Failures: 429s and 5xx until retries, 429s and transient job failures are scraped; the
      // unknown scope fails permanently on every poll and must fire its alert.
      fixture.emulator.setFaults({ rate429: 0.3, rate5xx: 0.3 });
      for (const expr of [
        'events_mirror_api_rate_limited_total',
        'events_mirror_api_retries_total',
        'events_mirror_scope_failures_total{kind="transient"}',
        `events_mirror_scope_failures_total{kind="permanent",scope="${MISSING_GROUP}"}`,
        'events_mirror_jobs_total{outcome="failed_transient"}',
      ]) {
        await waitFor(`${expr} scraped`, () => hasSeries(expr), 120_000, 500);
      }
      fixture.emulator.setFaults({ rate429: 0, rate5xx: 0 });
      const firing = await waitFor(
        'EventsMirrorScopeFailingPermanently firing for the unknown scope',
        async () => {
          const { alerts } = await prom.api<{ alerts: ActiveAlert[] }>('/api/v1/alerts');
          return alerts.find(
            (a) => a.labels.alertname === 'EventsMirrorScopeFailingPermanently' && a.labels.scope === MISSING_GROUP && a.state === 'firing',
          );
        },
        60_000,
        500,
      );
      expect(firing.labels).toMatchObject({ job_name: 'poll', severity: 'critical' });
      // The healthy scopes do not fail permanently.
      const { alerts } = await prom.api<{ alerts: ActiveAlert[] }>('/api/v1/alerts');
      expect(alerts.filter((a) => a.labels.alertname === 'EventsMirrorScopeFailingPermanently').map((a) => a.labels.scope)).toEqual([
        MISSING_GROUP,
      ]);

      // 3. The dashboard: every target and the scope variable.
      const vars = { scopes: [...scopes, MISSING_GROUP], job: SCRAPE_JOB, intervalSeconds: 1, scrapeSeconds: 1 };
      const dashboard = dashboardQueries(readDashboard('operations.json'));
      expect(dashboard.length).toBeGreaterThanOrEqual(20);
      for (const query of dashboard) {
        const labelValues = /^label_values\((\w+), *(\w+)\)$/.exec(query.text);
        if (labelValues) {
          const values = await prom.api<string[]>(`/api/v1/label/${labelValues[2]}/values?match[]=${labelValues[1]}`);
          expect(values, query.where).toEqual(expect.arrayContaining(scopes));
          continue;
        }
        // The scopes picked one by one (a regex alternation), and "All" (the variable's allValue, .*).
        for (const expr of [promqlFor(query.text, vars), promqlFor(query.text, { ...vars, allValue: '.*' })]) {
          const answer = await prom.query(expr);
          expect(answer.status, `${query.where}: ${expr}: ${answer.error}`).toBe('success');
          await expectSeries(query.where, expr);
        }
      }
      const lag = await prom.query(
        promqlFor(dashboard.find((q) => q.where.startsWith('panel "Lag: the 10 scopes furthest behind"'))!.text, vars),
      );
      expect(lag.result.map((s) => s.metric.scope)).toEqual(expect.arrayContaining(scopes));
      // Every scope with a checkpoint is counted in one bar of the distribution (the missing project has none).
      let counted = 0;
      for (const query of dashboard.filter((q) => q.where.startsWith('panel "Scopes by how far behind"'))) {
        const bar = await prom.query(promqlFor(query.text, { ...vars, allValue: '.*' }));
        counted += Number(bar.result[0]?.value?.[1] ?? 0);
      }
      expect(counted).toBe(scopes.length);

      // 4. The alert rules, as Prometheus loaded them: each evaluated without error, each expression
      // parses through the query API, and each selector in it returns series.
      const { groups } = await prom.api<{ groups: Array<{ rules: Rule[] }> }>('/api/v1/rules');
      const rules = groups.flatMap((g) => g.rules);
      expect(rules.length).toBeGreaterThanOrEqual(9);
      for (const rule of rules) {
        expect(rule.health, `${rule.name}: ${rule.lastError}`).toBe('ok');
        const answer = await prom.query(rule.query);
        expect(answer.status, `${rule.name}: ${answer.error}`).toBe('success');
        for (const selector of selectors(rule.query)) {
          await expectSeries(rule.name, selector.text);
        }
      }
    } catch (error) {
      throw new Error(`${String(error)}\n${diagnostics()}`, { cause: error });
    }
  });
});
