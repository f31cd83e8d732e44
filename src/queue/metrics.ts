/**
 * The worker's sync metrics, on the registry `/metrics` serves. Pages and events are counted as
 * each page lands (so a long backfill shows progress), jobs, windows and lag when a job ends.
 * Labels stay low-cardinality except the per-scope series (lag, checkpoint, failures), which are
 * per scope by design: alerts must name the scope. Failures are rare, so their series stay few.
 */
import { isReconciled, type ReconcileScopeResult } from '../sync/reconcile-scope.js';
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { EventsPage } from '../api/client.js';
import type { ScopeSettings } from '../config.js';
import type { SyncTotals } from '../sync/totals.js';
import type { SyncJobName } from './queues.js';

export type JobOutcome = 'succeeded' | 'skipped' | 'scope_busy' | 'failed_transient' | 'failed_permanent' | 'handed_back';

export interface SyncMetrics {
  /** For SyncContext.onPage. */
  readonly onPage: (scope: ScopeSettings, page: EventsPage, totals: SyncTotals) => void;
  /** `scope` when the job's payload named one: failures are then counted per scope too. */
  recordJob(job: SyncJobName, outcome: JobOutcome, durationSeconds: number, scope?: string): void;
  recordWindows(job: SyncJobName, windows: number): void;
  recordLag(scopeKey: string, watermark: Date | null, now: Date): void;
  recordReconcile(result: ReconcileScopeResult, now: Date): void;
}

type Counted = Pick<SyncTotals, 'inserted' | 'changed' | 'rejected' | 'newEventTypes' | 'newFields'>;

export function createSyncMetrics(registry: Registry): SyncMetrics {
  const registers = [registry];
  const jobs = new Counter({
    name: 'events_mirror_jobs_total',
    help: 'Jobs processed, by job name and outcome',
    labelNames: ['job', 'outcome'],
    registers,
  });
  const jobDuration = new Histogram({
    name: 'events_mirror_job_duration_seconds',
    help: 'Time a job spent in the processor',
    labelNames: ['job'],
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300],
    registers,
  });
  const windows = new Counter({
    name: 'events_mirror_windows_total',
    help: 'Time windows read to the end',
    labelNames: ['job'],
    registers,
  });
  const pages = new Counter({
    name: 'events_mirror_pages_total',
    help: 'Pages landed in the warehouse',
    labelNames: ['scope_kind'],
    registers,
  });
  const events = new Counter({
    name: 'events_mirror_events_total',
    help: 'Events landed: new rows, changed rows, and malformed events set aside',
    labelNames: ['scope_kind', 'kind'],
    registers,
  });
  const schemaChanges = new Counter({
    name: 'events_mirror_schema_changes_total',
    help: 'Event types, and fields of known event types, seen for the first time by the warehouse',
    labelNames: ['kind'],
    registers,
  });
  // Present at zero from the start, so `increase()` sees the first change.
  for (const kind of ['event_type', 'field']) schemaChanges.inc({ kind }, 0);
  const lag = new Gauge({
    name: 'events_mirror_scope_lag_seconds',
    help: 'Seconds between now and the scope checkpoint, as of its last poll',
    labelNames: ['scope'],
    registers,
  });
  // A timestamp rather than an age: `time() - max by (scope) (...)` keeps growing when polls stop,
  // and the newest checkpoint wins across workers (a checkpoint only moves forward).
  const checkpoint = new Gauge({
    name: 'events_mirror_scope_checkpoint_timestamp_seconds',
    help: 'The scope checkpoint (sync_state.watermark) as of its last poll, in Unix seconds',
    labelNames: ['scope'],
    registers,
  });
  const scopeFailures = new Counter({
    name: 'events_mirror_scope_failures_total',
    help: 'Failed job attempts per scope: permanent (401, 403, 404, not retried) or transient (retried)',
    // Not `job`: Prometheus keeps that name for its scrape job and renames ours to `exported_job`.
    labelNames: ['scope', 'job_name', 'kind'],
    registers,
  });

  const reconcileChecked = new Counter({
    name: 'events_mirror_reconcile_windows_checked_total',
    help: "Windows reconcile compared with the API's count, per scope",
    labelNames: ['scope'],
    registers,
  });
  const reconcileDiffering = new Counter({
    name: 'events_mirror_reconcile_windows_differing_total',
    help: 'Windows whose count differed from the API (then narrowed and re-read), per scope',
    labelNames: ['scope'],
    registers,
  });
  const reconcileRecovered = new Counter({
    name: 'events_mirror_reconcile_events_recovered_total',
    help: 'Events reconcile found missing and brought back, per scope',
    labelNames: ['scope'],
    registers,
  });
  const reconcileUnresolved = new Gauge({
    name: 'events_mirror_reconcile_unresolved_events',
    help: 'After the last reconcile: events the API lists that are still missing, plus events held that the API no longer lists',
    labelNames: ['scope'],
    registers,
  });
  const reconcileLastSuccess = new Gauge({
    name: 'events_mirror_reconcile_last_success_timestamp_seconds',
    help: 'When the last reconcile of the scope that left it consistent with the API ended, in Unix seconds',
    labelNames: ['scope'],
    registers,
  });

  // The runner hands one running totals object per window to onPage; remembering what was last
  // seen for each object turns those running sums into per-page increments.
  const lastSeen = new WeakMap<SyncTotals, Counted>();

  return {
    onPage(scope, _page, totals) {
      const before = lastSeen.get(totals) ?? { inserted: 0, changed: 0, rejected: 0, newEventTypes: 0, newFields: 0 };
      const kind = scope.scope.kind;
      pages.inc({ scope_kind: kind });
      events.inc({ scope_kind: kind, kind: 'new' }, totals.inserted - before.inserted);
      events.inc({ scope_kind: kind, kind: 'changed' }, totals.changed - before.changed);
      events.inc({ scope_kind: kind, kind: 'rejected' }, totals.rejected - before.rejected);
      schemaChanges.inc({ kind: 'event_type' }, totals.newEventTypes - before.newEventTypes);
      schemaChanges.inc({ kind: 'field' }, totals.newFields - before.newFields);
      const { inserted, changed, rejected, newEventTypes, newFields } = totals;
      lastSeen.set(totals, { inserted, changed, rejected, newEventTypes, newFields });
    },
    recordJob(job, outcome, durationSeconds, scope) {
      jobs.inc({ job, outcome });
      // A job put back because its scope was busy did no work: its near-zero time would skew the histogram.
      if (outcome !== 'scope_busy') jobDuration.observe({ job }, durationSeconds);
      if (scope && (outcome === 'failed_permanent' || outcome === 'failed_transient')) {
        scopeFailures.inc({ scope, job_name: job, kind: outcome === 'failed_permanent' ? 'permanent' : 'transient' });
      }
    },
    recordWindows(job, count) {
      if (count > 0) windows.inc({ job }, count);
    },
    recordLag(scopeKey, watermark, now) {
      if (!watermark) return;
      lag.set({ scope: scopeKey }, Math.max(0, (now.getTime() - watermark.getTime()) / 1000));
      checkpoint.set({ scope: scopeKey }, watermark.getTime() / 1000);
    },
    recordReconcile(result, now) {
      const scope = result.scope;
      reconcileChecked.inc({ scope }, result.windowsChecked);
      reconcileDiffering.inc({ scope }, result.windowsDiffering);
      reconcileRecovered.inc({ scope }, result.eventsRecovered);
      if (result.outcome === 'failed' || result.outcome === 'no-checkpoint') return;
      reconcileUnresolved.set({ scope }, result.eventsMissing + result.eventsExtra);
      if (isReconciled(result.outcome)) reconcileLastSuccess.set({ scope }, now.getTime() / 1000);
    },
  };
}
