/**
 * Event rows in PostgreSQL COPY's text format: one line per row, fields separated by tabs, `\N` for
 * NULL, and backslash, tab, newline and carriage return escaped. Written straight into the bytes
 * the COPY sends (one UTF-8 encoding, no page-sized string in between). Pure; no I/O.
 */
import { EVENT_ROW_COLUMNS, PAYLOAD_INDEX, type RowValue } from './event-row.js';

/** The columns of `copyRows`' lines, in order: the event columns, then the two stamps. */
export const COPY_ROW_COLUMNS: readonly string[] = [...EVENT_ROW_COLUMNS.map((column) => column.name), 'ingested_at', 'updated_at'];

const NULL = '\\N';
const ESCAPED: Record<string, string> = { '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' };
const TO_ESCAPE = /[\\\t\n\r]/g;
// The payload is the last event column (see EVENT_ROW_COLUMNS): each line is the other fields
// joined, the payload, then the stamps.
if (PAYLOAD_INDEX !== EVENT_ROW_COLUMNS.length - 1) throw new Error('copy-text expects payload to be the last event column');

function escaped(text: string): string {
  // Four searches for one character each beat one regular expression over a whole payload.
  return text.includes('\\') ? text.replace(TO_ESCAPE, (c) => ESCAPED[c]!) : escapedWhitespace(text);
}

/** `escaped` for text known to hold no backslash. */
function escapedWhitespace(text: string): string {
  const needed = text.includes('\n') || text.includes('\t') || text.includes('\r');
  return needed ? text.replace(TO_ESCAPE, (c) => ESCAPED[c]!) : text;
}

/** Grows by doubling; `room` makes sure the next `bytes` fit. */
class ByteSink {
  buffer: Buffer;
  length = 0;

  constructor(expectedBytes: number) {
    this.buffer = Buffer.allocUnsafe(Math.max(expectedBytes, 1 << 12));
  }

  room(bytes: number): void {
    if (this.length + bytes <= this.buffer.length) return;
    const larger = Buffer.allocUnsafe(Math.max(this.buffer.length * 2, this.length + bytes));
    this.buffer.copy(larger, 0, 0, this.length);
    this.buffer = larger;
  }

  /** UTF-8 needs at most 3 bytes per UTF-16 code unit. */
  write(text: string): void {
    this.room(text.length * 3);
    this.length += this.buffer.write(text, this.length, 'utf8');
  }
}

// NULLS_THEN_TAB[k]: k NULL fields, each with the tab after it. Most of the 36 columns before the
// payload are NULL in any one event, so a run of them goes as one string instead of one each.
const NULLS_THEN_TAB = Array.from({ length: PAYLOAD_INDEX + 1 }, (_, k) => `${NULL}\t`.repeat(k));
// A line's bytes beyond its payload, as an allowance when sizing the buffer (grown if exceeded).
const BYTES_BESIDE_PAYLOAD = 512;

/** Rows of `eventRowValues`, each with `stamp` (ISO 8601) as its ingested_at and updated_at. */
export function copyRows(rows: readonly (readonly RowValue[])[], stamp: string): Buffer {
  let expectedBytes = 0;
  for (const row of rows) expectedBytes += (row[PAYLOAD_INDEX] as string).length + BYTES_BESIDE_PAYLOAD;
  const sink = new ByteSink(expectedBytes);
  const stamps = `\t${stamp}\t${stamp}\n`;
  // A line's stamps go with the next line's fields, one write fewer a row (each costs a call into
  // the runtime and a copy of its string); the last line's go alone.
  let stampsBefore = '';
  for (const row of rows) {
    const payload = row[PAYLOAD_INDEX] as string;
    // A string inside payload text without a backslash holds no character COPY must escape (JSON
    // escapes them all), so its fields go as they are; the payload may still hold whitespace
    // between its tokens, as the API sent it.
    const plain = !payload.includes('\\');
    let fields = stampsBefore;
    let nulls = 0;
    for (let i = 0; i < PAYLOAD_INDEX; i += 1) {
      const value = row[i]!;
      if (value === null) {
        nulls += 1;
        continue;
      }
      const text = typeof value !== 'string' ? `${value}` : plain ? value : escaped(value);
      fields = `${fields}${NULLS_THEN_TAB[nulls]}${text}\t`;
      nulls = 0;
    }
    sink.write(fields + NULLS_THEN_TAB[nulls]!);
    sink.write(plain ? escapedWhitespace(payload) : escaped(payload));
    stampsBefore = stamps;
  }
  sink.write(stampsBefore);
  return sink.buffer.subarray(0, sink.length);
}
