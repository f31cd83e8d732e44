/**
 * One request's log records into the warehouse, in one transaction: each record mapped to the API's
 * event (or set aside with its reason), then written. A record whose values the warehouse refuses
 * (a data exception no retry can fix) is set aside too, the rest landing, so a sender's retries of
 * the same batch never loop on it.
 */
import type { Kysely } from 'kysely';
import { mapExportRecord } from '../events/export-record.js';
import { isRowRefusal } from '../warehouse/events.repository.js';
import type { Database, Warehouse } from '../warehouse/database.js';
import { PUSH_UNKNOWN_SCOPE, writePushed, type PushedEvent, type PushedRejection } from '../warehouse/pushed-events.repository.js';
import { sql } from 'kysely';

export interface StoredRecords {
  readonly inserted: number;
  readonly held: number;
  readonly rejected: number;
  /** The distinct reasons records were set aside, for the answer's error_message. */
  readonly reasons: readonly string[];
}

export function mapRecords(records: readonly string[]): { events: PushedEvent[]; rejected: PushedRejection[] } {
  const events: PushedEvent[] = [];
  const rejected: PushedRejection[] = [];
  for (const text of records) {
    const mapped = mapExportRecord(text);
    if (mapped.ok) events.push({ scope: mapped.scope, event: mapped.event, original: mapped.original });
    else rejected.push({ scopeKey: mapped.scope?.key ?? PUSH_UNKNOWN_SCOPE, reason: mapped.reason, original: mapped.original });
  }
  return { events, rejected };
}

export async function storeRecords(warehouse: Warehouse, records: readonly string[], now: Date = new Date()): Promise<StoredRecords> {
  const { events, rejected } = mapRecords(records);
  const counts = await warehouse.transaction(async (trx) => {
    try {
      await sql`savepoint pushed_batch`.execute(trx);
      return { ...(await writePushed(trx, events, rejected, now)), refusals: [] as string[] };
    } catch (error) {
      if (!isRowRefusal(error)) throw error;
      await sql`rollback to savepoint pushed_batch`.execute(trx);
      return writeOneByOne(trx, events, rejected, now);
    }
  });
  const reasons = [...new Set([...rejected.map((item) => item.reason), ...counts.refusals])];
  return { inserted: counts.inserted, held: counts.held, rejected: counts.rejected, reasons };
}

async function writeOneByOne(trx: Kysely<Database>, events: readonly PushedEvent[], rejected: readonly PushedRejection[], now: Date) {
  let inserted = 0;
  let held = 0;
  const refused: PushedRejection[] = [];
  for (const pushed of events) {
    await sql`savepoint pushed_event`.execute(trx);
    try {
      const one = await writePushed(trx, [pushed], [], now);
      inserted += one.inserted;
      held += one.held;
      await sql`release savepoint pushed_event`.execute(trx);
    } catch (error) {
      if (!isRowRefusal(error)) throw error;
      await sql`rollback to savepoint pushed_event`.execute(trx);
      const { code, message } = error as { code: string; message: string };
      refused.push({
        scopeKey: pushed.scope.key,
        reason: `the warehouse refused it: ${message} (SQLSTATE ${code})`,
        original: pushed.original,
      });
    }
  }
  const all = [...rejected, ...refused];
  await writePushed(trx, [], all, now);
  return { inserted, held, rejected: all.length, refusals: refused.map((item) => item.reason) };
}
