/** The schema-change lines under `status`: event types and fields first seen lately. */
import type { SchemaChange } from '../warehouse/event-schema.repository.js';
import { formatTimestamp } from '../time.js';
import { renderTable } from './table.js';

export interface RecentSchemaChanges {
  readonly total: { readonly eventTypes: number; readonly fields: number };
  readonly latest: readonly SchemaChange[];
}

function heading(changes: RecentSchemaChanges, days: number): string {
  const { eventTypes, fields } = changes.total;
  return `schema changes in the last ${days} days: ${eventTypes} new event ${eventTypes === 1 ? 'type' : 'types'}, ${fields} new ${fields === 1 ? 'field' : 'fields'} of known types`;
}

/** Under the `status` table: the counts in one line, and where the list is. */
export function renderSchemaChangesLine(changes: RecentSchemaChanges, days: number): string {
  const { eventTypes, fields } = changes.total;
  return `\n${heading(changes, days)}${eventTypes + fields > 0 ? ': npx events-mirror status --schema-changes lists them' : ''}\n`;
}

/** `status --schema-changes`: the latest changes, one per line. */
export function renderSchemaChanges(changes: RecentSchemaChanges, days: number): string {
  const { eventTypes, fields } = changes.total;
  if (changes.latest.length === 0) return `${heading(changes, days)}\n`;
  const shown =
    changes.latest.length < eventTypes + fields ? ` (the latest ${changes.latest.length}; the event_catalog view lists all)` : '';
  const rows = changes.latest.map((c) => [
    formatTimestamp(c.firstSeenAt),
    c.kind === 'event_type' ? 'new event type' : 'new field',
    c.field === null ? c.eventTypeName : `${c.eventTypeName}.${c.field}`,
    c.scope,
    c.firstEventId,
  ]);
  return `${heading(changes, days)}${shown}\n${renderTable(['first seen', 'change', 'name', 'scope', 'first event'], rows)}`;
}
