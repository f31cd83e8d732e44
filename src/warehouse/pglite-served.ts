/**
 * Serves the embedded warehouse over the PostgreSQL wire protocol (`sync --serve-sql PORT`) from
 * the PGlite session the mirror writes to: psql, Grafana and BI tools read it while the process
 * keeps mirroring. This module is the socket: it frames each client's messages, answers psql's
 * SSLRequest `N` (no TLS), refuses what the read-only guard refuses (read-only-guard.ts) before
 * it reaches PGlite, and writes the answers back, reading no further from a client it is still
 * writing to. Turns on the one session are served-turns.ts's; results in batches with
 * backpressure and a size cap, served-results.ts's.
 *
 * It guards against writes; it is no security boundary for reads (the port asks for no password):
 * keep it on loopback. PGlite runs a statement on the process's one thread: a long client query
 * holds the whole process (the mirror's requests wait, and may time out and be retried) until it ends.
 */
import { listenOn } from '../listen.js';
import { createServer, type Socket } from 'node:net';
import { UsageError } from '../errors.js';
import type { Logger } from '../logger.js';
import type { PgliteSession } from './pglite-session.js';
import { judgeReadOnly } from './read-only-guard.js';
import { RESULT_CAP_BYTES, readyStatus, runExecute, runSimpleQuery, type ClientOutput } from './served-results.js';
import { ClientTurns, type TurnHolder } from './served-turns.js';
import {
  CANCEL_REQUEST,
  GSSENC_REQUEST,
  MessageReader,
  SSL_REQUEST,
  cString,
  errorResponse,
  readyForQuery,
  typeOf,
} from './wire-messages.js';

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
  /** The rows of one result sent at most (RESULT_CAP_BYTES unless given). */
  readonly resultCapBytes?: number;
}

const MAX_CONNECTIONS = 16;
/** Unsent bytes to a client past which no more rows are asked for until it reads. */
const HIGH_WATER_BYTES = 1024 * 1024;
/** Messages read ahead of the one running, past which a client is not read from until it catches up. */
const MAX_QUEUED_MESSAGES = 64;

export async function serveWarehouse(session: PgliteSession, options: ServeOptions): Promise<ServedWarehouse> {
  const turns = await ClientTurns.open(session, options.logger);
  const capBytes = options.resultCapBytes ?? RESULT_CAP_BYTES;
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    if (sockets.size >= (options.maxConnections ?? MAX_CONNECTIONS)) {
      socket.end(errorResponse('FATAL', '53300', 'sorry, too many clients already'));
      return;
    }
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    new ServedConnection(socket, turns, capBytes, options.logger);
  });
  let port: number;
  try {
    port = await listenOn(server, options.port, options.host);
  } catch (error) {
    await turns.close();
    if ((error as { code?: unknown }).code === 'EADDRINUSE') {
      throw new UsageError(`--serve-sql port ${options.port} on ${options.host} is in use: pick another port (0 picks a free one)`);
    }
    throw error;
  }
  let closed: Promise<void> | undefined;
  return {
    host: options.host,
    port,
    close: () =>
      (closed ??= (async () => {
        const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
        for (const socket of sockets) socket.destroy();
        await stopped;
        await turns.close();
      })()),
  };
}

/** One client: its messages run one after another, each in the client's turn on the session. */
class ServedConnection implements TurnHolder, ClientOutput {
  private readonly reader = new MessageReader(true);
  private queued = 0;
  private chain: Promise<void> = Promise.resolve();
  private closed = false;
  /** After an error in an extended-protocol exchange, messages are dropped until the client's Sync, as PostgreSQL does. */
  private discarding = false;
  stalledSince: number | undefined;

  constructor(
    private readonly socket: Socket,
    private readonly turns: ClientTurns,
    private readonly capBytes: number,
    private readonly logger: Logger,
  ) {
    socket.setNoDelay(true);
    socket.on('data', (chunk: Buffer) => this.receive(chunk));
    socket.on('error', () => socket.destroy());
    socket.on('close', () => {
      this.closed = true;
      void this.chain.then(() => this.turns.leave(this));
    });
  }

  endForLimit(message: string): void {
    if (this.closed) return;
    this.closed = true;
    this.socket.end(errorResponse('FATAL', '25P03', message));
    // A client that reads nothing would keep the socket half open: it goes now.
    if (this.stalledSince !== undefined) this.socket.destroy();
  }

  private receive(chunk: Buffer): void {
    let messages: Buffer[];
    try {
      messages = this.reader.push(chunk);
    } catch {
      this.socket.destroy();
      return;
    }
    for (const message of messages) {
      this.queued += 1;
      this.chain = this.chain
        .then(() => (this.closed ? undefined : this.handle(message)))
        .catch((error: unknown) => {
          if (!this.closed) this.logger.warn({ err: error }, 'a SQL client connection failed');
          this.closed = true;
          this.socket.destroy();
        })
        .finally(() => {
          this.queued -= 1;
          if (this.queued < MAX_QUEUED_MESSAGES / 4 && this.socket.isPaused()) this.socket.resume();
        });
    }
    if (this.queued >= MAX_QUEUED_MESSAGES) this.socket.pause();
  }

  private async handle(message: Buffer): Promise<void> {
    // An untyped message starts with its length; a typed one with a letter, far above any length.
    if (message.readInt32BE(0) === message.length) return this.handleUntyped(message);
    const type = typeOf(message);
    if (type === 'X') {
      this.closed = true;
      this.socket.end();
      return;
    }
    if (this.discarding && type !== 'S') return;
    const refusal = await refusalOf(message);
    if (refusal) {
      const error = errorResponse('ERROR', '25006', refusal);
      if (type === 'Q') this.write([error, readyForQuery(this.turns.inTransaction(this) ? 'T' : 'I')]);
      else {
        this.write([error]);
        this.discarding = true;
      }
      return;
    }
    if (type === 'S') this.discarding = false;
    await this.turns.run(this, async () => {
      if (type === 'Q') return (await runSimpleQuery(this.turns.backend, cString(message, 5)[0], this, this.capBytes)) === 'I';
      if (type === 'E') {
        if ((await runExecute(this.turns.backend, message, this, this.capBytes)) === 'capped') this.discarding = true;
        return false;
      }
      const answer = await this.turns.backend(message);
      this.write(answer);
      if (answer.some((m) => m[0] === 0x45) && type !== 'S') this.discarding = true;
      return readyStatus(answer) === 'I';
    });
  }

  /** SSLRequest and GSSENCRequest: no (psql goes on in plain text); CancelRequest: not served; start-up: PGlite answers it. */
  private async handleUntyped(message: Buffer): Promise<void> {
    const code = message.readInt32BE(4);
    if (message.length === 8 && (code === SSL_REQUEST || code === GSSENC_REQUEST)) {
      this.socket.write('N');
      return;
    }
    if (code === CANCEL_REQUEST || code !== 196608) {
      this.closed = true;
      this.socket.destroy();
      return;
    }
    await this.turns.run(this, async () => {
      const answer = await this.turns.backend(message);
      this.write(answer);
      return readyStatus(answer) === 'I';
    });
  }

  write(messages: readonly Buffer[]): void {
    if (this.closed || messages.length === 0) return;
    this.socket.write(messages.length === 1 ? messages[0]! : Buffer.concat(messages));
  }

  drained(): Promise<void> {
    if (this.socket.writableLength <= HIGH_WATER_BYTES) return Promise.resolve();
    this.stalledSince = Date.now();
    return new Promise<void>((resolve, reject) => {
      const done = (error?: Error) => {
        this.socket.off('drain', onDrain);
        this.socket.off('close', onClose);
        this.stalledSince = undefined;
        if (error) reject(error);
        else resolve();
      };
      const onDrain = () => done();
      const onClose = () => done(new Error('the SQL client left before reading its rows'));
      this.socket.on('drain', onDrain);
      this.socket.on('close', onClose);
    });
  }
}

/** Why a client's message is refused, or undefined: a Query or Parse the guard refuses, a FunctionCall. */
async function refusalOf(message: Buffer): Promise<string | undefined> {
  const type = typeOf(message);
  let text: string;
  if (type === 'Q') text = cString(message, 5)[0];
  else if (type === 'P') text = cString(message, cString(message, 5)[1])[0];
  else if (type === 'F')
    return "events-mirror serves the warehouse read-only: the protocol's FunctionCall message is refused (it calls any function by its id)";
  else return undefined;
  const { statements, refusal } = await judgeReadOnly(text);
  if (statements > 1) {
    return `events-mirror serves the warehouse read-only, one statement a query: this one holds ${statements}; send them one at a time`;
  }
  if (refusal) return `events-mirror serves the warehouse read-only: ${refusal} (docs/warehouse.md lists what runs)`;
  return undefined;
}
