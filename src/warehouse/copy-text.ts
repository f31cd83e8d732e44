/**
 * Event rows in PostgreSQL COPY's text format: one line per row, fields separated by tabs, `\N` for
 * NULL, and backslash, tab, newline and carriage return escaped. Pure; no I/O.
 */
import { EVENT_ROW_COLUMNS, PAYLOAD_INDEX, type RowValue } from './event-row.js';

/** The columns of `copyRowsText`'s lines, in order: the event columns, then the two stamps. */
export const COPY_ROW_COLUMNS: readonly string[] = [...EVENT_ROW_COLUMNS.map((column) => column.name), 'ingested_at', 'updated_at'];

const NULL = '\\N';
const ESCAPED: Record<string, string> = { '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' };
const TO_ESCAPE = /[\\\t\n\r]/g;

function escaped(text: string): string {
  // Four searches for one character each beat one regular expression over a whole payload.
  const needed = text.includes('\\') || text.includes('\n') || text.includes('\t') || text.includes('\r');
  return needed ? text.replace(TO_ESCAPE, (c) => ESCAPED[c]!) : text;
}

/** Rows of `eventRowValues`, each with `stamp` (ISO 8601) as its ingested_at and updated_at. */
export function copyRowsText(rows: readonly (readonly RowValue[])[], stamp: string): string {
  const lines = new Array<string>(rows.length);
  const fields = new Array<string>(COPY_ROW_COLUMNS.length).fill(stamp);
  for (let r = 0; r < rows.length; r += 1) {
    const row = rows[r]!;
    // A string inside payload text without a backslash holds no character COPY must escape (JSON
    // escapes them all), so its fields go as they are; the payload may still hold whitespace
    // between its tokens, as the API sent it.
    const plain = !(row[PAYLOAD_INDEX] as string).includes('\\');
    for (let i = 0; i < row.length; i += 1) {
      const value = row[i]!;
      fields[i] = value === null ? NULL : typeof value !== 'string' ? `${value}` : plain && i !== PAYLOAD_INDEX ? value : escaped(value);
    }
    lines[r] = fields.join('\t');
  }
  return lines.join('\n') + '\n';
}
