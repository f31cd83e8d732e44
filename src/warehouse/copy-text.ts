/**
 * Event rows in PostgreSQL COPY's text format: one line per row, fields separated by tabs, `\N` for
 * NULL, and backslash, tab, newline and carriage return escaped. Pure; no I/O.
 */
import { EVENT_ROW_COLUMNS, type EventRow } from './event-row.js';
import { toStorableJson, toStorableText } from './storable-json.js';

/** The columns of `copyRowsText`'s lines, in order: the event columns, then the two stamps. */
export const COPY_ROW_COLUMNS: readonly string[] = [...EVENT_ROW_COLUMNS.map((column) => column.name), 'ingested_at', 'updated_at'];

const NULL = '\\N';
const NEEDS_ESCAPE = /[\\\t\n\r]/;
const ESCAPED: Record<string, string> = { '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' };

function escapeText(text: string): string {
  return NEEDS_ESCAPE.test(text) ? text.replace(/[\\\t\n\r]/g, (c) => ESCAPED[c]!) : text;
}

/** JSON.stringify writes control characters as escapes, so only backslashes need doubling. */
function escapeJson(json: string): string {
  return json.includes('\\') ? json.replaceAll('\\', '\\\\') : json;
}

function field(value: unknown, type: string): string {
  if (value === null || value === undefined) return NULL;
  if (type === 'jsonb') return escapeJson(toStorableJson(value));
  if (typeof value === 'string') return escapeText(toStorableText(value));
  return `${value as number | boolean}`;
}

/** Every row with `stamp` (ISO 8601) as its ingested_at and updated_at. */
export function copyRowsText(rows: readonly EventRow[], stamp: string): string {
  let text = '';
  for (const row of rows) {
    for (const { name, type } of EVENT_ROW_COLUMNS) text += field(row[name], type) + '\t';
    text += `${stamp}\t${stamp}\n`;
  }
  return text;
}
