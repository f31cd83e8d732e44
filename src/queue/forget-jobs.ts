/**
 * `forget`'s part in Redis: a scope's job schedulers (poll, reconcile), its jobs in every state but
 * active (queued polls, backfill windows, and finished ones, whose ids would make a later
 * `backfill --enqueue` skip windows), and its request budget.
 */
import type { Redis } from 'ioredis';
import type { JobType } from 'bullmq';
import { forgetRequestBudget } from '../api/request-budget.js';
import type { Scope } from '../scope.js';
import { POLL_JOB, RECONCILE_JOB, schedulerIdFor } from './queues.js';
import type { SyncQueue } from './scheduler.js';

export interface ForgottenJobs {
  readonly schedulers: number;
  readonly jobs: number;
}

const STATES: JobType[] = ['waiting', 'delayed', 'prioritized', 'waiting-children', 'failed', 'completed'];
const PAGE = 1000;

export async function forgetScopeJobs(queue: SyncQueue, connection: Redis, prefix: string, scope: Scope): Promise<ForgottenJobs> {
  let schedulers = 0;
  for (const job of [POLL_JOB, RECONCILE_JOB] as const) {
    if (await queue.removeJobScheduler(schedulerIdFor(scope, job))) schedulers += 1;
  }
  // Listed first, removed after: removing while paging would shift the pages.
  const ids: string[] = [];
  for (let start = 0; ; start += PAGE) {
    const page = await queue.getJobs(STATES, start, start + PAGE - 1, true);
    for (const job of page) if (job?.id && job.data?.scope === scope.key) ids.push(job.id);
    if (page.length < PAGE) break;
  }
  let jobs = 0;
  for (const id of ids) jobs += await queue.remove(id);
  await forgetRequestBudget(connection, prefix, scope);
  return { schedulers, jobs };
}
