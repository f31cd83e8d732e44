/**
 * Writing answers with the service's headers: the 200 headers of API.md, error bodies, the
 * Digest challenge, the envelope, and the cut-short body fault.
 */
import type { ServerResponse } from 'node:http';
import type { ApiErrorBody } from '../events/types.js';

export const SERVICE_VERSION = 'gitHash=5b1f1e2c8d0a4e6f9b3c7d2a1e0f4b6c8d9e2a3f; versionString=v20261122';

export interface AnswerOptions {
  pretty?: boolean;
  /** Send a 200 whose body stops halfway, then destroy the socket. */
  cut?: boolean;
  headers?: Record<string, string>;
}

function serialize(body: unknown, pretty: boolean): Buffer {
  return Buffer.from(pretty ? JSON.stringify(body, null, 2) : JSON.stringify(body), 'utf8');
}

/** A 200 with the headers of a real success answer. */
export function sendOk(res: ServerResponse, body: unknown, options: AnswerOptions = {}): void {
  const bytes = serialize(body, options.pretty ?? false);
  res.writeHead(200, {
    'Content-Type': 'application/json',
    'Content-Length': String(bytes.length),
    'X-MongoDB-Service-Version': SERVICE_VERSION,
    'Strict-Transport-Security': 'max-age=300',
    Vary: 'Accept-Encoding',
    ...options.headers,
  });
  if (options.cut && bytes.length > 1) {
    res.write(bytes.subarray(0, Math.floor(bytes.length / 2)), () => res.destroy());
    return;
  }
  res.end(bytes);
}

/** An error answer; with `envelope` it becomes a 200 carrying `{status, content}`. */
export function sendError(res: ServerResponse, error: ApiErrorBody, options: AnswerOptions & { envelope?: boolean } = {}): void {
  if (options.envelope) {
    sendOk(res, { status: error.error, content: error }, options);
    return;
  }
  const bytes = serialize(error, options.pretty ?? false);
  res.writeHead(error.error, {
    'Content-Type': 'application/json',
    'Content-Length': String(bytes.length),
    ...options.headers,
  });
  res.end(bytes);
}

/** The Digest challenge: 401, `WWW-Authenticate`, and the JSON body in ISO-8859-1. */
export function sendChallenge(res: ServerResponse, wwwAuthenticate: string, error: ApiErrorBody): void {
  const bytes = Buffer.from(JSON.stringify(error), 'latin1');
  res.writeHead(401, {
    'WWW-Authenticate': wwwAuthenticate,
    'Content-Type': 'application/json;charset=ISO-8859-1',
    'Content-Length': String(bytes.length),
  });
  res.end(bytes);
}
