/**
 * A query's result for `events-mirror sql`: a terminal table (control characters escaped, like
 * every table), CSV (RFC 4180: every field that needs it quoted, quotes doubled, CRLF line ends,
 * a header line) or JSON (an array of one object per row, keyed by column name).
 */
import type { QueryRows } from '../warehouse/database.js';
import { renderTable, type Cell } from './table.js';

export type SqlOutputFormat = 'table' | 'csv' | 'json';

export function renderQueryRows(result: QueryRows, format: SqlOutputFormat): string {
  if (format === 'json')
    return `${JSON.stringify(
      result.rows.map((row) => rowObject(result.fields, row)),
      null,
      2,
    )}\n`;
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
  if (typeof value === 'bigint') return Number.isSafeInteger(Number(value)) ? Number(value) : value.toString();
  if (value instanceof Uint8Array) return `\\x${Buffer.from(value).toString('hex')}`;
  return value;
}

/** Text as PostgreSQL would print it, near enough: timestamps in ISO 8601, JSON as JSON. */
function text(value: unknown): string {
  if (value instanceof Date) return value.toISOString();
  if (value instanceof Uint8Array) return `\\x${Buffer.from(value).toString('hex')}`;
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  return JSON.stringify(value) ?? '';
}

function tableCell(value: unknown): Cell {
  if (value === null || value === undefined) return null;
  return typeof value === 'number' ? value : text(value);
}

function csvText(value: unknown): string {
  return value === null || value === undefined ? '' : text(value);
}

function csvField(field: string): string {
  return /[",\r\n]/.test(field) ? `"${field.replaceAll('"', '""')}"` : field;
}
