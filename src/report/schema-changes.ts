/** The schema-change lines under `status`: event types and fields first seen lately, and where the feed and the event type catalogue disagree. */
import type { SchemaChange } from '../warehouse/event-schema.repository.js';
import type { CatalogDifference } from '../warehouse/event-type-catalog.repository.js';
import { renderTable, terminalSafe } from './table.js';
import { shortTimestamp } from './units.js';
import { TERMINAL_WIDTH, wrapList } from './wrap-list.js';

/** How far back `status` looks for schema changes. */
export const SCHEMA_CHANGES_DAYS = 7;

/** Under a count of schema changes: the command that lists them. */
export const LIST_THEM = '  list them: npx events-mirror status --schema-changes';

export interface RecentSchemaChanges {
  readonly total: { readonly eventTypes: number; readonly fields: number };
  readonly latest: readonly SchemaChange[];
  /** Atlas v2 sources: types the feed sent that the catalogue lacks, and types that left it. */
  readonly catalog?: readonly CatalogDifference[];
}

/** The counts, wrapped at 80 columns. */
function heading(changes: RecentSchemaChanges, days: number): string {
  const { eventTypes, fields } = changes.total;
  const left = (changes.catalog ?? []).filter((d) => d.kind === 'left_catalog').length;
  const unlisted = (changes.catalog ?? []).filter((d) => d.kind === 'not_in_catalog').length;
  const items = [
    `${eventTypes} new event ${eventTypes === 1 ? 'type' : 'types'}`,
    `${fields} new ${fields === 1 ? 'field' : 'fields'} of known types`,
    ...(left > 0 ? [`${left} event ${left === 1 ? 'type' : 'types'} left the event type catalogue`] : []),
    ...(unlisted > 0 ? [`${unlisted} event ${unlisted === 1 ? 'type' : 'types'} sent by the feed not in the catalogue`] : []),
  ];
  return wrapList(`schema changes, last ${days} days: `, items).join('\n');
}

function count(changes: RecentSchemaChanges): number {
  return changes.total.eventTypes + changes.total.fields + (changes.catalog?.length ?? 0);
}

/** Under the `status` table: the counts, and the command that lists them. */
export function renderSchemaChangesLine(changes: RecentSchemaChanges, days: number): string {
  return `\n${heading(changes, days)}\n${count(changes) > 0 ? `${LIST_THEM}\n` : ''}`;
}

/** `status --schema-changes`: the latest changes, one per line. */
export function renderSchemaChanges(changes: RecentSchemaChanges, days: number): string {
  const { eventTypes, fields } = changes.total;
  const catalog = changes.catalog ?? [];
  if (changes.latest.length === 0 && catalog.length === 0) return `${heading(changes, days)}\n`;
  const shown =
    changes.latest.length < eventTypes + fields ? `  (the latest ${changes.latest.length}; the event_catalog view lists all)\n` : '';
  const rows = [
    ...changes.latest.map((c) => ({
      at: c.firstSeenAt,
      row: [
        shortTimestamp(c.firstSeenAt),
        c.kind === 'event_type' ? 'new event type' : 'new field',
        c.field === null ? c.eventTypeName : `${c.eventTypeName}.${c.field}`,
        c.scope,
        c.firstEventId,
      ],
    })),
    ...catalog.map((d) => ({
      at: d.at,
      row: [
        shortTimestamp(d.at),
        d.kind === 'left_catalog' ? 'left the catalogue' : 'not in the catalogue',
        d.eventTypeName,
        d.scope ?? '',
        d.firstEventId ?? '',
      ],
    })),
  ].sort((a, b) => b.at.getTime() - a.at.getTime());
  // Within 80 columns: each change's scope and first event on a line under it, and its name there
  // too when the name would take the line past 80.
  const changeWidth = Math.max('change'.length, ...rows.map((r) => r.row[1]!.length));
  const nameWidth = TERMINAL_WIDTH - 'Nov 25 17:06'.length - changeWidth - 4;
  const fits = rows.map((r) => terminalSafe(r.row[2]!).length <= nameWidth);
  const lines = renderTable(
    ['first seen', 'change', 'name'],
    rows.map((r, i) => [r.row[0], r.row[1], fits[i] ? r.row[2] : '']),
  )
    .trimEnd()
    .split('\n');
  const body = rows.flatMap(({ row }, i) => {
    const [name, scope, firstEvent] = row.slice(2).map((cell) => terminalSafe(cell));
    const where = [fits[i] ? '' : name!, scope ? `in ${scope}` : '', firstEvent ? `first event ${firstEvent}` : ''].filter(Boolean);
    return [lines[i + 2]!, ...(where.length > 0 ? wrapList('    ', where, '    ') : [])];
  });
  const [head, rule] = lines;
  return `${heading(changes, days)}\n${shown}${[head, rule, ...body].join('\n')}\n`;
}
