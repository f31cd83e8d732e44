/**
 * Log records in the form of the service's event export (shared/API-NOTES.md, "Push export"), and
 * an OTLP/HTTP client that posts them as the export does, for the receiver's tests.
 */
import { gzipSync } from 'node:zlib';
import { encodeProtobufRequest } from '../../src/receiver/otlp-messages.js';

export interface ExportBody {
  readonly _id?: string;
  readonly eventType?: string;
  readonly projectId?: string;
  readonly orgId?: string;
  readonly createdDate?: number;
  readonly eventPayload?: string;
  readonly [field: string]: unknown;
}

/** One record as the export writes it (severityNumber as the enum name, as its documentation shows). */
export function exportLogRecord(body: ExportBody): Record<string, unknown> {
  const attributes = [
    ['mongodb.event.id', body._id],
    ['mongodb.event.type', body.eventType],
    ['mongodb.project.id', body.projectId],
    ['mongodb.org.id', body.orgId],
    ['mongodb.event.payload.encoding', 'json'],
  ]
    .filter(([, value]) => value !== undefined)
    .map(([key, value]) => ({ key, value: { stringValue: value } }));
  return {
    timeUnixNano: `${body.createdDate ?? 0}000000`,
    severityNumber: 'SEVERITY_NUMBER_INFO',
    severityText: 'INFO',
    body: { stringValue: JSON.stringify(body) },
    attributes,
  };
}

export function exportRequest(records: readonly Record<string, unknown>[]): Record<string, unknown> {
  return {
    resourceLogs: [
      {
        resource: { attributes: [{ key: 'service.name', value: { stringValue: 'mongodb-atlas-events' } }] },
        scopeLogs: [{ scope: {}, logRecords: records }],
      },
    ],
  };
}

export function projectEvent(projectId: string, id: string, createdMs: number, payload: Record<string, unknown> = {}): ExportBody {
  return {
    _id: id,
    eventType: '/events/mms/groups/joined_group',
    projectId,
    createdDate: createdMs,
    resources: [],
    eventPayload: JSON.stringify({ username: 'ana@example.com', ...payload }),
    source: { sourceType: 'USER', sourceInfo: { username: 'ana@example.com' } },
  };
}

export interface PostResult {
  readonly status: number;
  readonly headers: Headers;
  readonly body: Buffer;
}

export async function postLogs(
  url: string,
  request: Record<string, unknown> | string | Buffer,
  options: { token?: string; as?: 'json' | 'protobuf'; gzip?: boolean; contentType?: string } = {},
): Promise<PostResult> {
  const as = options.as ?? 'json';
  let body: Buffer =
    typeof request === 'string'
      ? Buffer.from(request)
      : Buffer.isBuffer(request)
        ? request
        : as === 'json'
          ? Buffer.from(JSON.stringify(request))
          : Buffer.from(encodeProtobufRequest(request));
  if (options.gzip) body = gzipSync(body);
  const response = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': options.contentType ?? (as === 'json' ? 'application/json' : 'application/x-protobuf'),
      ...(options.gzip ? { 'content-encoding': 'gzip' } : {}),
      ...(options.token !== undefined ? { authorization: `Bearer ${options.token}` } : {}),
    },
    body: new Uint8Array(body),
  });
  return { status: response.status, headers: response.headers, body: Buffer.from(await response.arrayBuffer()) };
}
