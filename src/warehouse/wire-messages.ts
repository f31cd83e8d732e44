/**
 * PostgreSQL wire-protocol messages (protocol 3.0) as the served warehouse needs them: framing a
 * byte stream into messages, and the few messages it writes itself. Each message is one Buffer:
 * its type byte (none for the start-up ones), its length, its body.
 */

/** SSLRequest, GSSENCRequest and CancelRequest: an untyped message whose first field is this code. */
export const SSL_REQUEST = 80877103;
export const GSSENC_REQUEST = 80877104;
export const CANCEL_REQUEST = 80877102;

/**
 * Splits a stream into messages. Until `untyped` is turned off (after the start-up message), a
 * message is a length then a body; after it, a type byte, a length, a body.
 */
export class MessageReader {
  private pending = Buffer.alloc(0);
  untyped: boolean;

  constructor(untyped: boolean) {
    this.untyped = untyped;
  }

  /** The messages `chunk` completes, in order. */
  push(chunk: Uint8Array): Buffer[] {
    this.pending = this.pending.length === 0 ? Buffer.from(chunk) : Buffer.concat([this.pending, chunk]);
    const messages: Buffer[] = [];
    for (;;) {
      const head = this.untyped ? 0 : 1;
      if (this.pending.length < head + 4) break;
      const size = head + this.pending.readInt32BE(head);
      if (size < head + 4) throw new Error(`malformed message length ${size - head}`);
      if (this.pending.length < size) break;
      messages.push(this.pending.subarray(0, size));
      this.pending = this.pending.subarray(size);
      // Only one start-up message is untyped: what follows it is typed.
      if (this.untyped && messages.at(-1)!.readInt32BE(4) === 196608) this.untyped = false;
    }
    return messages;
  }

  /** Bytes of a message not yet complete. */
  get buffered(): number {
    return this.pending.length;
  }
}

export function typeOf(message: Buffer): string {
  return String.fromCharCode(message[0]!);
}

/** The null-terminated string of `message` starting at `from`, and the offset after it. */
export function cString(message: Buffer, from: number): [string, number] {
  const end = message.indexOf(0, from);
  const stop = end === -1 ? message.length : end;
  return [message.toString('utf8', from, stop), stop + 1];
}

function typed(type: string, ...parts: Buffer[]): Buffer {
  const body = Buffer.concat(parts);
  const header = Buffer.alloc(5);
  header.write(type, 0, 'latin1');
  header.writeInt32BE(body.length + 4, 1);
  return Buffer.concat([header, body]);
}

const text = (value: string) => Buffer.concat([Buffer.from(value, 'utf8'), Buffer.from([0])]);
const int16 = (value: number) => Buffer.from([(value >> 8) & 0xff, value & 0xff]);
const int32 = (value: number) => {
  const buffer = Buffer.alloc(4);
  buffer.writeInt32BE(value);
  return buffer;
};

export function errorResponse(severity: 'ERROR' | 'FATAL', code: string, message: string): Buffer {
  const field = (name: string, value: string) => Buffer.concat([Buffer.from(name), text(value)]);
  return typed('E', field('S', severity), field('V', severity), field('C', code), field('M', message), Buffer.from([0]));
}

export function readyForQuery(status: 'I' | 'T' | 'E'): Buffer {
  return typed('Z', Buffer.from(status, 'latin1'));
}

/** Parse of the unnamed statement, no parameter types. */
export function parseMessage(query: string): Buffer {
  return typed('P', text(''), text(query), int16(0));
}

/** Bind of the unnamed portal to the unnamed statement: no parameters, results as text. */
export function bindMessage(): Buffer {
  return typed('B', text(''), text(''), int16(0), int16(0), int16(0));
}

export function describePortalMessage(portal: string): Buffer {
  return typed('D', Buffer.from('P'), text(portal));
}

export function executeMessage(portal: string, maxRows: number): Buffer {
  return typed('E', text(portal), int32(maxRows));
}

export function syncMessage(): Buffer {
  return typed('S');
}

export function portalSuspended(): Buffer {
  return typed('s');
}
