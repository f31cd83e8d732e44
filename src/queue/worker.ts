/**
 * The BullMQ worker on the sync queue: runs the job processor with the configured concurrency and
 * turns BullMQ's events into log lines. A job whose process died (SIGKILL, lost host) is seen as
 * stalled once its lock lapses and is run again by any worker.
 */
import { Worker, type Job } from 'bullmq';
import type { Redis } from 'ioredis';
import type { Logger } from '../logger.js';
import type { JobSummary, SyncJobProcessor } from './job-processor.js';
import { SYNC_QUEUE, type SyncJobData } from './queues.js';

export type SyncWorker = Worker<SyncJobData, JobSummary, string>;

export interface SyncWorkerOptions {
  readonly connection: Redis;
  readonly prefix: string;
  readonly concurrency: number;
  readonly processor: SyncJobProcessor;
  readonly logger: Logger;
  /** How long a job's lock lasts without renewal; a dead worker's job is retaken after it. */
  readonly lockDurationMs?: number;
}

export function createSyncWorker(options: SyncWorkerOptions): SyncWorker {
  const { logger } = options;
  const lockDuration = options.lockDurationMs ?? 30_000;
  const worker: SyncWorker = new Worker<SyncJobData, JobSummary, string>(SYNC_QUEUE, (job, token) => options.processor(job as Job, token), {
    connection: options.connection,
    prefix: options.prefix,
    concurrency: options.concurrency,
    lockDuration,
    stalledInterval: lockDuration,
    // A job retaken after its worker died twice is failed rather than run a third time.
    maxStalledCount: 2,
    autorun: false,
  });
  worker.on('failed', (job, error) => {
    if (!job) return;
    const attempts = job.opts.attempts ?? 1;
    const final = error.name === 'UnrecoverableError' || job.attemptsMade >= attempts;
    logger[final ? 'error' : 'warn'](
      { jobId: job.id, job: job.name, attemptsMade: job.attemptsMade, attempts, err: { message: error.message } },
      final
        ? `job ${job.id} failed for good after ${job.attemptsMade} of ${attempts} attempts: ${error.message}`
        : `job ${job.id} failed (attempt ${job.attemptsMade} of ${attempts}), retrying with backoff: ${error.message}`,
    );
  });
  worker.on('stalled', (jobId) => logger.warn({ jobId }, `job ${jobId} stalled (its worker stopped renewing the lock): queued again`));
  // While Redis is down the connection logs the outage once; BullMQ would repeat it per command.
  worker.on('error', (error) => {
    const level = options.connection.status === 'ready' ? 'warn' : 'debug';
    logger[level]({ err: { message: error.message } }, `worker: ${error.message}`);
  });
  return worker;
}
