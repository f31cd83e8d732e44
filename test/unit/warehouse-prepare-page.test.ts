/**
 * A page sorted by what the warehouse holds: the lookup reads stored ids back (NUL and lone
 * surrogates as U+FFFD), so an event whose id is not storable as sent is found under its stored id
 * and takes the statement path, instead of being COPied in again and failing on the key.
 */
import { describe, expect, it } from 'vitest';
import { parseScope } from '../../src/scope.js';
import { dedupeById } from '../../src/warehouse/event-row.js';
import { isRowRefusal, preparePage } from '../../src/warehouse/events.repository.js';
import { GROUP_ID, metricAlert, toValid } from '../fixtures/events.js';

const scope = parseScope(`group:${GROUP_ID}`).key;
const withId = (id: string, username = 'u') => toValid({ ...metricAlert, id, username });

describe('stored ids', () => {
  it('dedupeById keeps one event per stored id, the last one', () => {
    const deduped = dedupeById([withId('c\ud800', 'first'), withId('ok1'), withId('c\ufffd', 'second'), withId('c\u0000', 'third')]);
    expect(deduped.map((e) => e.payload.username)).toEqual(['u', 'third']);
    expect(deduped.map((e) => e.id)).toEqual(['ok1', 'c\u0000']);
  });

  it('preparePage finds a held event under its stored id', () => {
    const held = new Map([
      ['c\ufffd', scope],
      ['n\ufffd', 'org:5f0000000000000000000001'],
    ]);
    const page = preparePage(scope, [withId('c\ud800'), withId('n\u0000'), withId('fresh')], held, new Date());
    expect(page.own.map((e) => e.id)).toEqual(['c\ud800']);
    expect(page.elsewhere.map((e) => e.id)).toEqual(['n\u0000']);
    expect(page.fresh).toBe(1);
  });
});

describe('isRowRefusal', () => {
  it('takes a statement that met one key twice (21000) as a row refusal: the page lands event by event', () => {
    expect(isRowRefusal({ code: '21000' })).toBe(true);
    expect(isRowRefusal({ code: '22021' })).toBe(true);
    expect(isRowRefusal({ code: '40001' })).toBe(false);
  });
});
