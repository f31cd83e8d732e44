/**
 * Serves the embedded warehouse over the PostgreSQL wire protocol (`sync --serve-sql PORT`), with
 * @electric-sql/pglite-socket, from the PGlite session the mirror writes to: psql, Grafana and BI
 * tools read it while the process keeps mirroring.
 *
 * PGlite is one backend session. pglite-socket queues its clients' protocol messages one at a time
 * into it; here, besides:
 * - Turns with the mirror (PgliteSession's gate). A client's turn starts at its first message and
 *   ends when PGlite answers ReadyForQuery outside a transaction; meanwhile the mirror waits, and
 *   while the mirror holds a connection (a transaction's whole length) clients wait. A client that
 *   keeps a transaction open past CLIENT_TURN_LIMIT_MS while the mirror waits has it rolled back.
 * - Read-only clients. Each turn runs with `default_transaction_read_only = on`, so PostgreSQL
 *   refuses a write (SQLSTATE 25006), and a statement that would lift it (`read write`,
 *   `default_transaction_read_only`, `set_config`, `reset`, `discard`, `do` blocks) or several
 *   statements in one query are refused before they run. After the turn the session is reset
 *   (`RESET ALL`, the warehouse's search_path) for the mirror. It guards against writes by mistake;
 *   it is not a security boundary (the port asks for no password): keep it on loopback.
 * - psql's SSLRequest (sslmode=prefer, its default) is answered `N` (no TLS) in front of
 *   pglite-socket, which does not know it: the TCP port is ours and relays to pglite-socket on a
 *   Unix socket in a private temporary folder.
 *
 * PGlite runs a statement on the process's one thread: a long client query holds the whole process
 * (the mirror's requests wait, and may time out and be retried) until it ends.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createConnection, createServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { PGlite } from '@electric-sql/pglite';
import type { PGLiteSocketServer } from '@electric-sql/pglite-socket';
import { UsageError } from '../errors.js';
import type { Logger } from '../logger.js';
import type { PgliteSession } from './pglite-session.js';
import { judgeReadOnly } from './read-only-guard.js';

export interface ServedWarehouse {
  readonly host: string;
  readonly port: number;
  close(): Promise<void>;
}

export interface ServeOptions {
  readonly host: string;
  /** 0 picks a free port. */
  readonly port: number;
  readonly logger: Logger;
  readonly maxConnections?: number;
}

/** How long a client may keep a transaction open while the mirror waits for the session. */
export const CLIENT_TURN_LIMIT_MS = 15_000;
const MAX_CONNECTIONS = 16;

/** SSLRequest and GSSENCRequest: 8 bytes, length 8 then the request code. */
const SSL_REQUEST = 80877103;
const GSSENC_REQUEST = 80877104;

/**
 * After each turn, the session as the mirror expects it: RESET ALL leaves the role and the session
 * user alone, so they are reset by name (the guard refuses setting them: this is the second wall).
 */
const RESTORE_SESSION = 'RESET SESSION AUTHORIZATION; RESET ROLE; RESET ALL; CLOSE ALL';

export async function serveWarehouse(session: PgliteSession, options: ServeOptions): Promise<ServedWarehouse> {
  // Loaded when serving only: every other command starts without it.
  const { PGLiteSocketServer } = await import('@electric-sql/pglite-socket');
  const socketDir = mkdtempSync(path.join(tmpdir(), 'events-mirror-sql-'));
  const socketPath = path.join(socketDir, 'pglite.sock');
  const served: { server?: PGLiteSocketServer } = {};
  // After a turn ended by the limit, the clients already queued are served without a new message
  // (pglite-socket's queue has no public way to be told).
  const kick = () =>
    void (served.server as unknown as { queryQueue?: { processQueue?: () => Promise<void> } } | undefined)?.queryQueue?.processQueue?.();
  const turns = new ClientTurns(session, options.logger, kick);
  const inner = new PGLiteSocketServer({
    db: turns.db,
    path: socketPath,
    maxConnections: options.maxConnections ?? MAX_CONNECTIONS,
  });
  served.server = inner;
  await inner.start();
  const sockets = new Set<Socket>();
  const outer = createServer((client) => relay(client, socketPath, sockets));
  try {
    await new Promise<void>((resolve, reject) => {
      outer.once('error', reject);
      outer.listen(options.port, options.host, () => {
        outer.off('error', reject);
        resolve();
      });
    });
  } catch (error) {
    await inner.stop();
    rmSync(socketDir, { recursive: true, force: true });
    if ((error as { code?: unknown }).code === 'EADDRINUSE') {
      throw new UsageError(`--serve-sql port ${options.port} on ${options.host} is in use: pick another port (0 picks a free one)`);
    }
    throw error;
  }
  const address = outer.address();
  const port = typeof address === 'object' && address ? address.port : options.port;
  let closed: Promise<void> | undefined;
  return {
    host: options.host,
    port,
    close: () =>
      (closed ??= (async () => {
        const stopped = new Promise<void>((resolve) => outer.close(() => resolve()));
        for (const socket of sockets) socket.destroy();
        await stopped;
        await inner.stop();
        await turns.close();
        rmSync(socketDir, { recursive: true, force: true });
      })()),
  };
}

/** One TCP client: SSLRequest answered `N`, then every byte relayed to pglite-socket and back. */
function relay(client: Socket, socketPath: string, sockets: Set<Socket>): void {
  sockets.add(client);
  client.on('close', () => sockets.delete(client));
  client.on('error', () => client.destroy());
  let head = Buffer.alloc(0);
  const onFirstBytes = (chunk: Buffer) => {
    head = Buffer.concat([head, chunk]);
    if (head.length < 8) return;
    const code = head.readInt32BE(4);
    if (head.readInt32BE(0) === 8 && (code === SSL_REQUEST || code === GSSENC_REQUEST)) {
      client.write('N');
      head = head.subarray(8);
      if (head.length < 8) return;
    }
    client.off('data', onFirstBytes);
    client.pause();
    const upstream = createConnection(socketPath, () => {
      upstream.write(head);
      client.pipe(upstream);
      upstream.pipe(client);
      client.resume();
    });
    sockets.add(upstream);
    upstream.on('close', () => {
      sockets.delete(upstream);
      client.destroy();
    });
    upstream.on('error', () => client.destroy());
    client.on('close', () => upstream.destroy());
  };
  client.on('data', onFirstBytes);
}

interface Turn {
  readonly end: () => void;
  readonly startedAt: number;
  /** The last answer ended with ReadyForQuery outside a transaction: the turn can end. */
  idle: boolean;
  /** A refused Parse: its messages are dropped until the client's Sync, as PostgreSQL does. */
  discarding: boolean;
}

/**
 * The PGlite stand-in given to pglite-socket: its queue calls runExclusive and execProtocolRawStream
 * for each client message, and asks isInTransaction() to keep serving the same client.
 */
class ClientTurns {
  private turn: Turn | undefined;
  private executing = false;
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly session: PgliteSession,
    private readonly logger: Logger,
    private readonly kick: () => void,
  ) {
    this.timer = setInterval(() => void this.enforceLimit(), 1000);
    this.timer.unref();
  }

  get db(): PGlite {
    const client = this.session.client;
    const stand = {
      waitReady: client.waitReady,
      isInTransaction: () => this.turn !== undefined,
      runExclusive: <T>(work: () => Promise<T>) => this.runExclusive(work),
      execProtocolRawStream: (message: Uint8Array, options: { onRawData: (data: Uint8Array) => void }) =>
        this.execute(message, options.onRawData),
      // pglite-socket's clean-up when a client leaves inside its turn.
      exec: async () => {
        await this.endTurn(true);
        return [];
      },
    };
    return stand as unknown as PGlite;
  }

  private async runExclusive<T>(work: () => Promise<T>): Promise<T> {
    if (!this.turn) {
      const end = await this.session.gate.acquire();
      this.turn = { end, startedAt: Date.now(), idle: false, discarding: false };
      await this.session.client.exec('SET default_transaction_read_only = on');
    }
    this.executing = true;
    try {
      return await this.session.client.runExclusive(work);
    } finally {
      this.executing = false;
      if (this.turn?.idle) await this.endTurn(false);
    }
  }

  private async execute(message: Uint8Array, onRawData: (data: Uint8Array) => void): Promise<void> {
    const turn = this.turn!;
    const type = String.fromCharCode(message[0] ?? 0);
    if (turn.discarding && type !== 'S') return;
    const refusal = await refusalOf(message);
    if (refusal) {
      onRawData(errorResponse(refusal));
      if (type === 'Q') {
        onRawData(readyForQuery(this.session.client.isInTransaction() ? 'T' : 'I'));
        turn.idle = !this.session.client.isInTransaction();
      } else {
        turn.discarding = true;
      }
      return;
    }
    if (type === 'S') turn.discarding = false;
    let tail: Uint8Array = new Uint8Array(0);
    await this.session.client.execProtocolRawStream(message, {
      onRawData: (data) => {
        tail = lastBytes(tail, data, 6);
        onRawData(data);
      },
    });
    // An answer ends with ReadyForQuery ('Z', length 5, status) when the client may send the next query.
    turn.idle = tail.length === 6 && tail[0] === 0x5a && tail[4] === 5 && tail[5] === 0x49;
  }

  /** Back to the mirror's session: the client's settings and open transaction gone. */
  private async endTurn(abandoned: boolean): Promise<void> {
    const turn = this.turn;
    if (!turn) return;
    this.turn = undefined;
    const client = this.session.client;
    try {
      if (abandoned) {
        // Ends an extended-protocol exchange left half way, then the transaction it left open.
        await client.execProtocolRaw(new Uint8Array([0x53, 0, 0, 0, 4]));
        if (client.isInTransaction()) await client.exec('ROLLBACK');
      }
      await client.exec(`${RESTORE_SESSION}; ${this.session.setSearchPath}`);
    } catch (error) {
      this.logger.error({ err: error }, 'could not reset the embedded warehouse session after a SQL client');
    } finally {
      turn.end();
    }
  }

  /** A client's transaction open past the limit while the mirror waits is rolled back. */
  private async enforceLimit(): Promise<void> {
    const turn = this.turn;
    if (!turn || this.executing || this.session.gate.queued === 0) return;
    if (Date.now() - turn.startedAt < CLIENT_TURN_LIMIT_MS) return;
    this.logger.warn(`a SQL client kept a transaction open over ${CLIENT_TURN_LIMIT_MS / 1000} s while the mirror waited: rolled back`);
    await this.endTurn(true);
    this.kick();
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.endTurn(true);
  }
}

/** Why a client's message is refused, or undefined: a Query or Parse the guard refuses, a FunctionCall. */
async function refusalOf(message: Uint8Array): Promise<string | undefined> {
  const type = message[0];
  let text: string;
  if (type === 0x51) text = cString(message, 5);
  else if (type === 0x50) text = cString(message, 5 + cString(message, 5, true).length + 1);
  else if (type === 0x46)
    return "events-mirror serves the warehouse read-only: the protocol's FunctionCall message is refused (it calls any function by its id)";
  else return undefined;
  const { statements, refusal } = await judgeReadOnly(text);
  if (statements > 1) {
    return `events-mirror serves the warehouse read-only, one statement a query: this one holds ${statements}; send them one at a time`;
  }
  if (refusal) return `events-mirror serves the warehouse read-only: ${refusal} (docs/warehouse.md lists what runs)`;
  return undefined;
}

function cString(message: Uint8Array, from: number, raw = false): string {
  let end = from;
  while (end < message.length && message[end] !== 0) end += 1;
  const bytes = message.subarray(from, end);
  return raw ? String.fromCharCode(...bytes) : Buffer.from(bytes).toString('utf8');
}

function errorResponse(text: string): Uint8Array {
  const fields = Buffer.concat(
    [
      ['S', 'ERROR'],
      ['V', 'ERROR'],
      ['C', '25006'],
      ['M', text],
    ].map(([code, value]) => Buffer.concat([Buffer.from(code!), Buffer.from(value!, 'utf8'), Buffer.from([0])])),
  );
  const body = Buffer.concat([fields, Buffer.from([0])]);
  const header = Buffer.alloc(5);
  header.write('E', 0);
  header.writeInt32BE(body.length + 4, 1);
  return Buffer.concat([header, body]);
}

function readyForQuery(status: 'I' | 'T'): Uint8Array {
  return Buffer.from([0x5a, 0, 0, 0, 5, status.charCodeAt(0)]);
}

function lastBytes(previous: Uint8Array, data: Uint8Array, count: number): Uint8Array {
  if (data.length >= count) return data.slice(data.length - count);
  const joined = new Uint8Array(previous.length + data.length);
  joined.set(previous);
  joined.set(data, previous.length);
  return joined.slice(Math.max(0, joined.length - count));
}
