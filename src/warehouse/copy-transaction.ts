/**
 * Transactions that can COPY rows in on PostgreSQL: pg-copy-streams needs the pg client itself,
 * which Kysely keeps to itself, so the transaction runs on a Kysely bound to one pooled connection
 * and registers a COPY channel for it (`copyInOf`). A COPY keeps the pool's query deadline.
 */
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { CompiledQuery, Kysely, PostgresDialect } from 'kysely';
import type pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { quoteIdentifier } from './identifier.js';
import { QueryDeadlineError, isQueryReadTimeout, type PostgresDeadlines } from './postgres-pool.js';
import type { Database } from './tables.js';

/** Streams rows in COPY's text format (UTF-8) into `table` (columns in that order), inside a transaction. */
export type CopyIn = (table: string, columns: readonly string[], rows: Buffer) => Promise<void>;

const copyIns = new WeakMap<Kysely<Database>, CopyIn>();

/** The COPY channel of a transaction opened by `Warehouse.transaction` on PostgreSQL. */
export function copyInOf(db: Kysely<Database>): CopyIn | undefined {
  return copyIns.get(db);
}

/** One Kysely per pooled connection, for transactions that must also COPY on that connection. */
const connectionDbs = new WeakMap<pg.PoolClient, Kysely<Database>>();

export async function copyCapableTransaction<T>(
  pool: pg.Pool,
  sessionSetup: string,
  schema: string,
  deadlines: PostgresDeadlines,
  work: (trx: Kysely<Database>) => Promise<T>,
): Promise<T> {
  const client = await pool.connect();
  let broken: Error | undefined;
  let failure: { error: unknown } | undefined;
  try {
    let db = connectionDbs.get(client);
    if (!db) {
      // Kysely releases a connection after each use; this one goes back to the pool only below.
      const pinned = { query: client.query.bind(client), release: () => undefined } as unknown as pg.PoolClient;
      db = new Kysely<Database>({
        dialect: new PostgresDialect({
          pool: { connect: async () => pinned, end: async () => undefined },
          onCreateConnection: async (connection) => {
            await connection.executeQuery(CompiledQuery.raw(sessionSetup));
          },
        }),
      }).withSchema(schema);
      connectionDbs.set(client, db);
    }
    const copyIn: CopyIn = (table, columns, rows) => copyRows(client, deadlines, schema, table, columns, rows);
    return await db.transaction().execute(async (trx) => {
      copyIns.set(trx, copyIn);
      try {
        return await work(trx);
      } catch (error) {
        failure ??= { error };
        throw error;
      }
    });
  } catch (error) {
    // A ROLLBACK on a connection the deadline closed fails too: the reason is the work's error.
    const reason = failure ? failure.error : error;
    if (reason instanceof QueryDeadlineError || reason !== error) broken = reason instanceof Error ? reason : new Error(String(reason));
    throw reason;
  } finally {
    client.release(broken);
  }
}

async function copyRows(
  client: pg.PoolClient,
  deadlines: PostgresDeadlines,
  schema: string,
  table: string,
  columns: readonly string[],
  rows: Buffer,
): Promise<void> {
  const statement = `COPY ${quoteIdentifier(schema)}.${quoteIdentifier(table)} (${columns.map(quoteIdentifier).join(', ')}) FROM STDIN`;
  try {
    await pipeline(Readable.from([rows]), client.query(copyFrom(statement)));
  } catch (error) {
    // pg's query_timeout covers a COPY too; as for any query past it, the connection is dropped.
    if (isQueryReadTimeout(error)) {
      client.end().catch(() => undefined);
      throw new QueryDeadlineError(deadlines.queryTimeoutMs, error);
    }
    throw error;
  }
}
