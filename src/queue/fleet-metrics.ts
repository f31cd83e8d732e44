/**
 * Metrics read when Prometheus scrapes, not counted as jobs run: whether the polls keep up (the
 * age of the oldest poll job due and not started) and whether each discovering organization's
 * project listing works. Both are a handful of series whatever the number of scopes: one gauge
 * for the queue, one per discovering organization.
 */
import type { Kysely } from 'kysely';
import { Gauge, type Registry } from 'prom-client';
import type { Database } from '../warehouse/database.js';
import { listingHealth } from '../warehouse/scopes.repository.js';
import { POLL_JOB } from './queues.js';
import type { SyncQueue } from './scheduler.js';

export interface FleetMetricsSources {
  readonly queue: SyncQueue;
  readonly db: Kysely<Database>;
  readonly now?: () => number;
}

/** Delayed jobs looked at for an overdue poll: the earliest ones, a poll among them if any is late. */
const DELAYED_LOOKED_AT = 20;

export function registerFleetMetrics(registry: Registry, sources: FleetMetricsSources): void {
  const now = sources.now ?? Date.now;
  new Gauge({
    name: 'events_mirror_poll_oldest_waiting_seconds',
    help: 'How long the oldest poll job due has waited for a worker (0: none waits); above the poll period, polls fall behind',
    registers: [registry],
    async collect() {
      this.set(await oldestWaitingPollSeconds(sources.queue, now()));
    },
  });
  const failures = new Gauge({
    name: 'events_mirror_discovery_listing_failures',
    help: 'Project listings of a discovering organization failed in a row (0: its last listing succeeded); its projects added or removed since are not seen',
    labelNames: ['org'],
    registers: [registry],
    async collect() {
      failures.reset();
      for (const org of await listingHealth(sources.db)) failures.set({ org: org.scope }, org.failures);
    },
  });
  const listed = new Gauge({
    name: 'events_mirror_discovery_last_listed_timestamp_seconds',
    help: "When a discovering organization's project listing last succeeded, in Unix seconds",
    labelNames: ['org'],
    registers: [registry],
    async collect() {
      listed.reset();
      for (const org of await listingHealth(sources.db)) if (org.listedAt) listed.set({ org: org.scope }, org.listedAt.getTime() / 1000);
    },
  });
}

/**
 * Polls wait in the waiting list (they have no priority; BullMQ adds at the head, so the oldest is
 * the last) or, when every worker is busy, past their time in the delayed set (BullMQ moves them
 * only when a worker asks for a job). The age counts from when the job became due.
 */
export async function oldestWaitingPollSeconds(queue: SyncQueue, nowMs: number): Promise<number> {
  const [waiting, delayed] = await Promise.all([
    queue.getJobs(['wait'], 0, 0, true),
    queue.getJobs(['delayed'], 0, DELAYED_LOOKED_AT - 1, true),
  ]);
  let oldestDue = nowMs;
  for (const job of [...waiting, ...delayed]) {
    if (!job || job.name !== POLL_JOB) continue;
    oldestDue = Math.min(oldestDue, job.timestamp + (job.delay ?? 0));
  }
  return Math.max(0, (nowMs - oldestDue) / 1000);
}
