/**
 * Whether the mirror could reach 2 × the `JSON.parse` floor (issue 17) by not parsing the events at
 * all: on the same emulator pages (300,000 events by default, EVENT_SCAN_EVENTS to change), the
 * mirror's CPU per event after HTTP with its JavaScript COPY encoder (parse and list check, each
 * event's text, validation, row mapping, COPY bytes), beside a single pass over the body written for this experiment that keeps,
 * for each event, its text, its keys (what the schema watch reads) and its row, each field with a
 * column written straight into it by eventRowValues' rules, without building the event's object;
 * then the same validation and COPY bytes. That pass leaves checking the JSON to PostgreSQL's jsonb
 * input: an experiment, not the product's path. Its COPY bytes and keys are checked against today's
 * for every page, outside the timing (the emulator's events hold no escapes, so the pass's slow
 * branches run rarely). Pages alternate which path runs first. The mirror as it is now, with the
 * WebAssembly COPY encoder that replaced the JavaScript one (src/warehouse/copy-lines.ts), is printed
 * beside them.
 * Run: npx tsx test/bench/event-scan.bench.ts
 */
import { deepStrictEqual } from 'node:assert/strict';
import {
  BACKSLASH,
  CLOSE_ARRAY,
  CLOSE_OBJECT,
  COLON,
  COMMA,
  OPEN_ARRAY,
  OPEN_OBJECT,
  QUOTE,
  skipContainer,
  skipString,
  skipWhitespace,
} from '../../src/json-text.js';
import { Dataset } from '../../src/emulator/dataset.js';
import type { ValidEvent } from '../../src/events/types.js';
import { parseScope, type Scope } from '../../src/scope.js';
import { isoTimestamp, parseIsoDate } from '../../src/time.js';
import { copyRows } from '../../src/warehouse/copy-text.js';
import { EVENT_ROW_COLUMNS, MISSING_EVENT_TYPE, PAYLOAD_INDEX, TEXT_FIELD_COLUMNS, type RowValue } from '../../src/warehouse/event-row.js';
import { toStorableJson, toStorableText } from '../../src/warehouse/storable-json.js';
import { cpuMs } from './cpu-time.js';
import { javaScriptEncoderMirrorMs, mirrorMs, mirrorStages, noStageMs, pageBody } from './mirror-stages.js';

const EVENTS = Number(process.env.EVENT_SCAN_EVENTS ?? 300_000);
const PAGE = 500;
const SCOPE = 'group:5f1a00000000000000000d0e';
const NOW = Date.UTC(2026, 10, 20);
const STAMP = new Date(NOW).toISOString();

const INT32_MAX = 2_147_483_647;
const column = (name: string) => EVENT_ROW_COLUMNS.findIndex((c) => c.name === name);
const [
  ID,
  SCOPE_COLUMN,
  CREATED,
  IS_GLOBAL_ADMIN,
  PORT,
  CURRENT_VALUE_NUMBER,
  CURRENT_VALUE_UNITS,
  RAW,
  ORG_ID,
  GROUP_ID,
  EVENT_TYPE_NAME,
] = [
  'id',
  'scope',
  'created',
  'is_global_admin',
  'port',
  'current_value_number',
  'current_value_units',
  'raw',
  'org_id',
  'group_id',
  'event_type_name',
].map(column) as [number, number, number, number, number, number, number, number, number, number, number];
/** A field with a text column → that column; the fields with their own rules → a negative code. */
const [CREATED_FIELD, ADMIN_FIELD, PORT_FIELD, VALUE_FIELD, RAW_FIELD] = [-1, -2, -3, -4, -5];
const FIELD_SLOT = new Map<string, number>([
  ['id', ID],
  ['orgId', ORG_ID],
  ['groupId', GROUP_ID],
  ['eventTypeName', EVENT_TYPE_NAME],
  ...TEXT_FIELD_COLUMNS.map(([field, name]): [string, number] => [field, column(name)]),
  ['created', CREATED_FIELD],
  ['isGlobalAdmin', ADMIN_FIELD],
  ['port', PORT_FIELD],
  ['currentValue', VALUE_FIELD],
  ['raw', RAW_FIELD],
]);
const ALL_NULL: readonly RowValue[] = EVENT_ROW_COLUMNS.map(() => null);

/** What the pass keeps of an event: its row as eventRowValues makes it, its keys, its created text. */
interface ScannedEvent {
  readonly row: RowValue[];
  readonly keys: string[];
  readonly created: unknown;
}

const SCALAR = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null/y;

// Where the last value read ended: returned beside the value, a tuple per value cost more than the scan.
let valueEnd = 0;

/** `i` is at a value: a plain string sliced, a literal as it reads, anything else through JSON.parse. */
function readValue(text: string, i: number, keep: boolean): unknown {
  const code = text.charCodeAt(i);
  if (code === QUOTE) {
    const quote = text.indexOf('"', i + 1);
    if (quote >= 0 && text.charCodeAt(quote - 1) !== BACKSLASH) {
      const inner = keep ? text.slice(i + 1, quote) : '';
      if (!inner.includes('\\')) {
        valueEnd = quote + 1;
        return inner;
      }
    }
    valueEnd = skipString(text, i);
  } else if (code === OPEN_OBJECT || code === OPEN_ARRAY) valueEnd = skipContainer(text, i);
  else {
    SCALAR.lastIndex = i;
    valueEnd = SCALAR.test(text) ? SCALAR.lastIndex : -1;
    if (valueEnd - i === 4 && code === 0x74) return true;
    if (valueEnd - i === 5 && code === 0x66) return false;
    if (valueEnd - i === 4 && code === 0x6e) return null;
  }
  if (valueEnd < 0) throw new Error(`no JSON value at ${i}`);
  return keep ? (JSON.parse(text.slice(i, valueEnd)) as unknown) : undefined;
}

/** One field into the row, by eventRowValues' rules (every write replaces: JSON's last duplicate wins). */
function setField(row: RowValue[], slot: number, value: unknown): unknown {
  if (slot >= 0) row[slot] = typeof value === 'string' ? value : null;
  else if (slot === ADMIN_FIELD) row[IS_GLOBAL_ADMIN] = typeof value === 'boolean' ? value : null;
  else if (slot === PORT_FIELD)
    row[PORT] = Number.isInteger(value) && (value as number) >= 0 && (value as number) <= INT32_MAX ? (value as number) : null;
  else if (slot === VALUE_FIELD) {
    const object = typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
    const number = object?.number;
    row[CURRENT_VALUE_NUMBER] = typeof number === 'number' && Number.isFinite(number) ? number : null;
    row[CURRENT_VALUE_UNITS] = typeof object?.units === 'string' ? object.units : null;
  } else if (slot === RAW_FIELD) row[RAW] = value === null || value === undefined ? null : toStorableJson(value);
  return slot === CREATED_FIELD ? value : undefined;
}

/** `start` is at an event's `{`; returns the index after its `}`. */
function scanEvent(scope: Scope, text: string, start: number, into: ScannedEvent[]): number {
  const keys: string[] = [];
  const row = ALL_NULL.slice();
  let created: unknown;
  let i = skipWhitespace(text, start + 1);
  if (text.charCodeAt(i) !== CLOSE_OBJECT) {
    for (;;) {
      if (text.charCodeAt(i) !== QUOTE) throw new Error(`no key at ${i}`);
      const key = readValue(text, i, true) as string;
      keys.push(key);
      i = skipWhitespace(text, valueEnd);
      if (text.charCodeAt(i) !== COLON) throw new Error(`no colon at ${i}`);
      const slot = FIELD_SLOT.get(key);
      const value = readValue(text, skipWhitespace(text, i + 1), slot !== undefined);
      if (slot !== undefined) created = setField(row, slot, value) ?? created;
      i = skipWhitespace(text, valueEnd);
      const code = text.charCodeAt(i);
      if (code === CLOSE_OBJECT) break;
      if (code !== COMMA) throw new Error(`no comma at ${i}`);
      i = skipWhitespace(text, i + 1);
    }
  }
  const payload = text.slice(start, i + 1);
  // As eventRowValues: texts PostgreSQL could refuse only where the payload holds a backslash.
  if (payload.includes('\\'))
    for (let c = 0; c < row.length; c += 1) if (typeof row[c] === 'string') row[c] = toStorableText(row[c] as string);
  row[SCOPE_COLUMN] = scope.key;
  row[ORG_ID] ??= scope.kind === 'org' ? scope.id : null;
  row[GROUP_ID] ??= scope.kind === 'group' ? scope.id : null;
  row[EVENT_TYPE_NAME] ??= MISSING_EVENT_TYPE;
  row[PAYLOAD_INDEX] = payload.includes('\\u') ? toStorableJson(JSON.parse(payload)) : payload;
  into.push({ row, keys, created });
  return i + 1;
}

/** The events of a body shaped as the emulator serves it (`results` an array of objects). */
function scanPage(scope: Scope, body: string): ScannedEvent[] {
  const events: ScannedEvent[] = [];
  const at = body.indexOf('"results"');
  let i = skipWhitespace(body, skipWhitespace(body, at + 9) + 1);
  if (at < 0 || body.charCodeAt(i) !== OPEN_ARRAY) throw new Error('no results array');
  i = skipWhitespace(body, i + 1);
  if (body.charCodeAt(i) === CLOSE_ARRAY) return events;
  for (;;) {
    if (body.charCodeAt(i) !== OPEN_OBJECT) throw new Error(`no event at ${i}`);
    i = skipWhitespace(body, scanEvent(scope, body, i, events));
    const code = body.charCodeAt(i);
    if (code === CLOSE_ARRAY) return events;
    if (code !== COMMA) throw new Error(`no comma at ${i}`);
    i = skipWhitespace(body, i + 1);
  }
}

/** validateEvent's two checks; the row gets its created column. */
function validateScanned(scanned: readonly ScannedEvent[]): RowValue[][] {
  return scanned.map(({ row, created }) => {
    const date = typeof created === 'string' ? parseIsoDate(created) : undefined;
    if (typeof row[ID] !== 'string' || row[ID] === '' || !date) throw new Error('the emulator served an invalid event');
    row[CREATED] = isoTimestamp(date);
    return row;
  });
}

const dataset = new Dataset({
  seed: 3,
  orgs: ['5f1a00000000000000000d00'],
  groups: [SCOPE.slice('group:'.length)],
  eventsPerScope: EVENTS,
  days: 30,
  malformedRate: 0,
  now: () => NOW,
  baseUrl: 'http://127.0.0.1:1/api/public/v1.0',
});
const scope = parseScope(SCOPE);
const today = noStageMs();
const single = { scan: 0, validate: 0, copy: 0 };
let floor = 0;
let events = 0;

for (let offset = 0; offset < EVENTS; offset += PAGE) {
  const body = pageBody(dataset, SCOPE, offset, PAGE);
  floor += cpuMs(() => JSON.parse(body) as unknown)[1];

  let todays: { valid: ValidEvent[]; copied: Buffer } | undefined;
  const runToday = () => {
    todays = mirrorStages(scope, body, STAMP, today);
  };
  let scanned: ScannedEvent[] = [];
  let singleCopy: Buffer | undefined;
  const runSingle = () => {
    const [pass, scanMs] = cpuMs(() => scanPage(scope, body));
    scanned = pass;
    const [rows, validateMs] = cpuMs(() => validateScanned(scanned));
    const [copied, copyMs] = cpuMs(() => copyRows(rows, STAMP));
    singleCopy = copied;
    single.scan += scanMs;
    single.validate += validateMs;
    single.copy += copyMs;
  };
  if ((offset / PAGE) % 2 === 0) {
    runToday();
    runSingle();
  } else {
    runSingle();
    runToday();
  }

  // The pass must have done today's work: the same COPY bytes, and every event's keys.
  if (!todays?.copied.equals(singleCopy!)) throw new Error(`page at ${offset}: the COPY bytes differ`);
  deepStrictEqual(
    scanned.map((event) => [...event.keys].sort()),
    todays.valid.map((event) => Object.keys(event.payload).sort()),
  );
  events += todays.valid.length;
}

const perEvent = (ms: number) => ((1000 * ms) / events).toFixed(2);
const ratio = (ms: number) => (ms / floor).toFixed(3);
const javaScriptEncoder = javaScriptEncoderMirrorMs(today);
const singlePass = single.scan + single.validate + single.copy;
console.log(`${events.toLocaleString('en-US')} events in pages of ${PAGE}; CPU per event (µs), after HTTP:`);
console.log(`  JSON.parse of the page bytes (the floor)                 ${perEvent(floor)}`);
console.log(
  `  with the JavaScript encoder: parse + list ${perEvent(today.list)}, texts ${perEvent(today.texts)}, validation ${perEvent(today.validate)}, ` +
    `rows ${perEvent(today.rows)}, COPY bytes ${perEvent(today.copyText)}`,
);
console.log(
  `  single pass: scan and row ${perEvent(single.scan)}, validation ${perEvent(single.validate)}, COPY bytes ${perEvent(single.copy)}`,
);
console.log(
  `  up to the rows: JavaScript encoder ${perEvent(javaScriptEncoder - today.copyText)} = ${ratio(javaScriptEncoder - today.copyText)} x floor; ` +
    `single pass ${perEvent(single.scan + single.validate)} = ${ratio(single.scan + single.validate)} x floor`,
);
console.log(`  the mirror as it is (WebAssembly COPY encoder ${perEvent(today.copyLines)}): ${perEvent(mirrorMs(today))}`);
console.log(
  `FIGURE event-scan: mirror with the JavaScript encoder ${ratio(javaScriptEncoder)} x JSON floor; with the single pass ${ratio(singlePass)} x; ` +
    `as it is (WebAssembly COPY encoder) ${ratio(mirrorMs(today))} x (target <= 2)`,
);
