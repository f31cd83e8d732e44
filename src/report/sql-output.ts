/**
 * A query's result for `events-mirror sql`: a terminal table (control characters escaped, like
 * every table), CSV (RFC 4180: every field that needs it quoted, quotes doubled, CRLF line ends,
 * a header line) or JSON (an array of one object per row, keyed by column name).
 *
 * Numbers print exactly as PostgreSQL wrote them (int8 and numeric arrive as their text,
 * result-values.ts): in JSON as number literals of any size (`9007199254740993`, not rounded to a
 * double; NaN and Infinity, which JSON lacks, as strings), and json or jsonb as the JSON
 * PostgreSQL wrote, numbers included.
 */
import { randomBytes } from 'node:crypto';
import type { QueryRows } from '../warehouse/database.js';
import { JsonText, NumberText } from '../warehouse/result-values.js';
import { renderTable, type Cell } from './table.js';

export type SqlOutputFormat = 'table' | 'csv' | 'json';

export function renderQueryRows(result: QueryRows, format: SqlOutputFormat): string {
  if (format === 'json') return `${jsonWithRawTexts(result.rows.map((row) => rowObject(result.fields, row)))}\n`;
  if (format === 'csv') {
    return [result.fields, ...result.rows.map((row) => row.map(csvText))].map((line) => line.map(csvField).join(',') + '\r\n').join('');
  }
  const rows = result.rows.map((row): Cell[] => row.map(tableCell));
  return `${renderTable(result.fields, rows, { plainNumbers: true, empty: 'null' })}(${result.rows.length} ${result.rows.length === 1 ? 'row' : 'rows'})\n`;
}

/** A later column of the same name (`select 1, 1`) is kept as `name_2`, `name_3`, … */
function rowObject(fields: readonly string[], row: readonly unknown[]): Record<string, unknown> {
  const object: Record<string, unknown> = {};
  fields.forEach((field, i) => {
    let key = field;
    for (let n = 2; Object.hasOwn(object, key); n += 1) key = `${field}_${n}`;
    object[key] = jsonValue(row[i]);
  });
  return object;
}

function jsonValue(value: unknown): unknown {
  if (typeof value === 'bigint') return new NumberText(value.toString());
  if (value instanceof NumberText && !JSON_NUMBER.test(value.text)) return value.text;
  if (value instanceof Uint8Array) return `\\x${Buffer.from(value).toString('hex')}`;
  return value;
}

const JSON_NUMBER = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/;

/**
 * JSON.stringify, with each NumberText and JsonText written as its text: JSON.stringify has no raw
 * value (JSON.rawJSON is Node 21+), so each is written as a string holding a random marker first,
 * which no text of the result can hold, then swapped for its text.
 */
function jsonWithRawTexts(value: unknown): string {
  const marker = `raw-${randomBytes(12).toString('hex')}-`;
  const raw: string[] = [];
  const json = JSON.stringify(
    value,
    (_key, v: unknown) => (v instanceof NumberText || v instanceof JsonText ? `${marker}${raw.push(v.text) - 1}` : v),
    2,
  );
  return json.replace(new RegExp(`"${marker}(\\d+)"`, 'g'), (_match, index: string) => raw[Number(index)]!);
}

/** Text as PostgreSQL would print it, near enough: timestamps in ISO 8601, JSON as JSON. */
function text(value: unknown): string {
  if (value instanceof Date) return value.toISOString();
  if (value instanceof Uint8Array) return `\\x${Buffer.from(value).toString('hex')}`;
  if (typeof value === 'string' || value instanceof NumberText || value instanceof JsonText) return String(value);
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  return JSON.stringify(value) ?? '';
}

function tableCell(value: unknown): Cell {
  if (value === null || value === undefined) return null;
  if (typeof value === 'number') return value;
  // A number that prints the same as a JavaScript number stays one, so its column aligns right.
  if (value instanceof NumberText && String(Number(value.text)) === value.text) return Number(value.text);
  return text(value);
}

function csvText(value: unknown): string {
  return value === null || value === undefined ? '' : text(value);
}

function csvField(field: string): string {
  return /[",\r\n]/.test(field) ? `"${field.replaceAll('"', '""')}"` : field;
}
