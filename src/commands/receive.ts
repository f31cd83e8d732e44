/** `events-mirror receive`: takes the event export's OTLP/HTTP pushes into the warehouse until SIGTERM/SIGINT. */
import type { Command } from 'commander';
import { action, createContext } from './context.js';

interface ReceiveOptions {
  metricsHost: string;
}

export function registerReceiveCommand(program: Command): void {
  program
    .command('receive')
    .description(
      'take the event export (OTLP/HTTP POST /v1/logs, RECEIVER_PORT) into the warehouse; serves /livez, /readyz, /healthz and /metrics; graceful on SIGTERM/SIGINT',
    )
    .option('--metrics-host <host>', 'address /livez, /readyz, /healthz and /metrics listen on (port: RECEIVER_METRICS_PORT)', '0.0.0.0')
    .action(
      action(async (options: ReceiveOptions) => {
        const { config, logger } = createContext({ logFd: 1 });
        const { runReceiverProcess } = await import('../receiver/receiver-process.js');
        return runReceiverProcess(config, logger, { metricsHost: options.metricsHost });
      }),
    );
}
