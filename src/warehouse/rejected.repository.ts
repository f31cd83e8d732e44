/** Keeps events that failed validation, one row per distinct bad event per scope. */
import { sql, type Kysely } from 'kysely';
import type { RejectedEvent } from '../events/types.js';
import { MAX_EVENT_DEPTH } from '../events/validate-event.js';
import { parseIsoDate } from '../time.js';
import { nestingDepth } from '../json-text.js';
import { unstorableJsonbNumber } from '../jsonb-numbers.js';
import { storableJsonText, toStorableJson } from './storable-json.js';
import type { Database, EventSource } from './tables.js';

/**
 * Records a batch of rejected events in one statement. The same payload (as jsonb, so key order
 * does not matter) seen again in the same scope bumps `seen_count` and `last_seen_at` and takes
 * the latest reason. Returns the number of distinct rows created or bumped.
 */
export async function recordRejected(
  db: Kysely<Database>,
  scopeKey: string,
  rejected: readonly RejectedEvent[],
  now: Date = new Date(),
  listedIn?: ListedWindow,
  source: EventSource = 'pull',
): Promise<number> {
  if (rejected.length === 0) return 0;
  // The batch's JSON text written by hand: each payload goes in as its text (as the API sent it when
  // the client kept it), never serialised again, so no payload is rewritten and none is too deep
  // for JSON.stringify.
  const batch = `[${rejected
    .map((item, position) => {
      const created = createdOf(item.payload);
      const from = created ?? item.listedBetween?.older ?? listedIn?.minDate;
      const to = created ?? item.listedBetween?.newer ?? listedIn?.maxDate;
      const { payload, note } = payloadJson(item);
      return (
        `{"position":${position},"reason":${toStorableJson(item.reason + note)},"payload":${payload},` +
        `"listed_from":${toStorableJson(from?.toISOString() ?? null)},"listed_to":${toStorableJson(to?.toISOString() ?? null)}}`
      );
    })
    .join(',')}]`;
  const stamp = now.toISOString();
  const result = await sql`
    with batch as (
      select r.position, r.reason, coalesce(r.payload, 'null'::jsonb) as payload, r.listed_from, r.listed_to
      from jsonb_to_recordset(${batch}::text::jsonb)
        as r(position integer, reason text, payload jsonb, listed_from timestamptz, listed_to timestamptz)
    ), grouped as (
      select md5(payload::text) as payload_md5,
             (array_agg(reason order by position desc))[1] as reason,
             (array_agg(payload order by position desc))[1] as payload,
             max(listed_from) as listed_from,
             min(listed_to) as listed_to,
             count(*)::integer as seen
      from batch
      group by md5(payload::text)
    )
    insert into ${sql.table('rejected_events')} as t
      (scope, reason, payload, payload_md5, first_seen_at, last_seen_at, seen_count, listed_from, listed_to, source)
    select ${scopeKey}, reason, payload, payload_md5, ${stamp}::timestamptz, ${stamp}::timestamptz, seen, listed_from, listed_to, ${source}
    from grouped
    on conflict (scope, payload_md5) do update
      set reason = excluded.reason,
          last_seen_at = greatest(t.last_seen_at, excluded.last_seen_at),
          seen_count = t.seen_count + excluded.seen_count,
          -- Every window that listed it holds its real created time: keep their intersection.
          listed_from = greatest(t.listed_from, excluded.listed_from),
          listed_to = least(t.listed_to, excluded.listed_to)
  `.execute(db);
  return Number(result.numAffectedRows ?? 0n);
}

/** The window a page was listed for: a rejected event's `created` lies in it, whatever its payload says. */
export interface ListedWindow {
  readonly minDate: Date;
  readonly maxDate: Date;
}

function createdOf(payload: unknown): Date | undefined {
  const created = typeof payload === 'object' && payload !== null ? (payload as { created?: unknown }).created : undefined;
  const date = typeof created === 'string' ? parseIsoDate(created) : undefined;
  // PostgreSQL has no year 0 (nor anything before 4713 BC): such a date places nothing.
  return date && date.getUTCFullYear() >= 1 ? date : undefined;
}

/**
 * The rejected event's payload as jsonb text: its text as sent when kept, else serialised; a JSON
 * string holding the text when jsonb cannot hold it (nested too deeply, or a number past numeric's
 * range), said so in `note` (added to the reason).
 */
function payloadJson(item: RejectedEvent): { payload: string; note: string } {
  if (item.json === undefined) {
    try {
      return { payload: toStorableJson(item.payload ?? null), note: '' };
    } catch (error) {
      // Only a payload nested too deeply for JSON.stringify's stack gets here (its text was not kept).
      return { payload: 'null', note: `; payload not kept: ${error instanceof Error ? error.message : String(error)}` };
    }
  }
  const text = storableJsonText(item.json);
  // Nesting that deep needs at least two characters a level: most texts are too short to be scanned.
  const tooDeep = text.length > 2 * MAX_EVENT_DEPTH && nestingDepth(text) > MAX_EVENT_DEPTH;
  if (!tooDeep && unstorableJsonbNumber(text) === undefined) return { payload: text, note: '' };
  return {
    payload: toStorableJson(text),
    note: '; payload holds its text as sent, in a JSON string',
  };
}
