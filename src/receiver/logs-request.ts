/**
 * The log records of one ExportLogsServiceRequest, each as JSON text: from a JSON body, the text of
 * each record exactly as sent (numbers keep every digit); from a protobuf body, each decoded record
 * written in the OTLP/JSON form. A request whose structure is not the message's is malformed (400);
 * a record's own content is judged later, one record at a time. Pure.
 */
import { arrayElements, memberText } from '../json-text.js';
import { decodeProtobufRequest } from './otlp-messages.js';

export class MalformedRequestError extends Error {
  override readonly name = 'MalformedRequestError';
}

/** OTLP/JSON names fields in lowerCamelCase; receivers accept the proto's snake_case too. */
function member(text: string, camel: string, snake: string): string | undefined {
  return memberText(text, camel) ?? memberText(text, snake);
}

function elements(text: string | undefined, where: string): string[] {
  if (text === undefined || text === 'null') return [];
  const found = arrayElements(text);
  if (found === undefined) throw new MalformedRequestError(`${where} is not an array`);
  return found;
}

export function recordsFromJson(text: string): string[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new MalformedRequestError(`the body is not JSON: ${(error as Error).message}`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new MalformedRequestError('the body is not an ExportLogsServiceRequest object');
  }
  const records: string[] = [];
  for (const [r, resourceLogs] of elements(member(text, 'resourceLogs', 'resource_logs'), 'resourceLogs').entries()) {
    if (!resourceLogs.startsWith('{')) throw new MalformedRequestError(`resourceLogs[${r}] is not an object`);
    for (const [s, scopeLogs] of elements(member(resourceLogs, 'scopeLogs', 'scope_logs'), `resourceLogs[${r}].scopeLogs`).entries()) {
      if (!scopeLogs.startsWith('{')) throw new MalformedRequestError(`resourceLogs[${r}].scopeLogs[${s}] is not an object`);
      records.push(...elements(member(scopeLogs, 'logRecords', 'log_records'), `resourceLogs[${r}].scopeLogs[${s}].logRecords`));
    }
  }
  return records;
}

interface DecodedRequest {
  resourceLogs?: Array<{ scopeLogs?: Array<{ logRecords?: unknown[] }> }>;
}

export function recordsFromProtobuf(bytes: Uint8Array): string[] {
  let request: DecodedRequest;
  try {
    request = decodeProtobufRequest(bytes) as DecodedRequest;
  } catch (error) {
    throw new MalformedRequestError(`the body is not a protobuf ExportLogsServiceRequest: ${(error as Error).message}`);
  }
  return (request.resourceLogs ?? []).flatMap((resource) =>
    (resource.scopeLogs ?? []).flatMap((scope) => (scope.logRecords ?? []).map((record) => JSON.stringify(record))),
  );
}
