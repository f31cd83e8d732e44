/** Compares what the warehouse holds with the emulator's full event set. */
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
    expect(await rejectedCount(db, scope), `${scope}: rejected events`).toBe(dataset.malformedCount(scope));
    total += expected.length;
  }
  const held = await db
    .selectFrom('events')
    .select(sql<number>`count(*)::int`.as('n'))
    .executeTakeFirstOrThrow();
  expect(held.n, 'no event outside the compared scopes').toBe(total);
}
