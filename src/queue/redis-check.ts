/**
 * One look at Redis for `check`: it answers, and it keeps what BullMQ stores (an eviction policy
 * other than noeviction drops queued jobs and locks when memory runs short; BullMQ warns of it).
 */
import { Redis } from 'ioredis';
import { describeRedisUrl } from './connection.js';

export interface RedisCheck {
  readonly ok: boolean;
  readonly detail: string;
}

export async function checkRedis(url: string, timeoutMs: number): Promise<RedisCheck> {
  const where = describeRedisUrl(url);
  const redis = new Redis(url, {
    lazyConnect: true,
    connectTimeout: timeoutMs,
    commandTimeout: timeoutMs,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
    enableOfflineQueue: false,
  });
  // With no retries, connect() rejects with "Connection is closed."; the socket's own error says why.
  let socketError: (Error & { code?: string }) | undefined;
  redis.on('error', (error: Error) => (socketError ??= error));
  try {
    await redis.connect();
    await redis.ping();
  } catch (error) {
    redis.disconnect();
    const cause = socketError ?? (error as Error & { code?: string });
    const reason = cause.code ?? cause.message;
    return { ok: false, detail: `${where} does not answer (${reason}): start Redis, or fix REDIS_URL` };
  }
  try {
    const policy = await redis
      .config('GET', 'maxmemory-policy')
      .then((answer) => (answer as string[])[1])
      .catch(() => undefined);
    if (policy !== undefined && policy !== 'noeviction') {
      return {
        ok: false,
        detail: `${where} answers, but its maxmemory-policy is ${policy}: set it to noeviction, or Redis may drop queued jobs and locks when full`,
      };
    }
    return { ok: true, detail: `${where} answers${policy ? ' (maxmemory-policy noeviction)' : ''}` };
  } finally {
    redis.disconnect();
  }
}
