/** Keeps events that failed validation, one row per distinct bad event per scope. */
import { sql, type Kysely } from 'kysely';
import type { RejectedEvent } from '../events/types.js';
import { parseIsoDate } from '../time.js';
import { toStorableJson } from './storable-json.js';
import type { Database } from './tables.js';

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
): Promise<number> {
  if (rejected.length === 0) return 0;
  const batch = toStorableJson(
    rejected.map((item, position) => {
      const created = createdOf(item.payload);
      const from = created ?? item.listedBetween?.older ?? listedIn?.minDate;
      const to = created ?? item.listedBetween?.newer ?? listedIn?.maxDate;
      return {
        position,
        reason: item.reason,
        payload: item.payload ?? null,
        listed_from: from?.toISOString() ?? null,
        listed_to: to?.toISOString() ?? null,
      };
    }),
  );
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
      (scope, reason, payload, payload_md5, first_seen_at, last_seen_at, seen_count, listed_from, listed_to)
    select ${scopeKey}, reason, payload, payload_md5, ${stamp}::timestamptz, ${stamp}::timestamptz, seen, listed_from, listed_to
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
