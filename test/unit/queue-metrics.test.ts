import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { createSyncMetrics } from '../../src/queue/metrics.js';
import { emptyTotals } from '../../src/sync/totals.js';
import type { EventsPage } from '../../src/api/client.js';

const page = { pageNum: 1, events: [], rejected: [], totalCount: 0, hasNext: false, requests: 1, bytes: 0 } as EventsPage;

async function value(registry: Registry, name: string, labels: Record<string, string>): Promise<number> {
  const metric = (await registry.getMetricsAsJSON()).find((m) => m.name === name);
  const match = metric?.values.find((v) => Object.entries(labels).every(([k, l]) => (v.labels as Record<string, unknown>)[k] === l));
  return match?.value ?? 0;
}

describe('sync metrics', () => {
  const scope = loadConfig({ env: { EVENTS_SCOPES: 'group:abc' } }).scopes[0]!;

  it('turns the running totals of each window into per-page counts', async () => {
    const registry = new Registry();
    const metrics = createSyncMetrics(registry);
    const windowA = emptyTotals();
    const windowB = emptyTotals();
    Object.assign(windowA, { pages: 1, inserted: 500, changed: 0, rejected: 2 });
    metrics.onPage(scope, page, windowA);
    Object.assign(windowB, { pages: 1, inserted: 10, changed: 1, rejected: 0 });
    metrics.onPage(scope, page, windowB);
    Object.assign(windowA, { pages: 2, inserted: 700, changed: 3, rejected: 2 });
    metrics.onPage(scope, page, windowA);

    expect(await value(registry, 'events_mirror_pages_total', { scope_kind: 'group' })).toBe(3);
    expect(await value(registry, 'events_mirror_events_total', { kind: 'new' })).toBe(710);
    expect(await value(registry, 'events_mirror_events_total', { kind: 'changed' })).toBe(4);
    expect(await value(registry, 'events_mirror_events_total', { kind: 'rejected' })).toBe(2);
  });

  it('counts jobs by outcome and keeps a lag gauge per scope', async () => {
    const registry = new Registry();
    const metrics = createSyncMetrics(registry);
    metrics.recordJob('poll', 'succeeded', 0.2);
    metrics.recordJob('poll', 'skipped', 0.01);
    metrics.recordJob('poll', 'succeeded', 0.3);
    metrics.recordWindows('backfill-window', 2);
    const now = new Date('2026-11-01T00:01:00Z');
    metrics.recordLag('group:abc', new Date('2026-11-01T00:00:00Z'), now);
    metrics.recordLag('group:def', null, now);

    expect(await value(registry, 'events_mirror_jobs_total', { job: 'poll', outcome: 'succeeded' })).toBe(2);
    expect(await value(registry, 'events_mirror_jobs_total', { job: 'poll', outcome: 'skipped' })).toBe(1);
    expect(await value(registry, 'events_mirror_windows_total', { job: 'backfill-window' })).toBe(2);
    expect(await value(registry, 'events_mirror_scope_lag_seconds', { scope: 'group:abc' })).toBe(60);
    expect(await registry.metrics()).not.toContain('group:def');
  });

  it('keeps each scope checkpoint as a timestamp and counts failed attempts per scope', async () => {
    const registry = new Registry();
    const metrics = createSyncMetrics(registry);
    metrics.recordLag('group:abc', new Date('2026-11-01T00:00:00Z'), new Date('2026-11-01T00:01:00Z'));
    metrics.recordJob('poll', 'failed_permanent', 0.1, 'group:abc');
    metrics.recordJob('poll', 'failed_permanent', 0.1, 'group:abc');
    metrics.recordJob('backfill-window', 'failed_transient', 0.1, 'org:def');
    metrics.recordJob('poll', 'succeeded', 0.1, 'org:def');
    metrics.recordJob('poll', 'failed_permanent', 0.1);

    expect(await value(registry, 'events_mirror_scope_checkpoint_timestamp_seconds', { scope: 'group:abc' })).toBe(
      Date.parse('2026-11-01T00:00:00Z') / 1000,
    );
    expect(await value(registry, 'events_mirror_scope_failures_total', { scope: 'group:abc', job_name: 'poll', kind: 'permanent' })).toBe(
      2,
    );
    expect(
      await value(registry, 'events_mirror_scope_failures_total', { scope: 'org:def', job_name: 'backfill-window', kind: 'transient' }),
    ).toBe(1);
    expect(await value(registry, 'events_mirror_jobs_total', { job: 'poll', outcome: 'failed_permanent' })).toBe(3);
    // Successes are not failures: no series for them.
    expect(await registry.metrics()).not.toMatch(/events_mirror_scope_failures_total\{[^}]*scope="org:def",job_name="poll"/);
  });
});
