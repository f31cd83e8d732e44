/**
 * The warehouse connection: PostgreSQL through a pg Pool when a URL is configured, otherwise an
 * embedded, file-backed PGlite under the data directory. Either way every connection's
 * search_path is the configured schema and builder queries are schema-qualified, so callers use
 * bare table names.
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { CompiledQuery, Kysely, PostgresDialect, sql, type Dialect } from 'kysely';
import { PGliteDialect } from 'kysely-pglite-dialect';
import pg from 'pg';
import { WarehouseError, errorMessage } from '../errors.js';
import type { Logger } from '../logger.js';
import { urlLocation } from '../url-display.js';
import { lockDataDir, type DataDirLock } from './data-dir-lock.js';
import { assertPlainIdentifier, quoteIdentifier } from './identifier.js';
import { copyCapableTransaction } from './copy-transaction.js';
import { DEFAULT_POSTGRES_DEADLINES, createPostgresPool, sessionSettingsSql, type PostgresDeadlines } from './postgres-pool.js';
import { PgliteSession, type QueryRows } from './pglite-session.js';
import { EXACT_RESULT_PARSERS } from './result-values.js';
import { judgeReadOnly } from './read-only-guard.js';
import type { Database } from './tables.js';

export type * from './tables.js';
export type { QueryRows } from './pglite-session.js';

export interface Warehouse {
  /** Scoped to `schema`: use bare table names. */
  readonly db: Kysely<Database>;
  readonly kind: 'postgres' | 'pglite';
  readonly schema: string;
  /**
   * Runs `work` in one transaction. On PostgreSQL that transaction can also COPY rows in
   * (`copyInOf(trx)`, copy-transaction.ts), on the connection its statements use.
   */
  transaction<T>(work: (trx: Kysely<Database>) => Promise<T>): Promise<T>;
  /**
   * Runs one statement the read-only guard allows (read-only-guard.ts; else a WarehouseError
   * READ_ONLY_REFUSED) inside a READ ONLY transaction that is then rolled back, a second wall;
   * sent with the extended protocol, which refuses several statements.
   */
  readOnlyQuery(text: string): Promise<QueryRows>;
  /** The embedded warehouse's PGlite session (to serve it, pglite-served.ts); undefined on PostgreSQL. */
  readonly pglite?: PgliteSession;
  close(): Promise<void>;
}

const warehouses = new WeakMap<Kysely<Database>, Warehouse>();

/** The warehouse whose `db` this is (not a transaction of it). */
export function warehouseOf(db: Kysely<Database>): Warehouse | undefined {
  return warehouses.get(db);
}

export interface WarehouseOptions {
  /** PostgreSQL connection string; unset means the embedded PGlite warehouse. */
  url?: string;
  schema: string;
  /** Where the embedded warehouse lives (`<dataDir>/pglite`); `memory://` keeps it in memory. */
  dataDir: string;
  logger?: Logger;
  poolSize?: number;
  /** PostgreSQL only: how long a connect and a query may take (see postgres-pool.ts). */
  deadlines?: PostgresDeadlines;
}

export const IN_MEMORY = 'memory://';

// Same shapes on both drivers: bigint as number (ids and counts stay far below 2^53), date and
// interval as their PostgreSQL text.
const INT8 = 20;
const DATE = 1082;
const INTERVAL = 1186;
const asText = (value: string) => value;

export async function createWarehouse(options: WarehouseOptions): Promise<Warehouse> {
  const schema = assertPlainIdentifier(options.schema);
  const setSearchPath = `SET search_path TO ${quoteIdentifier(schema)}`;
  const { dialect, kind, where, lock, postgres, session } = options.url
    ? postgresDialect(options.url, setSearchPath, options.poolSize, options.deadlines)
    : await pgliteDialect(options.dataDir, setSearchPath);
  const root = new Kysely<Database>({ dialect });
  const destroy = async () => {
    // PGlite's close sets process.exitCode to 0 (its runtime exiting), which would turn a failed
    // run that closes its warehouse afterwards into a success.
    const exitCode = process.exitCode;
    try {
      await root.destroy();
    } finally {
      process.exitCode = exitCode;
      lock?.release();
    }
  };
  try {
    await sql`select 1`.execute(root);
  } catch (error) {
    await destroy().catch(() => undefined);
    throw new WarehouseError('WAREHOUSE_UNREACHABLE', `cannot open the warehouse at ${where}: ${errorMessage(error)}; check DATABASE_URL`, {
      cause: error,
    });
  }
  options.logger?.debug({ kind, where, schema }, 'warehouse opened');
  let closed: Promise<void> | undefined;
  const db = root.withSchema(schema);
  const warehouse: Warehouse = {
    db,
    kind,
    schema,
    transaction: postgres
      ? (work) =>
          copyCapableTransaction(postgres.pool, postgres.sessionSetup, schema, options.deadlines ?? DEFAULT_POSTGRES_DEADLINES, work)
      : (work) => db.transaction().execute(work),
    readOnlyQuery: async (text) => {
      await assertReadOnly(text);
      return postgres ? postgresReadOnlyQuery(postgres.pool, postgres.sessionSetup, text) : session!.readOnlyQuery(text);
    },
    ...(session ? { pglite: session } : {}),
    close: () => (closed ??= destroy()),
  };
  warehouses.set(db, warehouse);
  return warehouse;
}

interface OpenedDialect {
  readonly dialect: Dialect;
  readonly kind: 'postgres' | 'pglite';
  readonly where: string;
  readonly lock?: DataDirLock;
  /** PostgreSQL only: the pool behind the dialect and each connection's session setup. */
  readonly postgres?: { readonly pool: pg.Pool; readonly sessionSetup: string };
  readonly session?: PgliteSession;
}

async function assertReadOnly(text: string): Promise<void> {
  const { statements, refusal } = await judgeReadOnly(text);
  if (refusal) throw new WarehouseError('READ_ONLY_REFUSED', refusal);
  if (statements !== 1) throw new WarehouseError('READ_ONLY_REFUSED', `one statement at a time: this text holds ${statements}`);
}

async function postgresReadOnlyQuery(pool: pg.Pool, sessionSetup: string, text: string): Promise<QueryRows> {
  const client = await pool.connect();
  let broken: Error | undefined;
  try {
    // The session settings inside the transaction: the rollback undoes whatever the statement set.
    await client.query(`BEGIN READ ONLY; ${sessionSetup}`);
    try {
      const result = await client.query<unknown[]>({
        text,
        rowMode: 'array',
        queryMode: 'extended',
        types: READ_ONLY_TYPES,
      } as pg.QueryConfig & {
        rowMode: 'array';
      });
      return { fields: result.fields.map((f) => f.name), rows: result.rows };
    } finally {
      await client.query('ROLLBACK').catch((error: unknown) => {
        broken = error instanceof Error ? error : new Error(String(error));
      });
    }
  } finally {
    client.release(broken);
  }
}

const POSTGRES_PARSERS: Record<number, (value: string) => unknown> = { [INT8]: Number, [DATE]: asText, [INTERVAL]: asText };
const typeParserOf = (parsers: Readonly<Record<number, (value: string) => unknown>>) =>
  ((oid: number, format?: 'text' | 'binary') =>
    parsers[oid] ?? (pg.types.getTypeParser(oid, format) as (value: string) => unknown)) as typeof pg.types.getTypeParser;
/** `readOnlyQuery`'s rows are printed: numbers and JSON as PostgreSQL wrote them (result-values.ts). */
const READ_ONLY_TYPES = { getTypeParser: typeParserOf({ ...POSTGRES_PARSERS, ...EXACT_RESULT_PARSERS }) };

function postgresDialect(url: string, setSearchPath: string, poolSize = 10, deadlines = DEFAULT_POSTGRES_DEADLINES): OpenedDialect {
  const pool = createPostgresPool(
    {
      connectionString: url,
      max: poolSize,
      types: { getTypeParser: typeParserOf(POSTGRES_PARSERS) },
    },
    deadlines,
  );
  const sessionSetup = `${setSearchPath}; ${sessionSettingsSql(deadlines)}`;
  const dialect = new PostgresDialect({
    pool,
    onCreateConnection: async (connection) => {
      await connection.executeQuery(CompiledQuery.raw(sessionSetup));
    },
  });
  return { dialect, kind: 'postgres', where: describeUrl(url), postgres: { pool, sessionSetup } };
}

/**
 * The embedded PostgreSQL's buffer pool, instead of initdb's 128MB: PGlite clears it in WebAssembly
 * memory at every start, which every command opening the embedded warehouse paid. Measured on 2
 * cores (2026-11-27): status on the demo's warehouse 3.2 CPU-s and 270 MB RSS instead of 3.6 and
 * 370; a sync --once of 200,000 events 29.9 CPU-s instead of 32.1 (the demo unchanged at 9 s).
 */
const EMBEDDED_SHARED_BUFFERS = '32MB';

async function pgliteDialect(dataDir: string, setSearchPath: string): Promise<OpenedDialect> {
  const location = dataDir === IN_MEMORY ? IN_MEMORY : path.resolve(dataDir, 'pglite');
  if (location !== IN_MEMORY) mkdirSync(location, { recursive: true });
  // Before PGlite touches the files: a second process must not even open them.
  const lock = location === IN_MEMORY ? undefined : lockDataDir(`${location}.lock`, location);
  let client: PGlite;
  try {
    client = await PGlite.create(location, {
      parsers: { [INT8]: Number, [DATE]: asText, [INTERVAL]: asText },
      startParams: [...PGlite.defaultStartParams, '-c', `shared_buffers=${EMBEDDED_SHARED_BUFFERS}`],
    });
    // One session serves every query, so setting it once covers them all.
    await client.exec(setSearchPath);
  } catch (error) {
    lock?.release();
    throw new WarehouseError('WAREHOUSE_UNREACHABLE', `cannot open the embedded warehouse at ${location}: ${errorMessage(error)}`, {
      cause: error,
    });
  }
  const session = new PgliteSession(client, setSearchPath);
  return { dialect: session.dialect(new PGliteDialect(client)), kind: 'pglite', where: location, session, ...(lock ? { lock } : {}) };
}

/** postgres://host:port/database, never the user name, password or query. */
export function describeUrl(url: string): string {
  return urlLocation(url, 'DATABASE_URL (not a valid URL)');
}
