/**
 * Values of a result shown to a person or a script (`events-mirror sql`), kept as PostgreSQL
 * printed them where a JavaScript value would change them: a bigint or numeric past 2^53 loses
 * digits as a number (123456789012345678 becomes 123456789012345680), and so does a number inside
 * json or jsonb once parsed. The same parsers serve both warehouses (pg's per-query type parsers,
 * PGlite's per-query `parsers`).
 */

/** An int8 or numeric as PostgreSQL printed it: `123456789012345678`, `1.50`, `NaN`. */
export class NumberText {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
}

/** A json or jsonb value as PostgreSQL printed it: valid JSON, every number as written. */
export class JsonText {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
}

const INT8 = 20;
const NUMERIC = 1700;
const JSON_TYPE = 114;
const JSONB = 3802;

/** Type parsers by type OID, for the queries whose rows are printed. */
export const EXACT_RESULT_PARSERS: Readonly<Record<number, (value: string) => unknown>> = {
  [INT8]: (value) => new NumberText(value),
  [NUMERIC]: (value) => new NumberText(value),
  [JSON_TYPE]: (value) => new JsonText(value),
  [JSONB]: (value) => new JsonText(value),
};
