/**
 * The embedded warehouse's one PGlite session, shared by everything that uses it in this process.
 *
 * PGlite is a single PostgreSQL backend: one session, one transaction at a time, one unnamed
 * prepared statement. Kysely's PGlite driver already hands out one connection at a time, but a
 * transaction spans several queries, and a second user of the session (the clients of
 * `sync --serve-sql`, pglite-served.ts) must not run statements inside it, nor the mirror inside
 * theirs. The gate here is that turn-taking: Kysely holds it from acquiring a connection to
 * releasing it (a transaction's whole length), and any other user holds it for its own unit.
 */
import type { PGlite } from '@electric-sql/pglite';
import type { DatabaseConnection, Dialect, Driver, TransactionSettings } from 'kysely';
import { EXACT_RESULT_PARSERS } from './result-values.js';

/** A statement's columns, in order, and its rows as arrays in that order. */
export interface QueryRows {
  readonly fields: string[];
  readonly rows: unknown[][];
}

/** Turns, first come first served. */
export class SessionGate {
  private tail: Promise<void> = Promise.resolve();
  private waiting = 0;

  /** Resolves when it is the caller's turn, with the function that ends it. */
  acquire(): Promise<() => void> {
    let end!: () => void;
    const turn = new Promise<void>((resolve) => (end = resolve));
    const previous = this.tail;
    this.tail = previous.then(() => turn);
    this.waiting += 1;
    return previous.then(() => {
      this.waiting -= 1;
      let ended = false;
      return () => {
        if (ended) return;
        ended = true;
        end();
      };
    });
  }

  /** Turns asked for and not yet given. */
  get queued(): number {
    return this.waiting;
  }

  async run<T>(work: () => Promise<T>): Promise<T> {
    const end = await this.acquire();
    try {
      return await work();
    } finally {
      end();
    }
  }
}

export class PgliteSession {
  readonly gate = new SessionGate();

  constructor(
    readonly client: PGlite,
    /** `SET search_path TO "<schema>"`: what the mirror's statements expect of the session. */
    readonly setSearchPath: string,
  ) {}

  /** `inner` (Kysely's PGlite dialect) with every connection holding the gate while it is out. */
  dialect(inner: Dialect): Dialect {
    const gate = this.gate;
    return {
      createAdapter: () => inner.createAdapter(),
      createQueryCompiler: () => inner.createQueryCompiler(),
      createIntrospector: (db) => inner.createIntrospector(db),
      createDriver: (): Driver => {
        const driver = inner.createDriver();
        // The gate lets one connection out at a time, so one end is pending at most.
        let endTurn: (() => void) | undefined;
        return {
          init: () => driver.init(),
          async acquireConnection(): Promise<DatabaseConnection> {
            const end = await gate.acquire();
            try {
              const connection = await driver.acquireConnection();
              endTurn = end;
              return connection;
            } catch (error) {
              end();
              throw error;
            }
          },
          beginTransaction: (connection: DatabaseConnection, settings: TransactionSettings) =>
            driver.beginTransaction(connection, settings),
          commitTransaction: (connection: DatabaseConnection) => driver.commitTransaction(connection),
          rollbackTransaction: (connection: DatabaseConnection) => driver.rollbackTransaction(connection),
          async releaseConnection(connection: DatabaseConnection): Promise<void> {
            const end = endTurn;
            endTurn = undefined;
            try {
              await driver.releaseConnection(connection);
            } finally {
              end?.();
            }
          },
          destroy: () => driver.destroy(),
        };
      },
    };
  }

  /** One statement in a READ ONLY transaction, rolled back; the extended protocol refuses several. */
  readOnlyQuery(text: string): Promise<QueryRows> {
    return this.gate.run(async () => {
      await this.client.query('BEGIN READ ONLY');
      try {
        const result = await this.client.query<unknown[]>(text, [], { rowMode: 'array', parsers: EXACT_RESULT_PARSERS });
        return { fields: result.fields.map((f) => f.name), rows: result.rows };
      } finally {
        await this.client.query('ROLLBACK');
      }
    });
  }
}
