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
  const needed = text.includes('\\') || text.includes('\n') || text.includes('\t') || text.includes('\r');
  return needed ? text.replace(TO_ESCAPE, (c) => ESCAPED[c]!) : text;
}

/** Grows by doubling; `room` makes sure the next `bytes` fit. */
class ByteSink {
  buffer: Buffer = Buffer.allocUnsafe(1 << 16);
  length = 0;

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

  tab(): void {
    this.room(1);
    this.buffer[this.length++] = 0x09;
  }
}

/** Rows of `eventRowValues`, each with `stamp` (ISO 8601) as its ingested_at and updated_at. */
export function copyRows(rows: readonly (readonly RowValue[])[], stamp: string): Buffer {
  const sink = new ByteSink();
  const fields = new Array<string>(PAYLOAD_INDEX);
  const stamps = `\t${stamp}\t${stamp}\n`;
  for (const row of rows) {
    const payload = row[PAYLOAD_INDEX] as string;
    // A string inside payload text without a backslash holds no character COPY must escape (JSON
    // escapes them all), so its fields go as they are; the payload may still hold whitespace
    // between its tokens, as the API sent it.
    const plain = !payload.includes('\\');
    for (let i = 0; i < PAYLOAD_INDEX; i += 1) {
      const value = row[i]!;
      fields[i] = value === null ? NULL : typeof value !== 'string' ? `${value}` : plain ? value : escaped(value);
    }
    sink.write(fields.join('\t'));
    sink.tab();
    sink.write(escaped(payload));
    sink.write(stamps);
  }
  return sink.buffer.subarray(0, sink.length);
}
