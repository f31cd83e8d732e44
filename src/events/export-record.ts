/**
 * One OTLP log record of the service's event export (`logIntegrations`, log type EVENTS) → the
 * Events API's event, the warehouse's canonical representation. The export's body is not the API's
 * event: `_id`, `createdDate` in epoch milliseconds, `projectId`, a path-style `eventType`
 * (`/events/mms/alerts/alert_config_added_audit` where the API says ALERT_CONFIG_ADDED_AUDIT) and
 * `eventPayload`, a JSON string holding the rest. The mapping is built on the texts as sent, so
 * every number keeps its digits; the record itself is kept as received beside it. Pure.
 */
import { memberText, objectMembers } from '../json-text.js';
import { tryParseScope, type Scope } from '../scope.js';
import { formatApiDate } from '../time.js';
import type { ApiEvent, ValidEvent } from './types.js';
import { validateEvent } from './validate-event.js';

export type ExportMapping =
  | {
      readonly ok: true;
      readonly event: ValidEvent;
      /** The feed the event belongs to: its project's, else its organization's. */
      readonly scope: Scope;
      /** The log record's JSON text as received. */
      readonly original: string;
      /** The record's severityNumber, from an integer or an enum name (undefined when neither). */
      readonly severityNumber: number | undefined;
    }
  | {
      readonly ok: false;
      readonly reason: string;
      /** The feed, when the record names one. */
      readonly scope: Scope | undefined;
      readonly original: string;
    };

/** `createdDate` outside years 2000–9999 is not an event of this service (a unit mistake, seconds or nanoseconds). */
export const MIN_CREATED_MS = Date.UTC(2000, 0, 1);
export const MAX_CREATED_MS = Date.UTC(9999, 11, 31, 23, 59, 59, 999);

/** Members the mapping writes itself: the payload's own members of these names are left out. */
const MAPPED = new Set(['id', 'created', 'eventTypeName', 'groupId', 'orgId']);

/** OTLP's SeverityNumber enum names, whose values are their positions (SEVERITY_NUMBER_UNSPECIFIED = 0). */
const SEVERITY_LEVELS = ['TRACE', 'DEBUG', 'INFO', 'WARN', 'ERROR', 'FATAL'];

/** An integer 0–24, or `SEVERITY_NUMBER_INFO`-style names (the service's documented example writes the name). */
export function parseSeverityNumber(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isInteger(value) && value >= 0 && value <= 24 ? value : undefined;
  if (typeof value !== 'string') return undefined;
  if (/^\d{1,2}$/.test(value)) return parseSeverityNumber(Number(value));
  if (value === 'SEVERITY_NUMBER_UNSPECIFIED') return 0;
  const match = /^SEVERITY_NUMBER_([A-Z]+)([2-4])?$/.exec(value);
  const level = match ? SEVERITY_LEVELS.indexOf(match[1]!) : -1;
  return level < 0 ? undefined : level * 4 + Number(match![2] ?? 1);
}

/**
 * The API's eventTypeName for a path-style export type: its last segment, upper-cased. A name
 * already in the API's form is kept. Undefined when the type is no such thing.
 */
export function eventTypeNameOf(exportType: string): string | undefined {
  const last = exportType.split('/').findLast((segment) => segment !== '');
  return last !== undefined && /^[A-Za-z0-9_]{1,200}$/.test(last) ? last.toUpperCase() : undefined;
}

interface RecordShape {
  severityNumber?: unknown;
  body?: { stringValue?: unknown };
  attributes?: unknown;
}

/** The record's string attributes by key (others, and malformed entries, are left out). */
function stringAttributes(attributes: unknown): Map<string, string> {
  const found = new Map<string, string>();
  if (!Array.isArray(attributes)) return found;
  for (const attribute of attributes as Array<{ key?: unknown; value?: { stringValue?: unknown } } | null>) {
    const value = attribute?.value?.stringValue;
    if (typeof attribute?.key === 'string' && typeof value === 'string') found.set(attribute.key, value);
  }
  return found;
}

function stringMember(body: Record<string, unknown>, name: string): string | undefined {
  const value = body[name];
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** Maps one log record given as its JSON text (OTLP/JSON form; a protobuf record converted to it). */
export function mapExportRecord(original: string): ExportMapping {
  let scope: Scope | undefined;
  const reject = (reason: string): ExportMapping => ({ ok: false, reason, scope, original });
  let record: RecordShape;
  try {
    record = JSON.parse(original) as RecordShape;
  } catch {
    return reject('the log record is not JSON');
  }
  if (typeof record !== 'object' || record === null || Array.isArray(record)) return reject('the log record is not an object');
  const attributes = stringAttributes(record.attributes);
  const bodyText = record.body?.stringValue;
  const projectAttribute = attributes.get('mongodb.project.id');
  const orgAttribute = attributes.get('mongodb.org.id');
  scope = tryParseScope(projectAttribute ? `group:${projectAttribute}` : `org:${orgAttribute ?? ''}`);
  if (typeof bodyText !== 'string') return reject('body.stringValue is missing: the export sends each event as a JSON string there');
  let body: unknown;
  try {
    body = JSON.parse(bodyText);
  } catch {
    return reject('body.stringValue is not JSON');
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return reject('body.stringValue is not a JSON object');
  const fields = body as Record<string, unknown>;

  const groupId = stringMember(fields, 'projectId') ?? projectAttribute;
  const orgId = stringMember(fields, 'orgId') ?? orgAttribute;
  scope = groupId !== undefined ? tryParseScope(`group:${groupId}`) : orgId !== undefined ? tryParseScope(`org:${orgId}`) : undefined;
  if (!scope) {
    return reject(
      (groupId ?? orgId)
        ? `projectId / orgId "${groupId ?? orgId}" is not an id (1-64 letters, digits, - or _)`
        : 'neither projectId nor orgId, nor the mongodb.project.id / mongodb.org.id attributes',
    );
  }

  const idMember = stringMember(fields, '_id');
  const idAttribute = attributes.get('mongodb.event.id');
  if (idMember !== undefined && idAttribute !== undefined && idMember !== idAttribute) {
    return reject(`_id "${idMember}" differs from the mongodb.event.id attribute "${idAttribute}"`);
  }
  const id = idMember ?? idAttribute;
  if (id === undefined) return reject('no _id and no mongodb.event.id attribute');

  const createdText = memberText(bodyText, 'createdDate');
  if (createdText === undefined) return reject('no createdDate');
  if (!/^\d+$/.test(createdText)) return reject(`createdDate ${createdText.slice(0, 40)} is not whole epoch milliseconds`);
  // Compared as digits first: a longer number is out of range whatever a JavaScript number makes of it.
  const createdMs = createdText.length > 16 ? Number.POSITIVE_INFINITY : Number(createdText);
  if (createdMs < MIN_CREATED_MS || createdMs > MAX_CREATED_MS) {
    return reject(`createdDate ${createdText.slice(0, 40)} is outside years 2000–9999 (epoch milliseconds expected)`);
  }

  const exportType = stringMember(fields, 'eventType') ?? attributes.get('mongodb.event.type');
  if (exportType === undefined) return reject('no eventType and no mongodb.event.type attribute');
  const eventTypeName = eventTypeNameOf(exportType);
  if (eventTypeName === undefined) return reject(`eventType "${exportType.slice(0, 200)}" has no name in its last segment`);

  const encoding = attributes.get('mongodb.event.payload.encoding');
  if (encoding !== undefined && encoding.toLowerCase() !== 'json') return reject(`eventPayload encoding "${encoding}" is not json`);
  const payload = payloadMembers(bodyText);
  if (typeof payload === 'string') return reject(payload);

  const head = [
    `"id":${JSON.stringify(id)}`,
    `"created":${JSON.stringify(formatApiDate(createdMs))}`,
    `"eventTypeName":${JSON.stringify(eventTypeName)}`,
    ...(groupId !== undefined ? [`"groupId":${JSON.stringify(groupId)}`] : []),
    ...(orgId !== undefined ? [`"orgId":${JSON.stringify(orgId)}`] : []),
  ];
  const json = `{${[...head, ...payload].join(',')}}`;
  const check = validateEvent(JSON.parse(json) as ApiEvent, json);
  if (!check.ok) return reject(check.rejected.reason);
  return { ok: true, event: check.event, scope, original, severityNumber: parseSeverityNumber(record.severityNumber) };
}

/** `eventPayload`'s members as `"key":value` texts, or the reason they cannot be read. */
function payloadMembers(bodyText: string): string[] | string {
  const text = memberText(bodyText, 'eventPayload');
  if (text === undefined || text === 'null') return [];
  // Usually a JSON string holding the payload's text; an object as is.
  let payloadText = text;
  if (text.startsWith('"')) {
    payloadText = JSON.parse(text) as string;
    try {
      JSON.parse(payloadText);
    } catch {
      return 'eventPayload is a string that is not JSON';
    }
  }
  const members = objectMembers(payloadText);
  if (members === undefined) return 'eventPayload is not a JSON object';
  return members.filter((member) => !MAPPED.has(member.key)).map((member) => `${member.keyText}:${member.valueText}`);
}
