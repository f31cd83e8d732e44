/** `events-mirror worker`: runs BullMQ poll and backfill-window jobs until SIGTERM/SIGINT. */
import type { Command } from 'commander';
import { action, createContext } from './context.js';
import { positiveInt } from './options.js';

interface WorkerOptions {
  concurrency?: number;
  metricsHost: string;
}

export function registerWorkerCommand(program: Command): void {
  program
    .command('worker')
    .description('run poll and backfill jobs from Redis; serves /livez, /readyz, /healthz and /metrics; graceful on SIGTERM/SIGINT')
    .option('--concurrency <n>', 'jobs run at once (default: WORKER_CONCURRENCY or worker.concurrency)', positiveInt)
    .option('--metrics-host <host>', 'address /livez, /readyz, /healthz and /metrics listen on (port: METRICS_PORT)', '0.0.0.0')
    .action(
      action(async (options: WorkerOptions) => {
        const { config, logger } = createContext({
          logFd: 1,
          ...(options.concurrency ? { overrides: { worker: { concurrency: options.concurrency } } } : {}),
        });
        // Loaded when the command runs: BullMQ and ioredis take half a second, which other commands would pay.
        const { runWorkerProcess } = await import('../queue/worker-process.js');
        return runWorkerProcess(config, logger, { metricsHost: options.metricsHost });
      }),
    );
}
