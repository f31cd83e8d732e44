/**
 * The `receive` process: opens the warehouse, serves the OTLP/HTTP receiver and, on another port,
 * the probes and metrics, then runs until SIGTERM or SIGINT. On a stop the receiver takes no new
 * request and lets those in flight finish (each answered with what committed) within the
 * shutdown timeout. Several receivers may run behind a load balancer on one PostgreSQL warehouse;
 * on the embedded one a single receiver holds its data directory.
 */
import { readFileSync } from 'node:fs';
import { sql } from 'kysely';
import { Registry, collectDefaultMetrics } from 'prom-client';
import type { Config } from '../config.js';
import { settlesWithin } from '../deadline.js';
import { ConfigError, errorMessage } from '../errors.js';
import type { Logger } from '../logger.js';
import { armHardStop, exitEvenIfSocketsLinger, listenForShutdown } from '../shutdown-signals.js';
import { startHealthServer, type HealthServer } from '../queue/health-server.js';
import { createWarehouse, type Warehouse } from '../warehouse/database.js';
import { assertMigrated, readyForWrites } from '../warehouse/migrator.js';
import { createReceiverMetrics } from './receiver-metrics.js';
import { startReceiverServer, type ReceiverServer } from './receiver-server.js';

export interface ReceiverProcessOptions {
  readonly metricsHost: string;
  /** Resolves when the process should stop; defaults to the first SIGTERM or SIGINT. */
  readonly stopSignal?: Promise<string>;
}

const CLOSE_STEP_MS = 1_000;
const HARD_STOP_MARGIN_MS = 9_000;

function readTls(config: Config): { cert: Buffer; key: Buffer } | undefined {
  const { tlsCertFile, tlsKeyFile } = config.receiver;
  if (tlsCertFile === undefined && tlsKeyFile === undefined) return undefined;
  if (tlsCertFile === undefined || tlsKeyFile === undefined) {
    throw new ConfigError('receiver TLS needs both RECEIVER_TLS_CERT_FILE and RECEIVER_TLS_KEY_FILE (PEM files), or neither');
  }
  const read = (file: string, name: string) => {
    try {
      return readFileSync(file);
    } catch (error) {
      throw new ConfigError(
        `${name} ${file} cannot be read (${(error as NodeJS.ErrnoException).code ?? errorMessage(error)}): fix the path`,
      );
    }
  };
  return { cert: read(tlsCertFile, 'RECEIVER_TLS_CERT_FILE'), key: read(tlsKeyFile, 'RECEIVER_TLS_KEY_FILE') };
}

async function openReceiverWarehouse(config: Config, logger: Logger): Promise<Warehouse> {
  const warehouse = await createWarehouse({
    ...(config.database.url ? { url: config.database.url } : {}),
    schema: config.database.schema,
    dataDir: config.database.dataDir,
    // Each request waiting on the warehouse holds one connection at most.
    poolSize: Math.min(config.receiver.maxPendingRequests, 16),
    deadlines: { connectTimeoutMs: config.database.connectTimeoutMs, queryTimeoutMs: config.database.queryTimeoutMs },
    logger,
  });
  return readyForWrites(warehouse, logger);
}

export async function runReceiverProcess(config: Config, logger: Logger, options: ReceiverProcessOptions): Promise<number> {
  const token = config.receiver.token;
  if (token === undefined) {
    throw new ConfigError(
      'receive needs a bearer token: set RECEIVER_TOKEN (or RECEIVER_TOKEN_FILE), at least 16 characters (openssl rand -hex 32), and give the export the header Authorization: Bearer <token>',
    );
  }
  const tls = readTls(config);
  const signals = options.stopSignal ? undefined : listenForShutdown();
  const stopRequested = options.stopSignal ?? signals!.first;
  let hardStop: NodeJS.Timeout | undefined;
  void stopRequested.then(() => {
    hardStop = armHardStop(config.worker.shutdownTimeoutMs + HARD_STOP_MARGIN_MS, () =>
      logger.error('shutdown did not finish in time: exiting anyway (unanswered senders retry)'),
    );
  });
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  let warehouse: Warehouse | undefined;
  let health: HealthServer | undefined;
  let receiver: ReceiverServer | undefined;
  try {
    warehouse = await openReceiverWarehouse(config, logger);
    const opened = warehouse;
    health = await startHealthServer({
      port: config.receiver.metricsPort,
      host: options.metricsHost,
      registry,
      checks: {
        postgres: async () => void (await sql`select 1`.execute(opened.db)),
        migrations: () => assertMigrated(opened),
      },
    }).catch((error: unknown) => {
      throw new ConfigError(
        `cannot serve /healthz and /metrics on ${options.metricsHost}:${config.receiver.metricsPort}: ${errorMessage(error)}; set RECEIVER_METRICS_PORT to a free port`,
      );
    });
    receiver = await startReceiverServer({
      host: config.receiver.host,
      port: config.receiver.port,
      token,
      maxBodyBytes: config.receiver.maxBodyBytes,
      maxPendingRequests: config.receiver.maxPendingRequests,
      retryAfterSeconds: config.receiver.retryAfterSeconds,
      ...(tls ? { tls } : {}),
      warehouse: opened,
      logger,
      metrics: createReceiverMetrics(registry),
    }).catch((error: unknown) => {
      throw new ConfigError(
        `cannot listen on ${config.receiver.host}:${config.receiver.port}: ${errorMessage(error)}; set RECEIVER_PORT to a free port`,
      );
    });
    logger.info(
      { url: receiver.url, metrics: health.url, warehouse: opened.kind, tls: tls !== undefined },
      `receiving the event export at ${receiver.url}; probes at ${health.url}/livez and /readyz, metrics at ${health.url}/metrics`,
    );
    const signal = await stopRequested;
    logger.info(`${signal}: taking no new requests; finishing those in flight`);
    if (!(await settlesWithin(receiver.close(), config.worker.shutdownTimeoutMs))) {
      logger.warn('requests still in flight at the shutdown timeout: their senders retry them');
    }
    return 0;
  } finally {
    signals?.dispose();
    if (health) await settlesWithin(health.close(), CLOSE_STEP_MS);
    if (warehouse) await settlesWithin(warehouse.close(), 2 * CLOSE_STEP_MS);
    clearTimeout(hardStop);
    if (!options.stopSignal) exitEvenIfSocketsLinger();
  }
}
