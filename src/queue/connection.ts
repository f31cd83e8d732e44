/**
 * Redis connections for BullMQ and the shared request budget. Commands wait through an outage
 * (maxRetriesPerRequest: null, as BullMQ requires) and the client reconnects forever with a capped
 * backoff, so a Redis restart pauses the processes instead of killing them. One line is logged when
 * the connection drops and one when it is back, not one per reconnect attempt.
 *
 * A silent failure (a partition: nothing closed, nothing answered) is noticed by ioredis's
 * `socketTimeout`: a connection that hears nothing for that long while a command waits is destroyed
 * and reopened, and the waiting commands are sent again. BullMQ duplicates this connection for its
 * blocking reads, options included, and blocks at most 10 s at a time, so the socket timeout sits
 * above that; BullMQ's own watchdog resets a blocking read that outlives its timeout.
 */
import { Redis, type RedisOptions } from 'ioredis';
import { ConfigError } from '../errors.js';
import type { Logger } from '../logger.js';
import { urlLocation } from '../url-display.js';

export interface RedisConnectionOptions {
  readonly url: string;
  /** Shown in log lines: which process part this connection serves. */
  readonly name: string;
  readonly logger: Logger;
  /** Longest wait between reconnect attempts. */
  readonly maxReconnectDelayMs?: number;
  readonly connectTimeoutMs?: number;
  /** Silence, while a command waits, after which the connection is closed and reopened. */
  readonly socketTimeoutMs?: number;
}

const TCP_KEEPALIVE_DELAY_MS = 10_000;

export function createRedisConnection(options: RedisConnectionOptions): Redis {
  const where = describeRedisUrl(options.url);
  const maxDelay = options.maxReconnectDelayMs ?? 5_000;
  const redisOptions: RedisOptions = {
    maxRetriesPerRequest: null,
    enableReadyCheck: true,
    connectTimeout: options.connectTimeoutMs ?? 10_000,
    socketTimeout: options.socketTimeoutMs ?? 20_000,
    keepAlive: TCP_KEEPALIVE_DELAY_MS,
    connectionName: `events-mirror:${options.name}`,
    retryStrategy: (attempt) => Math.min(100 * 2 ** Math.min(attempt, 10), maxDelay),
    // A replica promoted after a failover answers READONLY to writes: reconnect to the new primary.
    reconnectOnError: (error) => error.message.startsWith('READONLY'),
  };
  let redis: Redis;
  try {
    redis = new Redis(options.url, redisOptions);
  } catch (error) {
    throw new ConfigError(`REDIS_URL is not a usable Redis URL (${where}): expected redis://host:port or rediss://…`, { cause: error });
  }
  let down = false;
  let everReady = false;
  redis.on('error', (error: Error) => {
    if (down) return;
    down = true;
    options.logger.warn(
      { redis: where, connection: options.name, err: { message: error.message } },
      `Redis at ${where} unreachable: retrying until it is back`,
    );
  });
  redis.on('ready', () => {
    if (down || everReady) options.logger.info({ redis: where, connection: options.name }, `Redis at ${where} reachable again`);
    down = false;
    everReady = true;
  });
  return redis;
}

/** redis://host:port/db, never the user name, password or query. */
export function describeRedisUrl(url: string): string {
  return urlLocation(url, 'REDIS_URL (not a valid URL)');
}

/**
 * Resolves 'ready' when the connection is ready, or 'stopped' when `stop` settles first (a SIGTERM
 * while Redis is still down); rejects after `timeoutMs` with a line naming Redis.
 */
export async function waitForRedis(redis: Redis, url: string, timeoutMs: number, stop?: Promise<unknown>): Promise<'ready' | 'stopped'> {
  if (redis.status === 'ready') return 'ready';
  return new Promise<'ready' | 'stopped'>((resolve, reject) => {
    const finish = () => {
      clearTimeout(timer);
      redis.off('ready', onReady);
    };
    const timer = setTimeout(() => {
      finish();
      reject(
        new Error(`Redis at ${describeRedisUrl(url)} did not answer within ${timeoutMs} ms: check REDIS_URL and that Redis is running`),
      );
    }, timeoutMs);
    const onReady = () => {
      finish();
      resolve('ready');
    };
    redis.once('ready', onReady);
    void stop?.then(() => {
      finish();
      resolve('stopped');
    });
  });
}
