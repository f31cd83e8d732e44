/**
 * One runner per scope at a time, whichever entry point started it (DESIGN rule 6).
 *
 * On PostgreSQL: a session-level advisory lock held on a pinned pool connection for the run; if
 * the process dies, its connection closes and the lock goes with it. On the embedded warehouse
 * (one process by construction) an in-process set does the same job. Correctness never rests on
 * the lock alone: upserts are idempotent and the watermark never moves backwards.
 */
import { sql, type Kysely } from 'kysely';
import { onAbort } from '../abort.js';
import type { Warehouse } from '../warehouse/database.js';

export type ReleaseLock = () => Promise<void>;

export interface ScopeLock {
  /**
   * Returns a release function, or undefined when another runner holds the scope. An aborted
   * `signal` (a job past its deadline, a shutdown) releases the lock at once, even while the run
   * is still unwinding: a run that hangs never keeps its scope from the next one.
   */
  tryAcquire(scopeKey: string, signal?: AbortSignal): Promise<ReleaseLock | undefined>;
}

const LOCK_NAMESPACE = 'events-mirror:scope:';

const embeddedLocks = new WeakMap<Warehouse, ScopeLock>();

export function scopeLockFor(warehouse: Warehouse): ScopeLock {
  if (warehouse.kind === 'postgres') return advisoryLock(warehouse.db as Kysely<unknown>);
  let lock = embeddedLocks.get(warehouse);
  if (!lock) embeddedLocks.set(warehouse, (lock = inProcessLock()));
  return lock;
}

function advisoryLock(db: Kysely<unknown>): ScopeLock {
  return {
    tryAcquire(scopeKey, signal) {
      const key = LOCK_NAMESPACE + scopeKey;
      return new Promise<ReleaseLock | undefined>((resolve, reject) => {
        let letGo!: () => void;
        const released = new Promise<void>((r) => (letGo = r));
        let settled = false;
        const connectionDone = db
          .connection()
          .execute(async (conn) => {
            const { rows } = await sql<{ locked: boolean }>`select pg_try_advisory_lock(hashtextextended(${key}, 0)) as locked`.execute(
              conn,
            );
            if (!rows[0]?.locked) {
              settled = true;
              resolve(undefined);
              return;
            }
            settled = true;
            const stopWaiting = signal ? onAbort(signal, letGo) : undefined;
            resolve(async () => {
              letGo();
              await connectionDone;
            });
            await released;
            stopWaiting?.();
            await sql`select pg_advisory_unlock(hashtextextended(${key}, 0))`.execute(conn);
          })
          .catch((error: unknown) => {
            if (!settled) reject(error);
            // After a successful acquire, a failed unlock means the connection is gone, and the
            // lock with it: nothing to do.
          });
      });
    },
  };
}

function inProcessLock(): ScopeLock {
  const held = new Set<string>();
  return {
    async tryAcquire(scopeKey, signal) {
      if (held.has(scopeKey)) return undefined;
      held.add(scopeKey);
      const letGo = () => held.delete(scopeKey);
      const stopWaiting = signal ? onAbort(signal, letGo) : undefined;
      return async () => {
        stopWaiting?.();
        letGo();
      };
    },
  };
}
