import { describe, expect, it } from 'vitest';
import { eventTypeNameOf, mapExportRecord, parseSeverityNumber } from '../../src/events/export-record.js';

// The record of the service's documentation (shared/API-NOTES.md, "Push export"), as sent.
const DOCUMENTED = String.raw`{
  "timeUnixNano": "1788896817574000000",
  "severityNumber": "SEVERITY_NUMBER_INFO",
  "severityText": "INFO",
  "body": {
    "stringValue": "{\"_id\":\"6aa06631ba29fc2b0f206c32\",\"eventType\":\"/events/mms/alerts/alert_config_added_audit\",\"projectId\":\"62abb98d95a82610b74debc5\",\"createdDate\":1788896817574,\"resources\":[],\"eventPayload\":\"{\\\"targetAlertConfigId\\\": \\\"6aa06631ba29fc2b0f206c30\\\", \\\"targetAlertConfigEventType\\\": \\\"HOST_DOWN\\\", \\\"targetAlertConfigType\\\": \\\"HOST\\\"}\",\"source\":{\"sourceType\":\"USER\",\"sourceInfo\":{\"username\":\"Atlas Admin\"}}}"
  },
  "attributes": [
    { "key": "mongodb.event.id", "value": { "stringValue": "6aa06631ba29fc2b0f206c32" } },
    { "key": "mongodb.event.type", "value": { "stringValue": "/events/mms/alerts/alert_config_added_audit" } },
    { "key": "mongodb.project.id", "value": { "stringValue": "62abb98d95a82610b74debc5" } },
    { "key": "mongodb.event.payload.encoding", "value": { "stringValue": "json" } }
  ]
}`;

function record(
  body: Record<string, unknown> | string,
  attributes: Record<string, string> = {},
  extra: Record<string, unknown> = {},
): string {
  return JSON.stringify({
    timeUnixNano: '1788896817574000000',
    severityNumber: 9,
    body: { stringValue: typeof body === 'string' ? body : JSON.stringify(body) },
    attributes: Object.entries(attributes).map(([key, value]) => ({ key, value: { stringValue: value } })),
    ...extra,
  });
}

const BODY = {
  _id: '6aa06631ba29fc2b0f206c32',
  eventType: '/events/mms/alerts/alert_config_added_audit',
  projectId: '62abb98d95a82610b74debc5',
  createdDate: 1788896817574,
  eventPayload: '{"alertConfigId":"a1"}',
};

describe('mapExportRecord', () => {
  it("maps the documented record to the API's event, keeping the record as received", () => {
    const mapped = mapExportRecord(DOCUMENTED);
    expect(mapped.ok).toBe(true);
    if (!mapped.ok) return;
    expect(mapped.scope.key).toBe('group:62abb98d95a82610b74debc5');
    expect(mapped.event.id).toBe('6aa06631ba29fc2b0f206c32');
    expect(mapped.event.created.toISOString()).toBe('2026-09-08T19:46:57.000Z');
    expect(JSON.parse(mapped.event.json!)).toEqual({
      id: '6aa06631ba29fc2b0f206c32',
      created: '2026-09-08T19:46:57Z',
      eventTypeName: 'ALERT_CONFIG_ADDED_AUDIT',
      groupId: '62abb98d95a82610b74debc5',
      targetAlertConfigId: '6aa06631ba29fc2b0f206c30',
      targetAlertConfigEventType: 'HOST_DOWN',
      targetAlertConfigType: 'HOST',
    });
    expect(mapped.original).toBe(DOCUMENTED);
    expect(mapped.severityNumber).toBe(9);
  });

  it('takes severityNumber as the integer OTLP/JSON requires or as the enum name the documentation shows', () => {
    expect(parseSeverityNumber(9)).toBe(9);
    expect(parseSeverityNumber('SEVERITY_NUMBER_INFO')).toBe(9);
    expect(parseSeverityNumber('SEVERITY_NUMBER_WARN3')).toBe(15);
    expect(parseSeverityNumber('SEVERITY_NUMBER_FATAL4')).toBe(24);
    expect(parseSeverityNumber('SEVERITY_NUMBER_UNSPECIFIED')).toBe(0);
    expect(parseSeverityNumber('LOUD')).toBeUndefined();
    expect(parseSeverityNumber(25)).toBeUndefined();
    const asName = mapExportRecord(record(BODY, {}, { severityNumber: 'SEVERITY_NUMBER_ERROR' }));
    expect(asName.ok && asName.severityNumber).toBe(17);
  });

  it('keeps every digit of payload numbers beyond what a JavaScript number holds', () => {
    const body = `{"_id":"e1","eventType":"/events/x/metric","projectId":"p1","createdDate":1788896817574,"eventPayload":"{\\"currentValue\\":{\\"number\\":12345678901234567890123,\\"units\\":\\"RAW\\"},\\"ratio\\":0.10000000000000000555}"}`;
    const mapped = mapExportRecord(record(body));
    expect(mapped.ok).toBe(true);
    if (!mapped.ok) return;
    expect(mapped.event.json).toContain('"number":12345678901234567890123');
    expect(mapped.event.json).toContain('"ratio":0.10000000000000000555');
  });

  it('merges a payload given as an object, and the mapped members win over the payload', () => {
    const mapped = mapExportRecord(record({ ...BODY, eventPayload: { hostname: 'h1', id: 'not-this', port: 27017 } }));
    expect(mapped.ok && JSON.parse(mapped.event.json!)).toMatchObject({ id: BODY._id, hostname: 'h1', port: 27017 });
  });

  it('reads ids, type and scope from the attributes when the body leaves them out; an organization event is the org feed', () => {
    const mapped = mapExportRecord(
      record(
        { createdDate: 1788896817574, eventPayload: '{}' },
        { 'mongodb.event.id': 'e9', 'mongodb.event.type': '/events/mms/org/org_settings_changed', 'mongodb.org.id': 'o1' },
      ),
    );
    expect(mapped.ok).toBe(true);
    if (!mapped.ok) return;
    expect(mapped.scope.key).toBe('org:o1');
    expect(JSON.parse(mapped.event.json!)).toEqual({
      id: 'e9',
      created: '2026-09-08T19:46:57Z',
      eventTypeName: 'ORG_SETTINGS_CHANGED',
      orgId: 'o1',
    });
  });

  it('names the last path segment upper-cased, and keeps a name already in the API form', () => {
    expect(eventTypeNameOf('/events/mms/alerts/alert_config_added_audit')).toBe('ALERT_CONFIG_ADDED_AUDIT');
    expect(eventTypeNameOf('/events/mms/alerts/host_down/')).toBe('HOST_DOWN');
    expect(eventTypeNameOf('HOST_DOWN')).toBe('HOST_DOWN');
    expect(eventTypeNameOf('/events/mms/x y')).toBeUndefined();
    expect(eventTypeNameOf('///')).toBeUndefined();
  });

  it.each([
    ['not JSON', '{', 'the log record is not JSON'],
    ['no body', JSON.stringify({ attributes: [] }), 'body.stringValue is missing'],
    ['a body that is not JSON', record('{"_id":'), 'body.stringValue is not JSON'],
    ['no scope', record({ ...BODY, projectId: undefined }), 'neither projectId nor orgId'],
    ['a bad project id', record({ ...BODY, projectId: 'a/b' }), 'is not an id'],
    ['no id', record({ ...BODY, _id: undefined }), 'no _id'],
    ['ids that differ', record(BODY, { 'mongodb.event.id': 'other' }), 'differs from the mongodb.event.id attribute'],
    ['no createdDate', record({ ...BODY, createdDate: undefined }), 'no createdDate'],
    ['createdDate as text', record({ ...BODY, createdDate: '2026-09-08' }), 'is not whole epoch milliseconds'],
    ['createdDate in seconds', record({ ...BODY, createdDate: 1788896817 }), 'outside years 2000–9999'],
    ['createdDate in nanoseconds', record({ ...BODY, createdDate: 1788896817574000000 }), 'outside years 2000–9999'],
    ['no type', record({ ...BODY, eventType: undefined }), 'no eventType'],
    ['a payload string that is not JSON', record({ ...BODY, eventPayload: '{oops' }), 'eventPayload is a string that is not JSON'],
    ['a payload that is an array', record({ ...BODY, eventPayload: '[1]' }), 'eventPayload is not a JSON object'],
    ['another encoding', record(BODY, { 'mongodb.event.payload.encoding': 'bson' }), 'encoding "bson" is not json'],
  ])('sets aside a record with %s, with the reason', (_, text, reason) => {
    const mapped = mapExportRecord(text);
    expect(mapped.ok).toBe(false);
    if (mapped.ok) return;
    expect(mapped.reason).toContain(reason);
    expect(mapped.original).toBe(text);
  });

  it('keeps the scope of a record it sets aside when the record names one', () => {
    const mapped = mapExportRecord(record({ ...BODY, _id: undefined }));
    expect(!mapped.ok && mapped.scope?.key).toBe('group:62abb98d95a82610b74debc5');
  });
});
