/** Event rows in COPY's text format, for the benchmarks' COPY reference (the floor a write is measured against). */
import { EVENT_ROW_COLUMNS, type EventRow } from '../../src/warehouse/event-row.js';
import { toStorableJson } from '../../src/warehouse/storable-json.js';

/** The column list of those rows: the event columns, then ingested_at and updated_at. */
export const COPY_COLUMNS = [...EVENT_ROW_COLUMNS.map((c) => `"${c.name}"`), 'ingested_at', 'updated_at'].join(', ');

export function copyText(rows: readonly EventRow[], stamp: string): string {
  const escape = (text: string) => text.replace(/[\\\t\n\r]/g, (c) => ({ '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' })[c]!);
  const field = (value: unknown, type: string): string => {
    if (value === null || value === undefined) return '\\N';
    if (type === 'jsonb') return escape(toStorableJson(value));
    return escape(`${value as string | number | boolean}`);
  };
  return rows.map((row) => [...EVENT_ROW_COLUMNS.map((c) => field(row[c.name], c.type)), stamp, stamp].join('\t')).join('\n') + '\n';
}
