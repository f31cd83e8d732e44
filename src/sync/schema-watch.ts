/** Reports event types and fields never seen before, as each page that brings them lands. */
import type { Logger } from '../logger.js';
import type { Warehouse } from '../warehouse/database.js';
import { SeenSchema, type SchemaChanges } from '../warehouse/event-schema.repository.js';

const seenByWarehouse = new WeakMap<Warehouse, SeenSchema>();

/** What this process knows to be recorded in `warehouse` already. */
export function seenSchemaOf(warehouse: Warehouse): SeenSchema {
  let seen = seenByWarehouse.get(warehouse);
  if (!seen) seenByWarehouse.set(warehouse, (seen = new SeenSchema()));
  return seen;
}

const SHOWN = 10;

function listed(names: readonly string[]): string {
  return names.length > SHOWN ? `${names.slice(0, SHOWN).join(', ')} and ${names.length - SHOWN} more` : names.join(', ');
}

/**
 * One info line per page that changed the schema: new types, and new fields of known types. Not
 * a warning: they are kept as received, and a first load brings dozens. Commands a person runs
 * sum them up in one line (`sync --once`), `status --schema-changes` lists them, and the worker's
 * events_mirror_schema_changes_total counts them.
 */
export function logSchemaChanges(logger: Logger, scopeKey: string, changes: SchemaChanges): void {
  const parts = [
    ...(changes.eventTypes.length > 0 ? [`${changes.eventTypes.length} new event type(s): ${listed(changes.eventTypes)}`] : []),
    ...(changes.fields.length > 0 ? [`${changes.fields.length} new field(s): ${listed(changes.fields)}`] : []),
    ...(changes.notInCatalog?.length
      ? [`${changes.notInCatalog.length} of them not in the event type catalogue: ${listed(changes.notInCatalog)}`]
      : []),
  ];
  if (parts.length === 0) return;
  logger.info(
    {
      scope: scopeKey,
      newEventTypes: changes.eventTypes,
      newFields: changes.fields,
      ...(changes.notInCatalog ? { notInCatalog: changes.notInCatalog } : {}),
    },
    `${scopeKey}: schema change, ${parts.join('; ')} (kept as received; see the event_catalog view)`,
  );
}
