/**
 * How the served warehouse runs a client's query on PGlite without holding its whole result:
 * PGlite runs a statement to its end on the process's one thread, and what it answers in that
 * time stays in memory until the client reads it. So rows are asked for in batches (the
 * protocol's Execute with a row limit, about a megabyte each) and the next batch waits until the
 * client has read the previous one (backpressure); a result past RESULT_CAP_BYTES is ended with an
 * error. A simple Query is run as its extended-protocol equivalent (Parse, Bind, Describe,
 * Execute…, Sync) for that, the messages only that equivalent adds left out of the answer.
 */
import {
  bindMessage,
  cString,
  describePortalMessage,
  errorResponse,
  executeMessage,
  parseMessage,
  portalSuspended,
  syncMessage,
} from './wire-messages.js';

/** The rows of one result the port sends at most; past it the client gets an error (SQLSTATE 54000). */
export const RESULT_CAP_BYTES = 256 * 1024 * 1024;
/** About this much of a result is asked of PGlite at a time. */
const BATCH_BYTES = 1024 * 1024;
const MAX_BATCH_ROWS = 10_000;

/** One protocol message run on the session; its answer as messages. */
export type Backend = (message: Buffer) => Promise<Buffer[]>;

export interface ClientOutput {
  write(messages: readonly Buffer[]): void;
  /** Resolves once the client has read most of what was written (rejects if it left). */
  drained(): Promise<void>;
}

const [DATA_ROW, PORTAL_SUSPENDED, ERROR, PARSE_COMPLETE, BIND_COMPLETE, NO_DATA] = [0x44, 0x73, 0x45, 0x31, 0x32, 0x6e];

/** A simple Query, run in batches; resolves with the ReadyForQuery status PGlite answered. */
export async function runSimpleQuery(backend: Backend, query: string, out: ClientOutput, capBytes: number): Promise<string> {
  let failed = false;
  for (const message of [parseMessage(query), bindMessage(), describePortalMessage('')]) {
    const answer = await backend(message);
    failed = answer.some((m) => m[0] === ERROR);
    out.write(answer.filter((m) => m[0] !== PARSE_COMPLETE && m[0] !== BIND_COMPLETE && m[0] !== NO_DATA));
    if (failed) break;
  }
  if (!failed && (await streamPortal(backend, '', 0, out, capBytes)) === 'capped') out.write([capError(capBytes)]);
  const ready = await backend(syncMessage());
  out.write(ready);
  return readyStatus(ready) ?? 'I';
}

/** A client's Execute, run in batches; 'capped' means the client must be answered as after an error. */
export async function runExecute(backend: Backend, message: Buffer, out: ClientOutput, capBytes: number): Promise<'ok' | 'capped'> {
  const [portal, next] = cString(message, 5);
  const maxRows = message.length >= next + 4 ? message.readInt32BE(next) : 0;
  if ((await streamPortal(backend, portal, maxRows, out, capBytes)) !== 'capped') return 'ok';
  out.write([capError(capBytes)]);
  return 'capped';
}

/** The status of the ReadyForQuery that ends `answer`, if it does. */
export function readyStatus(answer: readonly Buffer[]): string | undefined {
  const last = answer.at(-1);
  return last && last[0] === 0x5a && last.length === 6 ? String.fromCharCode(last[5]!) : undefined;
}

async function streamPortal(
  backend: Backend,
  portal: string,
  limit: number,
  out: ClientOutput,
  capBytes: number,
): Promise<'done' | 'suspended' | 'capped'> {
  // One row first: its size sets how many rows make about BATCH_BYTES.
  let [rows, bytes, batch] = [0, 0, 1];
  for (;;) {
    const answer = await backend(executeMessage(portal, limit > 0 ? Math.min(batch, limit - rows) : batch));
    const forward: Buffer[] = [];
    let [batchRows, batchBytes, suspended] = [0, 0, false];
    for (const message of answer) {
      if (message[0] === PORTAL_SUSPENDED) {
        suspended = true;
        continue;
      }
      if (message[0] === DATA_ROW) {
        batchRows += 1;
        batchBytes += message.length;
        if (bytes + batchBytes > capBytes) {
          out.write(forward);
          return 'capped';
        }
      }
      forward.push(message);
    }
    out.write(forward);
    [rows, bytes] = [rows + batchRows, bytes + batchBytes];
    if (!suspended) return 'done';
    if (limit > 0 && rows >= limit) {
      out.write([portalSuspended()]);
      return 'suspended';
    }
    batch = Math.max(1, Math.min(MAX_BATCH_ROWS, Math.floor((BATCH_BYTES * batchRows) / Math.max(batchBytes, 1))));
    await out.drained();
  }
}

function capError(capBytes: number): Buffer {
  const mib = Math.round(capBytes / (1024 * 1024));
  return errorResponse(
    'ERROR',
    '54000',
    `events-mirror serves at most ${mib} MiB of rows per result, and this one is larger: narrow it (where, limit) or page through it (limit/offset, or a cursor and FETCH)`,
  );
}
