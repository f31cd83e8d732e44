/**
 * Writes what the event export pushed: each mapped event under its own id in `events`, marked
 * `source = 'push'` (provisional) with the record as received in `pushed`; the records that could
 * not be mapped in `rejected_events` with their reason. A push never changes a row it finds: a
 * pulled row only gains the record it lacked, a pushed one nothing, so duplicates, retries and
 * batches out of order change nothing twice. The pull path replaces a pushed row when it reads the
 * same event (events.repository.ts).
 */
import { sql, type Kysely } from 'kysely';
import type { ValidEvent } from '../events/types.js';
import type { Scope } from '../scope.js';
import { EVENT_ROW_COLUMNS, eventRowValues, storedEventId, type RowValue } from './event-row.js';
import { eventRowsSelect } from './events.repository.js';
import { recordRejected } from './rejected.repository.js';
import { storableJsonText } from './storable-json.js';
import type { Database } from './tables.js';

export interface PushedEvent {
  readonly scope: Scope;
  readonly event: ValidEvent;
  /** The log record's JSON text as received. */
  readonly original: string;
}

export interface PushedRejection {
  /** The record's feed, or PUSH_UNKNOWN_SCOPE when it names none. */
  readonly scopeKey: string;
  readonly reason: string;
  readonly original: string;
}

/** `rejected_events.scope` of a pushed record that names no project or organization. */
export const PUSH_UNKNOWN_SCOPE = 'push';

export interface PushedCounts {
  /** Rows the push created. */
  readonly inserted: number;
  /** Events the warehouse held already (pulled, or pushed before): nothing of theirs changed but a missing record. */
  readonly held: number;
  readonly rejected: number;
}

const COLUMNS = [...EVENT_ROW_COLUMNS.map((column) => column.name), 'ingested_at', 'updated_at', 'pushed', 'source', 'pushed_at'];

/** Writes one request's records; run it in a transaction, so the answer acknowledges only what committed. */
export async function writePushed(
  db: Kysely<Database>,
  events: readonly PushedEvent[],
  rejected: readonly PushedRejection[],
  now: Date = new Date(),
): Promise<PushedCounts> {
  const stamp = now.toISOString();
  // The first copy of an id in the request is the one written; its repeats are duplicates.
  const distinct = new Map<string, PushedEvent>();
  for (const pushed of events) {
    const id = storedEventId(pushed.event);
    if (!distinct.has(id)) distinct.set(id, pushed);
  }
  let inserted = 0;
  if (distinct.size > 0) {
    const rows: RowValue[][] = [];
    const originals: string[] = [];
    for (const { scope, event, original } of distinct.values()) {
      rows.push(eventRowValues(scope, event));
      originals.push(storableJsonText(original));
    }
    const select = eventRowsSelect(rows, stamp, [`[${originals.join(',')}]`]);
    const returned = await sql<{ inserted: boolean }>`
      insert into ${sql.table('events')} (${sql.join(COLUMNS.map((name) => sql.id(name)))})
      select s.*, 'push', ${stamp}::timestamptz from (${select}) s
      on conflict (id) do update set pushed = excluded.pushed, pushed_at = excluded.pushed_at
        where ${sql.ref('events.pushed')} is null
      returning (xmax = 0) as inserted`.execute(db);
    inserted = returned.rows.filter((row) => row.inserted).length;
  }
  const byScope = new Map<string, PushedRejection[]>();
  for (const item of rejected) byScope.set(item.scopeKey, [...(byScope.get(item.scopeKey) ?? []), item]);
  for (const [scopeKey, items] of byScope) {
    await recordRejected(
      db,
      scopeKey,
      items.map((item) => ({ reason: item.reason, payload: undefined, json: item.original })),
      now,
      undefined,
      'push',
    );
  }
  return { inserted, held: events.length - inserted, rejected: rejected.length };
}
