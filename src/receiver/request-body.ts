/**
 * A request's body, bounded: the bytes on the wire and, for gzip, the bytes they inflate to are
 * each held to the limit, so neither a large body nor a small compressed one that inflates
 * without end (a "zip bomb") takes the receiver's memory.
 */
import type { IncomingMessage } from 'node:http';
import { promisify } from 'node:util';
import { gunzip } from 'node:zlib';

const gunzipBounded = promisify(gunzip);

export class BodyTooLargeError extends Error {
  override readonly name = 'BodyTooLargeError';
}

export class BodyEncodingError extends Error {
  override readonly name = 'BodyEncodingError';
}

export async function readBody(request: IncomingMessage, limitBytes: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let length = 0;
  for await (const chunk of request as AsyncIterable<Buffer>) {
    length += chunk.length;
    if (length > limitBytes) throw new BodyTooLargeError(`the body is over ${limitBytes} bytes (receiver.maxBodyBytes)`);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks, length);
}

export async function inflate(body: Buffer, limitBytes: number): Promise<Buffer> {
  try {
    return await gunzipBounded(body, { maxOutputLength: limitBytes });
  } catch (error) {
    if ((error as { code?: unknown }).code === 'ERR_BUFFER_TOO_LARGE' || error instanceof RangeError) {
      throw new BodyTooLargeError(`the body inflates to over ${limitBytes} bytes (receiver.maxBodyBytes)`);
    }
    throw new BodyEncodingError(`the body is not valid gzip: ${(error as Error).message}`);
  }
}
