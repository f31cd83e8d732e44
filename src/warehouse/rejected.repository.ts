/** Keeps events that failed validation, one row per distinct bad event per scope. */
import { sql, type Kysely } from 'kysely';
import type { RejectedEvent } from '../events/types.js';
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
): Promise<number> {
  if (rejected.length === 0) return 0;
  const batch = toStorableJson(rejected.map((item, position) => ({ position, reason: item.reason, payload: item.payload ?? null })));
  const stamp = now.toISOString();
  const result = await sql`
    with batch as (
      select r.position, r.reason, coalesce(r.payload, 'null'::jsonb) as payload
      from jsonb_to_recordset(${batch}::text::jsonb) as r(position integer, reason text, payload jsonb)
    ), grouped as (
      select md5(payload::text) as payload_md5,
             (array_agg(reason order by position desc))[1] as reason,
             (array_agg(payload order by position desc))[1] as payload,
             count(*)::integer as seen
      from batch
      group by md5(payload::text)
    )
    insert into ${sql.table('rejected_events')} as t (scope, reason, payload, payload_md5, first_seen_at, last_seen_at, seen_count)
    select ${scopeKey}, reason, payload, payload_md5, ${stamp}::timestamptz, ${stamp}::timestamptz, seen from grouped
    on conflict (scope, payload_md5) do update
      set reason = excluded.reason,
          last_seen_at = greatest(t.last_seen_at, excluded.last_seen_at),
          seen_count = t.seen_count + excluded.seen_count
  `.execute(db);
  return Number(result.numAffectedRows ?? 0n);
}
