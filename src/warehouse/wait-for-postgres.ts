/**
 * A worker or scheduler started while PostgreSQL does not answer (a deploy that restarts the
 * database, a failover, a pooler not up yet) waits for it, as it waits for Redis, instead of
 * exiting 1 and crash-looping: the open is tried again with a capped backoff until `timeoutMs`,
 * the process says so once, its /readyz stays unready meanwhile (the caller's probes fail until
 * the warehouse is open), and a stop signal ends the wait at once.
 *
 * Only a database that does not answer is waited for. A refused password, a missing database or
 * an unmigrated schema is a configuration error that waiting cannot fix: it fails at once.
 */
import { errorMessage } from '../errors.js';
import type { Logger } from '../logger.js';

export interface WaitForPostgresOptions<T> {
  /** Where PostgreSQL is, without secrets (describeUrl). */
  readonly where: string;
  readonly logger: Logger;
  readonly timeoutMs: number;
  /** Settles when the process is asked to stop. */
  readonly stop: Promise<unknown>;
  /** Closes what an open that finished after the stop returned. */
  readonly dispose: (opened: T) => Promise<void>;
  /** Longest wait between two tries; the first is 250 ms, doubling. */
  readonly maxDelayMs?: number;
}

/**
 * What says PostgreSQL is not answering (yet), as data: system errors of the socket, SQLSTATEs of
 * a server starting, stopping or full, and pg's own messages for a connection that timed out or
 * was closed under it.
 */
const UNAVAILABLE_CODES = new Set([
  'ECONNREFUSED', // nothing listens: the server is down or not started yet
  'ECONNRESET', // closed while connecting: a restart
  'ETIMEDOUT', // no answer at the TCP level
  'EHOSTUNREACH',
  'ENETUNREACH', // the route or the host is not up yet (a new node, a failover)
  'EAI_AGAIN', // DNS did not answer (not ENOTFOUND: a name that does not exist is a typo)
  'EPIPE',
  '57P01', // admin_shutdown: a fast shutdown ended the session
  '57P02', // crash_shutdown
  '57P03', // cannot_connect_now: starting up, shutting down, in recovery
  '53300', // too_many_connections: others are leaving during a deploy
]);
const UNAVAILABLE_MESSAGES = [
  /^Connection terminated unexpectedly$/,
  /^Connection terminated due to connection timeout$/,
  /^timeout exceeded when trying to connect$/,
];

/** Whether `error` (or an error it wraps) says PostgreSQL does not answer, rather than refusing. */
export function isPostgresUnavailable(error: unknown): boolean {
  for (let e: unknown = error, depth = 0; e !== undefined && e !== null && depth < 5; depth += 1) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && (UNAVAILABLE_CODES.has(code) || code.startsWith('08'))) return true;
    const message = e instanceof Error ? e.message : '';
    if (UNAVAILABLE_MESSAGES.some((pattern) => pattern.test(message))) return true;
    // Several addresses (localhost as ::1 and 127.0.0.1): an AggregateError of the refusals.
    if (e instanceof AggregateError && e.errors.length > 0 && e.errors.every((inner) => isPostgresUnavailable(inner))) return true;
    e = (e as { cause?: unknown }).cause;
  }
  return false;
}

/** `open()`'s result once PostgreSQL answers, or 'stopped' when the stop came first. */
export async function openWhenPostgresAnswers<T>(open: () => Promise<T>, options: WaitForPostgresOptions<T>): Promise<T | 'stopped'> {
  const deadline = Date.now() + options.timeoutMs;
  const maxDelay = options.maxDelayMs ?? 5_000;
  let stopped = false;
  const stop = options.stop.then(() => {
    stopped = true;
    return 'stopped' as const;
  });
  let waiting = false;
  for (let attempt = 0; ; attempt += 1) {
    const opening = open();
    const first = await Promise.race([opening.then((opened) => ({ opened })), stop]).catch((error: unknown) => ({ error }));
    if (first === 'stopped') {
      // The open goes on in the background: whatever it opens is closed.
      void opening.then(options.dispose, () => undefined).catch(() => undefined);
      return 'stopped';
    }
    if ('opened' in first) {
      if (waiting) options.logger.info({ postgres: options.where }, `PostgreSQL at ${options.where} answers: starting`);
      return first.opened;
    }
    const { error } = first;
    if (!isPostgresUnavailable(error)) throw error;
    const reason = innermostMessage(error);
    if (Date.now() >= deadline) {
      throw new Error(
        `PostgreSQL at ${options.where} did not answer within ${options.timeoutMs} ms (${reason}): check DATABASE_URL and that PostgreSQL is running`,
        { cause: error },
      );
    }
    if (!waiting) {
      waiting = true;
      options.logger.warn(
        { postgres: options.where, err: { message: reason } },
        `PostgreSQL at ${options.where} does not answer (${reason}): waiting up to ${Math.round(options.timeoutMs / 1000)} s for it, unready meanwhile`,
      );
    }
    const delay = Math.min(250 * 2 ** Math.min(attempt, 10), maxDelay, Math.max(0, deadline - Date.now()));
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([new Promise((resolve) => (timer = setTimeout(resolve, delay))), stop]);
    clearTimeout(timer);
    if (stopped) return 'stopped';
  }
}

/** The driver's own words (`connect ECONNREFUSED 127.0.0.1:5432`), under our wrapping. */
function innermostMessage(error: unknown): string {
  let e = error;
  while (e instanceof Error && e.cause instanceof Error) e = e.cause;
  if (e instanceof AggregateError && e.message === '' && e.errors[0] instanceof Error) return e.errors[0].message;
  return errorMessage(e);
}
