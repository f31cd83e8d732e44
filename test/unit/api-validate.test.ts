import { describe, expect, it } from 'vitest';
import { envelopedErrorStatus, parseListBody, readErrorFields } from '../../src/api/validate.js';
import { validateEvent, validateEvents } from '../../src/events/validate-event.js';

describe('validateEvent (tolerant)', () => {
  it('keeps unknown fields, unknown eventTypeNames and wrong-typed optional fields', () => {
    const payload = { id: 'e1', created: '2026-11-01T10:00:00Z', eventTypeName: 'BRAND_NEW_TYPE', port: '27017', brandNew: { x: 1 } };
    const check = validateEvent(payload);
    expect(check.ok).toBe(true);
    if (!check.ok) return;
    expect(check.event.id).toBe('e1');
    expect(check.event.created.toISOString()).toBe('2026-11-01T10:00:00.000Z');
    expect(check.event.payload).toBe(payload);
  });

  it('accepts an event with only id and created', () => {
    expect(validateEvent({ id: 'e', created: '2026-11-01T10:00:00.123Z' }).ok).toBe(true);
  });

  it.each([
    [null, /not an object \(null\)/],
    ['text', /not an object \(string\)/],
    [[1], /not an object \(array\)/],
    [{ created: '2026-11-01T10:00:00Z' }, /id is missing/],
    [{ id: 42, created: '2026-11-01T10:00:00Z' }, /id is missing or not a string/],
    [{ id: '', created: '2026-11-01T10:00:00Z' }, /id is empty/],
    [{ id: 'e' }, /created is missing/],
    [{ id: 'e', created: 'yesterday' }, /created is not an ISO 8601/],
    [{ id: 'e', created: '2026-02-30T00:00:00Z' }, /created is not an ISO 8601/],
  ])('rejects %j with a reason', (payload, reason) => {
    const check = validateEvent(payload);
    expect(check.ok).toBe(false);
    if (check.ok) return;
    expect(check.rejected.reason).toMatch(reason);
    expect(check.rejected.payload).toBe(payload);
  });

  it('splits a page, keeping order', () => {
    const { events, rejected } = validateEvents([
      { id: 'b', created: '2026-11-01T10:00:02Z' },
      { id: 'x' },
      { id: 'a', created: '2026-11-01T10:00:01Z' },
    ]);
    expect(events.map((e) => e.id)).toEqual(['b', 'a']);
    expect(rejected).toHaveLength(1);
  });
});

describe('list and error bodies', () => {
  it('parses a list, with or without the envelope status, ignoring malformed links', () => {
    const plain = parseListBody({ results: [], totalCount: 0, links: [{ rel: 'self', href: 'h' }, 'junk'] });
    expect(plain).toEqual({ ok: true, list: { results: [], totalCount: 0, links: [{ rel: 'self', href: 'h' }], status: undefined } });
    const enveloped = parseListBody({ results: [{}], totalCount: 1, links: [], status: 200 });
    expect(enveloped.ok && enveloped.list.status).toBe(200);
  });

  it('refuses a body whose results is not an array', () => {
    const parsed = parseListBody({ results: 'nope', totalCount: 1 });
    expect(parsed.ok).toBe(false);
    expect(!parsed.ok && parsed.reason).toMatch(/results/);
    expect(parseListBody({ results: [] }).ok).toBe(false);
  });

  it('reads plain and enveloped error bodies', () => {
    const plain = {
      detail: 'No group with ID abc exists.',
      error: 404,
      errorCode: 'GROUP_NOT_FOUND',
      parameters: ['abc'],
      reason: 'Not Found',
    };
    expect(readErrorFields(plain)).toEqual({ status: 404, errorCode: 'GROUP_NOT_FOUND', detail: 'No group with ID abc exists.' });
    expect(readErrorFields({ status: 404, content: plain })).toEqual({
      status: 404,
      errorCode: 'GROUP_NOT_FOUND',
      detail: 'No group with ID abc exists.',
    });
    expect(readErrorFields('junk')).toEqual({ status: undefined, errorCode: undefined, detail: undefined });
    expect(envelopedErrorStatus({ status: 404, content: plain })).toBe(404);
    expect(envelopedErrorStatus({ status: 200, results: [], totalCount: 0 })).toBeUndefined();
  });
});

describe('where a rejected event was listed', () => {
  it('lies between the valid events listed before (newer) and after (older) it on the page', () => {
    const { rejected } = validateEvents([
      { id: 'a', created: '2026-11-01T10:00:03Z' },
      { id: 'b', created: 'not a date' },
      { created: '2026-11-01T10:00:02Z' },
      { id: 'c', created: '2026-11-01T10:00:01Z' },
      { id: 'd', created: 'also not a date' },
    ]);
    expect(rejected.map((r) => r.listedBetween)).toEqual([
      { newer: new Date('2026-11-01T10:00:03Z'), older: new Date('2026-11-01T10:00:01Z') },
      { newer: new Date('2026-11-01T10:00:03Z'), older: new Date('2026-11-01T10:00:01Z') },
      { newer: new Date('2026-11-01T10:00:01Z') },
    ]);
  });
});
