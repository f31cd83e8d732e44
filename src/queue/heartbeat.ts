/**
 * A scheduler's or worker's heartbeat in the warehouse's `processes` table: written at start, every
 * `HEARTBEAT_MS`, and once more with the stop time when the process stops cleanly. A heartbeat
 * that fails (PostgreSQL down, an old schema) is logged once, until one succeeds again: it never
 * stops the process, whose work does not depend on it.
 */
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { Kysely } from 'kysely';
import { errorMessage } from '../errors.js';
import type { Logger } from '../logger.js';
import { HEARTBEAT_MS, recordHeartbeat, recordStopped, type ProcessKind } from '../warehouse/processes.repository.js';
import type { Database } from '../warehouse/tables.js';

export interface Heartbeat {
  /** Stops the beats and records the stop time. */
  stop(): Promise<void>;
}

export function startHeartbeat(options: {
  readonly kind: ProcessKind;
  /** The warehouse, or a function that opens it (tried again at each beat until it succeeds). */
  readonly db: () => Promise<Kysely<Database>>;
  readonly logger: Logger;
  readonly everyMs?: number;
}): Heartbeat {
  const identity = { id: randomUUID(), kind: options.kind, host: hostname(), pid: process.pid, startedAt: new Date() };
  let failing = false;
  let beating: Promise<void> | undefined;
  const beat = () => {
    beating ??= options
      .db()
      .then((db) => recordHeartbeat(db, identity, new Date()))
      .then(
        () => {
          if (failing) options.logger.info(`${options.kind} heartbeat recorded again in the warehouse`);
          failing = false;
        },
        (error: unknown) => {
          if (!failing) {
            options.logger.warn(
              { err: { message: errorMessage(error) } },
              `${options.kind} heartbeat not recorded in the warehouse (status will not show this process; retried every ${Math.round((options.everyMs ?? HEARTBEAT_MS) / 1000)} s): ${errorMessage(error)}`,
            );
          }
          failing = true;
        },
      )
      .finally(() => (beating = undefined));
  };
  beat();
  const timer = setInterval(beat, options.everyMs ?? HEARTBEAT_MS);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await beating;
      await recordStopped(await options.db(), identity.id, new Date()).catch(() => undefined);
    },
  };
}
