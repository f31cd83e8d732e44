/**
 * OTLP/HTTP logs receiver: `POST /v1/logs` with a JSON or protobuf ExportLogsServiceRequest,
 * optionally gzip-compressed, behind a bearer token. Answers as an OTLP sender expects:
 * - 200 with an ExportLogsServiceResponse once the records are committed; `partial_success` counts
 *   the records set aside in rejected_events (the sender must not retry those);
 * - 400 for a request that is not the message (a google.rpc.Status says why), 401 for a missing or
 *   wrong token, 404 / 405 for another path or method, 413 for a body over the limit, 415 for
 *   another content type or encoding;
 * - 429 when more requests wait on the warehouse than it is given, 503 when the warehouse fails:
 *   both with Retry-After, so the sender retries. Nothing is acknowledged that was not committed.
 */
import { listenOn, urlHost } from '../listen.js';
import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { errorMessage } from '../errors.js';
import type { Logger } from '../logger.js';
import type { Warehouse } from '../warehouse/database.js';
import { bearerTokenCheck } from './bearer-token.js';
import { MalformedRequestError, recordsFromJson, recordsFromProtobuf } from './logs-request.js';
import { RPC_CODE, encodeResponse, encodeStatus } from './otlp-messages.js';
import type { ReceiverMetrics } from './receiver-metrics.js';
import { BodyEncodingError, BodyTooLargeError, inflate, readBody } from './request-body.js';
import { storeRecords } from './store-records.js';

export const LOGS_PATH = '/v1/logs';

export interface ReceiverServerOptions {
  readonly host: string;
  readonly port: number;
  readonly token: string;
  readonly maxBodyBytes: number;
  /** Requests waiting on the warehouse at once; more are answered 429. */
  readonly maxPendingRequests: number;
  readonly retryAfterSeconds: number;
  /** PEM certificate and key: the port speaks HTTPS. */
  readonly tls?: { readonly cert: Buffer; readonly key: Buffer };
  readonly warehouse: Warehouse;
  readonly logger: Logger;
  readonly metrics: ReceiverMetrics;
}

export interface ReceiverServer {
  readonly port: number;
  /** `http(s)://host:port/v1/logs`. */
  readonly url: string;
  close(): Promise<void>;
}

const CONTENT_TYPES = { 'application/json': 'json', 'application/x-protobuf': 'protobuf' } as const;
type Encoding = (typeof CONTENT_TYPES)[keyof typeof CONTENT_TYPES];

export async function startReceiverServer(options: ReceiverServerOptions): Promise<ReceiverServer> {
  const authorized = bearerTokenCheck(options.token);
  let pending = 0;

  const handle = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    const path = (request.url ?? '/').split('?')[0];
    const contentType = (request.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
    const as: Encoding = contentType === 'application/x-protobuf' ? 'protobuf' : 'json';
    const answer = (status: number, body: Buffer, headers: Record<string, string> = {}) => {
      options.metrics.recordAnswer(status);
      response.writeHead(status, {
        'content-type': as === 'protobuf' ? 'application/x-protobuf' : 'application/json',
        'content-length': String(body.length),
        ...headers,
      });
      response.end(body);
    };
    const refuse = (status: number, code: number, message: string, headers: Record<string, string> = {}) =>
      answer(status, encodeStatus(code, message, as), headers);
    // The body of a request refused before it was read is not read: the connection closes.
    const refuseUnread = (status: number, code: number, message: string, headers: Record<string, string> = {}) => {
      refuse(status, code, message, { connection: 'close', ...headers });
      response.once('finish', () => request.destroy());
    };

    if (path !== LOGS_PATH) return refuseUnread(404, RPC_CODE.UNIMPLEMENTED, `not found: the receiver takes POST ${LOGS_PATH}`);
    if (request.method !== 'POST')
      return refuseUnread(405, RPC_CODE.UNIMPLEMENTED, `method ${request.method} not allowed: use POST`, { allow: 'POST' });
    if (!authorized(request.headers.authorization)) {
      return refuseUnread(401, RPC_CODE.UNAUTHENTICATED, 'missing or wrong bearer token', { 'www-authenticate': 'Bearer' });
    }
    if (!(contentType in CONTENT_TYPES)) {
      return refuseUnread(
        415,
        RPC_CODE.INVALID_ARGUMENT,
        `unsupported content type "${contentType}": use application/json or application/x-protobuf`,
      );
    }
    const encoding = (request.headers['content-encoding'] ?? 'identity').trim().toLowerCase();
    if (encoding !== 'gzip' && encoding !== 'identity') {
      return refuseUnread(415, RPC_CODE.INVALID_ARGUMENT, `unsupported content encoding "${encoding}": use gzip or none`);
    }
    const declared = Number(request.headers['content-length'] ?? 0);
    if (declared > options.maxBodyBytes) {
      return refuseUnread(413, RPC_CODE.INVALID_ARGUMENT, `the body is over ${options.maxBodyBytes} bytes (receiver.maxBodyBytes)`);
    }
    if (pending >= options.maxPendingRequests) {
      return refuseUnread(429, RPC_CODE.RESOURCE_EXHAUSTED, 'the warehouse is busy: retry later', {
        'retry-after': String(options.retryAfterSeconds),
      });
    }
    pending += 1;
    try {
      let records: string[];
      try {
        const wire = await readBody(request, options.maxBodyBytes);
        const body = encoding === 'gzip' ? await inflate(wire, options.maxBodyBytes) : wire;
        records = as === 'json' ? recordsFromJson(body.toString('utf8')) : recordsFromProtobuf(body);
      } catch (error) {
        if (error instanceof BodyTooLargeError) return refuseUnread(413, RPC_CODE.INVALID_ARGUMENT, error.message);
        if (error instanceof MalformedRequestError || error instanceof BodyEncodingError) {
          return refuse(400, RPC_CODE.INVALID_ARGUMENT, error.message);
        }
        throw error;
      }
      const started = performance.now();
      let stored;
      try {
        stored = await storeRecords(options.warehouse, records);
      } catch (error) {
        options.logger.warn(
          { err: { message: errorMessage(error) }, records: records.length },
          `push: ${records.length} records not stored, answered 503 for the sender to retry: ${errorMessage(error)}`,
        );
        return refuse(503, RPC_CODE.UNAVAILABLE, 'the warehouse cannot take the records now: retry later', {
          'retry-after': String(options.retryAfterSeconds),
        });
      }
      options.metrics.recordStored(stored, (performance.now() - started) / 1000);
      options.logger.debug(
        { ...stored, reasons: undefined },
        `push: ${records.length} records (${stored.inserted} new, ${stored.held} held, ${stored.rejected} set aside)`,
      );
      if (stored.rejected > 0) {
        options.logger.warn(
          { rejected: stored.rejected, reasons: stored.reasons.slice(0, 5) },
          `push: ${stored.rejected} records set aside in rejected_events (${stored.reasons.slice(0, 3).join('; ')}); the rest landed`,
        );
      }
      return answer(
        200,
        encodeResponse(
          {
            rejected: stored.rejected,
            errorMessage: stored.rejected > 0 ? `set aside in rejected_events: ${stored.reasons.slice(0, 5).join('; ')}` : undefined,
          },
          as,
        ),
      );
    } finally {
      pending -= 1;
    }
  };

  const listener = (request: IncomingMessage, response: ServerResponse) => {
    handle(request, response).catch((error: unknown) => {
      options.logger.error({ err: error }, `push: request failed: ${errorMessage(error)}`);
      if (!response.headersSent) {
        response.writeHead(500, { 'content-type': 'application/json', connection: 'close' });
        response.end(JSON.stringify({ code: 13, message: 'internal error' }));
      } else response.destroy();
    });
  };
  const server: Server = options.tls
    ? createHttpsServer({ cert: options.tls.cert, key: options.tls.key }, listener)
    : createHttpServer(listener);
  server.keepAliveTimeout = 65_000;
  const port = await listenOn(server, options.port, options.host);
  return {
    port,
    url: `${options.tls ? 'https' : 'http'}://${urlHost(options.host)}:${port}${LOGS_PATH}`,
    close: () =>
      new Promise<void>((resolve) => {
        // Requests in flight finish (their answer says what committed); idle connections close now.
        server.close(() => resolve());
        server.closeIdleConnections();
      }),
  };
}
