/**
 * AssemblyScript, compiled to copy-lines.wasm (`npm run build:wasm`): the COPY text lines of events
 * read straight from their JSON bytes, for src/warehouse/copy-lines.ts, which holds the rules it is
 * configured with and writes in JavaScript every event this module declines.
 *
 * The input is events' JSON texts that JSON.parse accepted and that hold no backslash, so no string
 * holds an escape and a string ends at the next quote. A value becomes a column as its bytes stand:
 * a string's bytes, a literal, a number's digits; never a character COPY must escape (JSON keeps
 * control characters out of strings). Anything whose text would differ from what the JavaScript
 * encoder writes is declined, so the lines are byte for byte the JavaScript encoder's.
 */

import {
  BACKSLASH,
  CLOSE_OBJECT,
  COLON,
  COMMA,
  OPEN_OBJECT,
  QUOTE,
  byteAt,
  clearBroken,
  isBroken,
  isSpace,
  markBroken,
  skipSpace,
  skipString,
  skipValue,
} from '../../wasm/json-scan';

export { heapBase } from '../../wasm/json-scan';

// Slot kinds: how a key's value becomes a column value. A key met again replaces its value, as
// JSON.parse keeps the last of duplicate keys.
const TEXT: i32 = 0; // a string: its bytes; anything else: absent
const BOOLEAN: i32 = 1; // true or false: the literal; anything else: absent
const PORT: i32 = 2; // digits up to 2147483647: as written; more: absent; any other number: declined
const NUMBER: i32 = 3; // a number written as JavaScript writes it: as written; another number: declined
const NESTED: i32 = 4; // an object read with the nested key table (its slots reset first)
const NULL_ONLY: i32 = 5; // null: absent; anything else: declined

// Column sources besides a slot (a slot with no value falls back to the column's constant).
const CREATED: i32 = -2;
const PAYLOAD: i32 = -3;

const TABLE_SIZE: i32 = 256; // key table entries of 16 bytes: key offset, key length, slot, kind
const MAX_SLOTS: i32 = 64;
const COLUMN_BYTES: usize = 12; // a column: source, constant offset, constant length (-1: NULL)

const MINUS: i32 = 0x2d;
const DOT: i32 = 0x2e;
const ZERO: i32 = 0x30;
const NINE: i32 = 0x39;

let topKeys: usize = 0;
let nestedKeys: usize = 0;
let columns: usize = 0;
let columnCount: i32 = 0;
let slotCount: i32 = 0;
let nestedFirst: i32 = 0;
let nestedCount: i32 = 0;
let declined: bool = false;

// Per slot: where its value's bytes start (-1: absent) and end.
const slotStarts = memory.data(MAX_SLOTS * 4);
const slotEnds = memory.data(MAX_SLOTS * 4);

/** The key tables, the columns and the slots, as copy-lines.ts lays them out. */
export function configure(
  top: usize,
  nested: usize,
  columnsAt: usize,
  columnTotal: i32,
  slots: i32,
  nestedSlot: i32,
  nestedSlots: i32,
): void {
  topKeys = top;
  nestedKeys = nested;
  columns = columnsAt;
  columnCount = columnTotal;
  slotCount = min(slots, MAX_SLOTS);
  nestedFirst = nestedSlot;
  nestedCount = nestedSlots;
}

function setSlot(slot: i32, start: i32, end: i32): void {
  store<i32>(slotStarts + ((<usize>slot) << 2), start);
  store<i32>(slotEnds + ((<usize>slot) << 2), end);
}

function slotStart(slot: i32): i32 {
  return load<i32>(slotStarts + ((<usize>slot) << 2));
}

function slotEnd(slot: i32): i32 {
  return load<i32>(slotEnds + ((<usize>slot) << 2));
}

/**
 * Copies `length` bytes sixteen at a time, so up to 15 bytes past `out + length` are written (the
 * output has room, and the next write covers them): memory.copy costs a call per short value.
 */
function copyBytes(out: usize, from: usize, length: usize): usize {
  for (let i: usize = 0; i < length; i += 16) v128.store(out + i, v128.load(from + i));
  return out + length;
}

/** Whether `length` bytes agree, eight at a time (both sides have room for the last load). */
function sameBytes(a: usize, b: usize, length: i32): bool {
  let i = 0;
  for (; i + 8 <= length; i += 8) if (load<u64>(a + i) != load<u64>(b + i)) return false;
  const rest = length - i;
  if (rest == 0) return true;
  const mask = ((<u64>1) << ((<u64>rest) << 3)) - 1;
  return ((load<u64>(a + i) ^ load<u64>(b + i)) & mask) == 0;
}

/** The hash copy-lines.ts places keys by. */
function keyHash(start: usize, length: i32): i32 {
  return (length * 31 + byteAt(start) * 7 + byteAt(start + length - 1) * 3 + byteAt(start + (length >> 1))) & (TABLE_SIZE - 1);
}

/** The table entry of the key at [start, start + length), or 0. */
function lookup(table: usize, start: usize, length: i32): usize {
  if (length == 0) return 0;
  let h = keyHash(start, length);
  for (let probes = 0; probes < TABLE_SIZE; probes++) {
    const entry = table + ((<usize>h) << 4);
    const entryLength = load<i32>(entry, 4);
    if (entryLength == 0) return 0;
    if (entryLength == length && sameBytes(<usize>load<i32>(entry), start, length)) return entry;
    h = (h + 1) & (TABLE_SIZE - 1);
  }
  return 0;
}

function isDigit(c: i32): bool {
  return c >= ZERO && c <= NINE;
}

/** A port: 1 to keep as written, 0 absent (an integer above 2147483647), -1 declined (another number). */
function portVerdict(start: usize, end: usize): i32 {
  const length = <i32>(end - start);
  let value: i64 = 0;
  for (let p = start; p < end; p++) {
    const c = byteAt(p);
    if (!isDigit(c)) return -1;
    if (length <= 10) value = value * 10 + (c - ZERO);
  }
  return length <= 10 && value <= 2147483647 ? 1 : 0;
}

/**
 * Whether JavaScript writes the number back exactly as it stands: no exponent, not negative zero,
 * no trailing zero after the point, at most 15 significant digits (a double keeps 15), below 1e21
 * and not below 1e-6 when fractional (JavaScript writes those with an exponent).
 */
function writtenAsJavaScript(start: usize, end: usize): bool {
  let p = start;
  if (byteAt(p) == MINUS) p++;
  const integerStart = p;
  while (p < end && isDigit(byteAt(p))) p++;
  const integerDigits = <i32>(p - integerStart);
  if (integerDigits > 21) return false;
  const zeroInteger = integerDigits == 1 && byteAt(integerStart) == ZERO;
  let significant = zeroInteger ? 0 : integerDigits;
  if (p == end) {
    if (zeroInteger) return start == integerStart; // "-0" is negative zero
    // An integer's trailing zeros are not significant: 12300 is written as it stands.
    let trailingZeros = 0;
    for (let q = integerStart; q < p; q++) trailingZeros = byteAt(q) == ZERO ? trailingZeros + 1 : 0;
    return significant - trailingZeros <= 15;
  }
  if (byteAt(p) != DOT) return false; // an exponent
  p++;
  const fractionStart = p;
  while (p < end && isDigit(byteAt(p))) p++;
  if (p != end || p == fractionStart || byteAt(p - 1) == ZERO) return false;
  let leadingZeros = 0;
  if (zeroInteger) {
    while (byteAt(fractionStart + leadingZeros) == ZERO) leadingZeros++;
    if (leadingZeros >= 6) return false;
  }
  significant += <i32>(p - fractionStart) - leadingZeros;
  return significant <= 15;
}

/** `p` at `{`: its keys' values into slots by `table`; the index after the object. */
function readObject(p: usize, end: usize, table: usize): usize {
  p = skipSpace(p + 1, end);
  if (p < end && byteAt(p) == CLOSE_OBJECT) return p + 1;
  while (p < end && byteAt(p) == QUOTE) {
    const keyStart = p + 1;
    p = skipString(p, end);
    const entry = lookup(table, keyStart, <i32>(p - 1 - keyStart));
    p = skipSpace(p, end);
    if (p >= end || byteAt(p) != COLON) break;
    p = skipSpace(p + 1, end);
    if (p >= end) break;
    const valueStart = p;
    const c = byteAt(p);
    if (entry == 0) {
      p = skipValue(p, end);
    } else {
      const slot = load<i32>(entry, 8);
      const kind = load<i32>(entry, 12);
      if (kind == NESTED) {
        for (let s = nestedFirst; s < nestedFirst + nestedCount; s++) setSlot(s, -1, 0);
        p = c == OPEN_OBJECT ? readObject(p, end, nestedKeys) : skipValue(p, end);
      } else {
        p = skipValue(p, end);
        let from = <i32>valueStart;
        let to = <i32>p;
        let present = false;
        if (kind == TEXT) {
          present = c == QUOTE;
          from++;
          to--;
        } else if (kind == BOOLEAN) {
          present = c == 0x74 || c == 0x66; // true, false
        } else if (kind == PORT) {
          if (c == MINUS || isDigit(c)) {
            const verdict = portVerdict(valueStart, p);
            declined = declined || verdict < 0;
            present = verdict > 0;
          }
        } else if (kind == NUMBER) {
          if (c == MINUS || isDigit(c)) {
            present = writtenAsJavaScript(valueStart, p);
            declined = declined || !present;
          }
        } else if (kind == NULL_ONLY) {
          declined = declined || c != 0x6e; // null
        }
        setSlot(slot, present ? from : -1, to);
      }
    }
    p = skipSpace(p, end);
    if (p >= end) break;
    const d = byteAt(p);
    if (d == CLOSE_OBJECT) return p + 1;
    if (d != COMMA) break;
    p = skipSpace(p + 1, end);
  }
  markBroken();
  return end;
}

function twoDigits(out: usize, n: i32): usize {
  store<u8>(out, ZERO + n / 10);
  store<u8>(out + 1, ZERO + (n % 10));
  return out + 2;
}

/** `YYYY-MM-DDTHH:MM:SS.mmmZ` as toISOString writes it; 0 outside years 0000-9999. */
function writeTimestamp(out: usize, ms: f64): usize {
  if (!(ms >= -62167219200000.0 && ms < 253402300800000.0) || ms != Math.floor(ms)) return 0;
  // Days, and milliseconds into the day, fit in 32 bits: the divisions stay cheap.
  const dayCount = Math.floor(ms / 86400000.0);
  const days = <i32>dayCount;
  const rest = <i32>(ms - dayCount * 86400000.0);
  // H. Hinnant's civil_from_days, as src/time.ts (eras of 400 years start on March 1st).
  const z = days + 719468;
  const era = (z >= 0 ? z : z - 146096) / 146097;
  const dayOfEra = z - era * 146097;
  const yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146096) / 365;
  const dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100);
  const shiftedMonth = (5 * dayOfYear + 2) / 153;
  const day = dayOfYear - (153 * shiftedMonth + 2) / 5 + 1;
  const month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9;
  const year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0);
  const milli = rest % 1000;
  out = twoDigits(out, year / 100);
  out = twoDigits(out, year % 100);
  store<u8>(out++, MINUS);
  out = twoDigits(out, month);
  store<u8>(out++, MINUS);
  out = twoDigits(out, day);
  store<u8>(out++, 0x54); // T
  out = twoDigits(out, rest / 3600000);
  store<u8>(out++, COLON);
  out = twoDigits(out, (rest / 60000) % 60);
  store<u8>(out++, COLON);
  out = twoDigits(out, (rest / 1000) % 60);
  store<u8>(out++, DOT);
  store<u8>(out++, ZERO + milli / 100);
  out = twoDigits(out, milli % 100);
  store<u8>(out++, 0x5a); // Z
  return out;
}

/** The payload as COPY text: tabs, newlines and carriage returns between its tokens escaped. */
function writePayload(out: usize, p: usize, end: usize): usize {
  const space = i8x16.splat(0x20);
  while (p < end) {
    const v = v128.load(p);
    // The whole block goes out; only its bytes before `end` and before a control character count.
    v128.store(out, v);
    const mask = i8x16.bitmask(i8x16.lt_u(v, space));
    const ahead = <usize>(mask == 0 ? 16 : ctz(mask));
    if (p + ahead >= end) return out + (end - p);
    out += ahead;
    p += ahead;
    if (mask == 0) continue;
    const c = byteAt(p);
    store<u8>(out, <u8>BACKSLASH);
    store<u8>(out + 1, c == 0x09 ? 0x74 : c == 0x0a ? 0x6e : 0x72);
    out += 2;
    p++;
  }
  return out;
}

/** One event's line from its slots; 0 when it must be declined after all. */
function writeLine(out: usize, eventStart: usize, eventEnd: usize, created: f64): usize {
  for (let c = 0; c < columnCount; c++) {
    if (c > 0) store<u8>(out++, 0x09);
    const column = columns + <usize>c * COLUMN_BYTES;
    const source = load<i32>(column);
    if (source >= 0 && slotStart(source) >= 0) {
      const from = <usize>slotStart(source);
      out = copyBytes(out, from, <usize>slotEnd(source) - from);
    } else if (source == CREATED) {
      out = writeTimestamp(out, created);
      if (out == 0) return 0;
    } else if (source == PAYLOAD) {
      out = writePayload(out, eventStart, eventEnd);
    } else {
      const length = load<i32>(column, 8);
      if (length < 0) {
        store<u8>(out, <u8>BACKSLASH);
        store<u8>(out + 1, 0x4e); // \N
        out += 2;
      } else {
        out = copyBytes(out, <usize>load<i32>(column, 4), <usize>length);
      }
    }
  }
  store<u8>(out, 0x0a);
  return out + 1;
}

/**
 * `count` events' JSON objects, one after another from `input`, into COPY lines from `out`; each
 * one's created time is at `created` (f64 milliseconds). An event this module must leave to the
 * JavaScript encoder gets 1 at `declinedFlags` and no line. Returns the end of the lines, or 0 when
 * the input is not events' JSON (the caller then writes every event in JavaScript).
 */
export function encodeLines(input: usize, inputLength: i32, count: i32, created: usize, declinedFlags: usize, out: usize): usize {
  const end = input + inputLength;
  let p = input;
  clearBroken();
  for (let i = 0; i < count; i++) {
    p = skipSpace(p, end);
    if (p >= end || byteAt(p) != OPEN_OBJECT) return 0;
    for (let s = 0; s < slotCount; s++) setSlot(s, -1, 0);
    declined = false;
    const eventStart = p;
    p = readObject(p, end, topKeys);
    if (isBroken()) return 0;
    const lineEnd = declined ? <usize>0 : writeLine(out, eventStart, p, load<f64>(created + ((<usize>i) << 3)));
    store<u8>(declinedFlags + i, lineEnd == 0 ? 1 : 0);
    if (lineEnd != 0) out = lineEnd;
  }
  return skipSpace(p, end) == end ? out : 0;
}
