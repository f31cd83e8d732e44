/** `events-mirror scheduler`: keeps one BullMQ job scheduler per configured scope. */
import type { Command } from 'commander';
import { action, createContext } from './context.js';
import { positiveInt } from './options.js';

interface SchedulerOptions {
  once?: boolean;
  reconcileSeconds: number;
  metricsHost: string;
}

export function registerSchedulerCommand(program: Command): void {
  program
    .command('scheduler')
    .description('keep one job scheduler per configured scope in Redis (adds, updates, removes); runs until SIGTERM/SIGINT')
    .option('--once', 'reconcile the job schedulers once, print what changed, and exit')
    .option(
      '--reconcile-seconds <n>',
      'full reconcile period (it also reconciles on start and whenever Redis comes back)',
      positiveInt,
      600,
    )
    .option('--metrics-host <host>', 'address /livez, /readyz, /healthz and /metrics listen on (port: SCHEDULER_METRICS_PORT)', '0.0.0.0')
    .action(
      action(async (options: SchedulerOptions) => {
        const { config, logger } = createContext({ logFd: options.once ? 2 : 1 });
        // Loaded when the command runs: BullMQ and ioredis take half a second, which other commands would pay.
        const { runSchedulerProcess } = await import('../queue/scheduler-process.js');
        return runSchedulerProcess(config, logger, {
          once: options.once === true,
          reconcileSeconds: options.reconcileSeconds,
          metricsHost: options.metricsHost,
        });
      }),
    );
}
