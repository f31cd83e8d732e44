/**
 * The read-only guard's function list (read-only-rules.ts) against the catalogue of PostgreSQL 17,
 * the embedded warehouse's and the parser's version: every name listed is a function there, and
 * none is volatile (may change something) unless its group says why that is harmless.
 */
import { PGlite } from '@electric-sql/pglite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALLOWED_FUNCTIONS } from '../../src/warehouse/read-only-rules.js';

describe('the read-only function list', () => {
  let db: PGlite;
  beforeAll(async () => {
    db = await PGlite.create();
    // Opening PGlite takes 15 to 60 s on the shared machine.
  }, 180_000);
  afterAll(async () => {
    await db.close();
  });

  it('names functions of PostgreSQL 17, volatile only where its reason says so', async () => {
    const names = ALLOWED_FUNCTIONS.flatMap((group) => group.names);
    const { rows } = await db.query<{ proname: string; volatile: boolean }>(
      `select proname, bool_or(provolatile = 'v') as volatile from pg_proc where proname = any($1) group by proname`,
      [names],
    );
    const found = new Map(rows.map((row) => [row.proname, row.volatile]));
    expect(names.filter((name) => !found.has(name))).toEqual([]);
    for (const group of ALLOWED_FUNCTIONS) {
      const volatile = group.names.filter((name) => found.get(name));
      expect(volatile, group.why).toEqual(group.volatile ? group.names : []);
    }
  });
});
