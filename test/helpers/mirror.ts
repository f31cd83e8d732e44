/** Compares what the warehouse holds with the emulator's full event set. */
import { isDeepStrictEqual } from 'node:util';
import { expect } from 'vitest';
import { sql, type Kysely } from 'kysely';
import type { Dataset } from '../../src/emulator/dataset.js';
import type { Database } from '../../src/warehouse/database.js';

export async function mirroredIds(db: Kysely<Database>, scopeKey: string): Promise<string[]> {
  const rows = await db.selectFrom('events').select('id').where('scope', '=', scopeKey).execute();
  return rows.map((r) => r.id).sort();
}

export async function rejectedCount(db: Kysely<Database>, scopeKey: string): Promise<number> {
  const row = await db
    .selectFrom('rejected_events')
    .select(sql<number>`count(*)::int`.as('n'))
    .where('scope', '=', scopeKey)
    .executeTakeFirstOrThrow();
  return row.n;
}

/** Every valid event of every scope is held once, under its scope; every malformed one is set aside. */
export async function expectMirrorEqualsEmulator(db: Kysely<Database>, dataset: Dataset, scopes: readonly string[]): Promise<void> {
  let total = 0;
  for (const scope of scopes) {
    const expected = [...dataset.validIds(scope)].sort();
    const actual = await mirroredIds(db, scope);
    expect(actual.length, `${scope}: events held`).toBe(expected.length);
    expect(actual, `${scope}: event ids`).toEqual(expected);
    const rejected = await rejectedCount(db, scope);
    const rejectedWhy = rejected === dataset.malformedCount(scope) ? '' : await malformedNotSetAside(db, dataset, scope);
    expect(rejected, `${scope}: rejected events${rejectedWhy}`).toBe(dataset.malformedCount(scope));
    total += expected.length;
  }
  const held = await db
    .selectFrom('events')
    .select(sql<number>`count(*)::int`.as('n'))
    .executeTakeFirstOrThrow();
  expect(held.n, 'no event outside the compared scopes').toBe(total);
}

/** For a failure message: the scope's malformed events that `rejected_events` does not hold. */
async function malformedNotSetAside(db: Kysely<Database>, dataset: Dataset, scopeKey: string): Promise<string> {
  const valid = dataset.validIds(scopeKey);
  const malformed = dataset.allEvents(scopeKey).filter((event) => event.id === undefined || !valid.has(event.id));
  const rows = await db
    .selectFrom('rejected_events')
    .select(['payload', 'seen_count', 'first_seen_at', 'listed_from', 'listed_to'])
    .where('scope', '=', scopeKey)
    .execute();
  const missing = malformed.filter((event) => !rows.some((row) => isDeepStrictEqual(row.payload, event)));
  return `; not set aside: ${JSON.stringify(missing)}; rejected_events holds ${rows.length}: ${JSON.stringify(rows)}`;
}
