/**
 * The pg pool behind a PostgreSQL warehouse, with a deadline on every wait (DESIGN rule 9).
 *
 * A network partition drops packets and closes nothing, so a client that waits without a deadline
 * waits forever. Here:
 * - connecting (and waiting for a pooled connection) gives up after `connectTimeoutMs`;
 * - every query gives up after `queryTimeoutMs`, measured on the client, so a dead socket is noticed
 *   even though the server never answers; the client whose query timed out is closed, never handed
 *   back to the pool (its socket may be dead, or its query still running);
 * - pooled sockets send TCP keepalives;
 * - each session tells the server to end it when its client vanishes (TCP keepalives from the
 *   server's side), to cancel a statement past the deadline the client already gave up on, and to
 *   end a transaction left idle: a dead worker's advisory locks and open transactions are freed.
 */
import pg from 'pg';

export interface PostgresDeadlines {
  /** Connecting, and waiting for a free pooled connection. */
  readonly connectTimeoutMs: number;
  /** One query, from sending it to its last row; 0 = none (only for `migrate`, run by hand). */
  readonly queryTimeoutMs: number;
}

export const DEFAULT_POSTGRES_DEADLINES: PostgresDeadlines = { connectTimeoutMs: 10_000, queryTimeoutMs: 30_000 };

/** The server probes a silent client after 30 s, then every 10 s, and ends the session after 3 misses. */
const SERVER_KEEPALIVE = { idleSeconds: 30, intervalSeconds: 10, count: 3 } as const;
const CLIENT_KEEPALIVE_DELAY_MS = 10_000;
/** pg's own message for a query past `query_timeout`. */
const QUERY_READ_TIMEOUT = 'Query read timeout';

/** The session settings each new connection applies, as SQL (SET works through poolers too). */
export function sessionSettingsSql(deadlines: PostgresDeadlines): string {
  const statementTimeout = deadlines.queryTimeoutMs;
  return [
    `SET tcp_keepalives_idle = ${SERVER_KEEPALIVE.idleSeconds}`,
    `SET tcp_keepalives_interval = ${SERVER_KEEPALIVE.intervalSeconds}`,
    `SET tcp_keepalives_count = ${SERVER_KEEPALIVE.count}`,
    `SET statement_timeout = ${statementTimeout}`,
    `SET idle_in_transaction_session_timeout = ${statementTimeout === 0 ? 0 : statementTimeout * 2}`,
  ].join('; ');
}

export function createPostgresPool(
  options: pg.PoolConfig & { connectionString: string; max: number },
  deadlines: PostgresDeadlines,
): pg.Pool {
  const pool = new pg.Pool({
    ...options,
    connectionTimeoutMillis: deadlines.connectTimeoutMs,
    ...(deadlines.queryTimeoutMs > 0 ? { query_timeout: deadlines.queryTimeoutMs } : {}),
    keepAlive: true,
    keepAliveInitialDelayMillis: CLIENT_KEEPALIVE_DELAY_MS,
  });
  // A connection can drop (a server restart) while its client sits idle in the pool or checked out
  // between queries (a scope lock's pinned connection, an open transaction); pg emits 'error' on it,
  // which crashes the process without a listener. The pending or next query on that client fails
  // (a transient error: the job is retried), and the pool discards it on release.
  pool.on('error', () => undefined);
  pool.on('connect', (client) => {
    client.on('error', () => undefined);
    if (deadlines.queryTimeoutMs > 0) closeOnQueryTimeout(client, deadlines.queryTimeoutMs);
  });
  return pool;
}

/**
 * pg rejects a query past its deadline but keeps the client, still waiting on the old query, and
 * the pool would hand it out again. Ending it destroys the socket and marks the client so the pool
 * drops it on release.
 */
function closeOnQueryTimeout(client: pg.PoolClient, queryTimeoutMs: number): void {
  const query = client.query.bind(client) as (...args: unknown[]) => unknown;
  (client as { query: unknown }).query = (...args: unknown[]) => {
    const result = query(...args);
    if (!(result instanceof Promise)) return result;
    return result.catch((error: unknown) => {
      if (!isQueryReadTimeout(error)) throw error;
      endQuietly(client);
      throw new QueryDeadlineError(queryTimeoutMs, error);
    });
  };
}

export function isQueryReadTimeout(error: unknown): error is Error {
  return error instanceof Error && error.message === QUERY_READ_TIMEOUT;
}

/** Ending a client whose socket may be dead: the outcome does not matter, only that it is dropped. */
function endQuietly(client: pg.PoolClient): void {
  client.end().catch(() => undefined);
}

export class QueryDeadlineError extends Error {
  override readonly name = 'QueryDeadlineError';
  constructor(ms: number, cause: Error) {
    super(
      `PostgreSQL did not answer a query within ${ms} ms (database.queryTimeoutMs): the connection was closed and the work is retried`,
      { cause },
    );
  }
}
