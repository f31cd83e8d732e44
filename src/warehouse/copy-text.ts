/**
 * Event rows in PostgreSQL COPY's text format: one line per row, fields separated by tabs, `\N` for
 * NULL, and backslash, tab, newline and carriage return escaped. Pure; no I/O.
 */
import { EVENT_ROW_COLUMNS, type EventRow } from './event-row.js';
import { toStorableJson, toStorableText } from './storable-json.js';

/** The columns of the COPY text, in order: the event columns, then the two stamps. */
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

/** One row's line without its two stamps and line end (`withStamps` adds them). */
export function copyLine(row: EventRow): string {
  let line = '';
  for (const { name, type } of EVENT_ROW_COLUMNS) line += field(row[name], type) + '\t';
  return line;
}

/** The lines as COPY text, each with `stamp` (ISO 8601) as its ingested_at and updated_at. */
export function withStamps(lines: readonly string[], stamp: string): string {
  let text = '';
  for (const line of lines) text += `${line}${stamp}\t${stamp}\n`;
  return text;
}
