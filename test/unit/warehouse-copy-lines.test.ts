/**
 * The WebAssembly COPY encoder (copy-lines.ts) against the JavaScript one it stands in for
 * (eventRowValues + copyRows): every line must be byte for byte the same, for the emulator's pages,
 * for values of every JSON type in every column's field, and for random events; an event the module
 * must not write is handed to the JavaScript encoder, which the count of events written in
 * JavaScript shows.
 */
import { describe, expect, it } from 'vitest';
import { resultTexts } from '../../src/api/result-texts.js';
import { Dataset } from '../../src/emulator/dataset.js';
import type { ValidEvent } from '../../src/events/types.js';
import { validateEvents } from '../../src/events/validate-event.js';
import { parseScope, type Scope } from '../../src/scope.js';
import { encodeCopyLines } from '../../src/warehouse/copy-lines.js';
import { copyRows } from '../../src/warehouse/copy-text.js';
import { TEXT_FIELD_COLUMNS, eventRowValues } from '../../src/warehouse/event-row.js';
import { GROUP_ID, ORG_FAMILY, ORG_ID, PROJECT_FAMILY } from '../fixtures/events.js';

const group = parseScope(`group:${GROUP_ID}`);
const org = parseScope(`org:${ORG_ID}`);
const STAMP = '2026-11-26T12:00:00.000Z';

/** Events as the client makes them: parsed, each with its text as sent. */
function eventsFromTexts(texts: readonly string[]): ValidEvent[] {
  const body = `{"results":[${texts.join(',')}],"totalCount":${texts.length}}`;
  const { events, rejected } = validateEvents((JSON.parse(body) as { results: unknown[] }).results, resultTexts(body));
  expect(rejected).toEqual([]);
  return events;
}

const javaScriptLines = (scope: Scope, events: readonly ValidEvent[]) =>
  copyRows(
    events.map((event) => eventRowValues(scope, event)),
    STAMP,
  );
const sortedLines = (bytes: Buffer) => bytes.toString('utf8').split('\n').sort();

/** The encoder's lines must be the JavaScript encoder's; returns how many it left to JavaScript. */
function writtenInJavaScript(scope: Scope, events: readonly ValidEvent[]): number {
  const encoded = encodeCopyLines(scope, events, STAMP);
  expect(sortedLines(encoded.bytes)).toEqual(sortedLines(javaScriptLines(scope, events)));
  return encoded.writtenInJavaScript;
}

const base = (id: string) => `"id":"${id}","created":"2026-11-20T10:15:30Z","eventTypeName":"HOST_DOWN"`;
/** One event with `fields` (JSON text) beside its id, created and type. */
const event = (fields: string, id = 'e1') => `{${base(id)}${fields === '' ? '' : `,${fields}`}}`;

describe('encodeCopyLines', () => {
  it('writes the emulator pages byte for byte as the JavaScript encoder, none left to it', () => {
    const scopeKey = `group:${GROUP_ID}`;
    const dataset = new Dataset({
      seed: 7,
      orgs: [ORG_ID],
      groups: [GROUP_ID],
      eventsPerScope: 3000,
      days: 30,
      malformedRate: 0,
      now: () => Date.UTC(2026, 10, 20),
      baseUrl: 'http://127.0.0.1:1/api/public/v1.0',
    });
    for (let offset = 0; offset < 3000; offset += 500) {
      const page = dataset.query(scopeKey, { offset, limit: 500, includeRaw: false });
      const events = eventsFromTexts(page.results.map((result) => JSON.stringify(result)));
      const encoded = encodeCopyLines(group, events, STAMP);
      expect(encoded.bytes.equals(javaScriptLines(group, events))).toBe(true);
      expect(encoded.writtenInJavaScript).toBe(0);
    }
  });

  it('writes the fixture events under a project and an organization as the JavaScript encoder', () => {
    const texts = [...PROJECT_FAMILY, ...ORG_FAMILY].map((payload) => JSON.stringify(payload));
    // The one with a raw document goes to JavaScript (it writes raw re-serialised).
    expect(writtenInJavaScript(group, eventsFromTexts(texts))).toBe(1);
    expect(writtenInJavaScript(org, eventsFromTexts(texts))).toBe(1);
  });

  // [the event's fields as JSON text, whether the JavaScript encoder must write it]
  const cases: Array<[string, boolean]> = [
    ['"port":27017', false],
    ['"port":0', false],
    ['"port":2147483647', false],
    ['"port":2147483648', false], // NULL in both
    ['"port":123456789012345678901234567890', false],
    ['"port":-1', true],
    ['"port":-0', true],
    ['"port":1.5', true],
    ['"port":1.0', true],
    ['"port":1e3', true],
    ['"port":"27017"', false],
    ['"port":true', false],
    ['"port":null', false],
    ['"port":[27017]', false],
    ['"port":{"n":27017}', false],
    ['"port":1,"port":"x"', false], // the last of duplicate keys counts
    ['"currentValue":{"number":45.18,"units":"RAW"}', false],
    ['"currentValue":{"number":0.1}', false],
    ['"currentValue":{"number":0.000001}', false],
    ['"currentValue":{"number":-0.5}', false],
    ['"currentValue":{"number":0}', false],
    ['"currentValue":{"number":-7}', false],
    ['"currentValue":{"number":123456789012345}', false],
    ['"currentValue":{"number":12345678901234.5}', false],
    ['"currentValue":{"number":100000000000000000000}', false],
    ['"currentValue":{"number":1.50}', true],
    ['"currentValue":{"number":2.0}', true],
    ['"currentValue":{"number":0.0000001}', true],
    ['"currentValue":{"number":0.00000123}', false],
    ['"currentValue":{"number":0.000000123}', true],
    ['"currentValue":{"number":-0}', true],
    ['"currentValue":{"number":1e-7}', true],
    ['"currentValue":{"number":1E2}', true],
    ['"currentValue":{"number":1e400}', true],
    ['"currentValue":{"number":1234567890123456}', true],
    ['"currentValue":{"number":1000000000000000000000}', true],
    ['"currentValue":{"number":0.30000000000000004}', true],
    ['"currentValue":{"number":"5","units":5}', false],
    ['"currentValue":{"number":{"a":1},"units":["RAW"]}', false],
    ['"currentValue":{"number":1,"number":2,"units":"A","units":"B"}', false],
    ['"currentValue":{"number":1,"units":"RAW"},"currentValue":{"units":"BYTES"}', false],
    ['"currentValue":{"number":1},"currentValue":"gone"', false],
    ['"currentValue":null', false],
    ['"currentValue":[1,2]', false],
    ['"currentValue":{}', false],
    ['"isGlobalAdmin":true', false],
    ['"isGlobalAdmin":false', false],
    ['"isGlobalAdmin":"true"', false],
    ['"isGlobalAdmin":1', false],
    ['"isGlobalAdmin":null', false],
    ['"username":"ada@example.test"', false],
    ['"username":""', false],
    ['"username":5', false],
    ['"username":{"first":"ada"}', false],
    ['"username":"ünïcødé 😀 日本"', false],
    ['"username":"a","username":7', false],
    ['"username":"a\\tb"', true], // a backslash anywhere: JavaScript writes the event
    ['"detail":"C:\\\\path"', true],
    ['"orgId":"5e2b0000000000000000ffff"', false],
    ['"orgId":7', false],
    ['"groupId":null', false],
    ['"eventTypeName":3', false],
    ['"raw":null', false],
    ['"raw":{"t":"x"}', true],
    ['"raw":[]', true],
    ['"links":[{"href":"http://h/a]}{[b\\"","rel":"self"}]', true],
    ['"links":[{"href":"http://h/a]}{[b","rel":"self"}],"note":"} ] { [ , :"', false],
    ['"port ":1,"Port":2,"portx":3,"":4,"idx":"y","number":5,"units":"U"', false],
    ['"deep":{"port":1,"id":"not-this","currentValue":{"number":9}},"list":[[[{"port":2}]]]', false],
    ['"nums":[-0,1e400,0.1],"t":true,"f":false,"n":null', false],
  ];

  it.each(cases)('{…, %s}: written as the JavaScript encoder (JavaScript writes it: %s)', (fields, inJavaScript) => {
    for (const scope of [group, org]) {
      expect(writtenInJavaScript(scope, eventsFromTexts([event(fields)]))).toBe(inJavaScript ? 1 : 0);
    }
  });

  it('writes every text field into its column, and the type and scope defaults when absent', () => {
    const fields = TEXT_FIELD_COLUMNS.map(([field]) => `"${field}":"value of ${field}"`).join(',');
    expect(writtenInJavaScript(group, eventsFromTexts([event(fields)]))).toBe(0);
    const bare = eventsFromTexts(['{"id":"b1","created":"2026-11-20T10:15:30Z"}']);
    for (const scope of [group, org]) expect(writtenInJavaScript(scope, bare)).toBe(0);
  });

  it('escapes the tabs, newlines and carriage returns between the tokens of a payload', () => {
    const text = '{\n\t"id" :\t"w1",\r\n  "created": "2026-11-20T10:15:30Z" ,\n"username"\t:\n"ada"\n}';
    const encoded = encodeCopyLines(group, eventsFromTexts([text]), STAMP);
    expect(encoded.writtenInJavaScript).toBe(0);
    expect(encoded.bytes.toString()).toContain('{\\n\\t"id" :\\t"w1",\\r\\n');
    expect(writtenInJavaScript(group, eventsFromTexts([text]))).toBe(0);
  });

  it('writes created times across the years 0000 to 9999 as toISOString does', () => {
    const times = [
      '0000-01-01T00:00:00Z',
      '1969-12-31T23:59:59Z',
      '1970-01-01T00:00:00Z',
      '2000-02-29T12:00:00Z',
      '2026-11-20T10:15:30.123Z',
      '9999-12-31T23:59:59.999Z',
    ];
    const texts = times.map((created, i) => `{"id":"t${i}","created":"${created}"}`);
    expect(writtenInJavaScript(group, eventsFromTexts(texts))).toBe(0);
  });

  it('handles events without kept text, and pages that need the memory to grow', () => {
    const withoutText = eventsFromTexts([event('"port":1', 'a'), event('"port":2', 'b')]).map(({ id, created, payload }) => ({
      id,
      created,
      payload,
    }));
    expect(writtenInJavaScript(group, withoutText)).toBe(2);
    const large = Array.from({ length: 600 }, (_, i) => event(`"username":"u${i}","note":"${'x'.repeat(20_000)}"`, `big${i}`));
    expect(writtenInJavaScript(group, eventsFromTexts(large))).toBe(0);
    expect(writtenInJavaScript(org, eventsFromTexts([event('"port":3')]))).toBe(0);
    // Escapes double whitespace: the lines outgrow the texts they come from.
    const spaced = `{"id":"s1",${'\n\t'.repeat(50_000)}"created":"2026-11-20T10:15:30Z","username":"ada"${'\r\n'.repeat(50_000)}}`;
    expect(writtenInJavaScript(group, eventsFromTexts([spaced, spaced.replace('s1', 's2')]))).toBe(0);
  });

  it('agrees with the JavaScript encoder on random events', () => {
    let seed = 17;
    const random = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
      return seed / 2_147_483_648;
    };
    const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
    const keys = [
      'orgId',
      'groupId',
      'eventTypeName',
      'isGlobalAdmin',
      'port',
      'currentValue',
      'raw',
      'links',
      'other',
      ...TEXT_FIELD_COLUMNS.map(([field]) => field),
    ];
    const scalars = [
      '"text"',
      '""',
      '"é😀"',
      '"a b"',
      '0',
      '7',
      '-3',
      '2.5',
      '2.50',
      '1e5',
      '27017',
      '2147483648',
      'true',
      'false',
      'null',
    ];
    const value = (depth: number): string => {
      const choice = random();
      if (depth < 2 && choice < 0.1) return `[${value(depth + 1)},${value(depth + 1)}]`;
      if (depth < 2 && choice < 0.25)
        return `{"number":${value(depth + 1)},"units":${value(depth + 1)},"${pick(keys)}":${value(depth + 1)}}`;
      return pick(scalars);
    };
    const space = () => pick(['', '', '', ' ', '\n', '\t', '\r\n ']);
    const texts = Array.from({ length: 2000 }, (_, i) => {
      const fields = Array.from(
        { length: 1 + Math.floor(random() * 8) },
        () => `${space()}"${pick(keys)}"${space()}:${space()}${value(0)}`,
      );
      return `{"id":"r${i}",${space()}"created":"2026-11-20T10:15:30Z",${fields.join(',')}${space()}}`;
    });
    const events = eventsFromTexts(texts);
    const left = writtenInJavaScript(group, events);
    // Most random events are the module's; those it declines (numbers, raw) are JavaScript's.
    expect(left).toBeGreaterThan(0);
    expect(left).toBeLessThan(events.length / 2);
    expect(writtenInJavaScript(org, events)).toBe(left);
  });
});
