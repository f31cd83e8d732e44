/** SQL identifiers that reach the warehouse from configuration. Pure; no I/O. */
import { WarehouseError } from '../errors.js';

const PLAIN_IDENTIFIER = /^[a-z_][a-z0-9_]{0,62}$/;

/**
 * Refuses anything but a plain lower-case identifier, so a schema name can be quoted and used in
 * SQL text (search_path, CREATE SCHEMA) without ever splicing unvalidated input.
 */
export function assertPlainIdentifier(value: string, what = 'warehouse schema'): string {
  if (!PLAIN_IDENTIFIER.test(value)) {
    throw new WarehouseError(
      'WAREHOUSE_SCHEMA_INVALID',
      `${what} ${JSON.stringify(value)} is not a plain identifier: use lower-case letters, digits and _ (such as events_mirror); set WAREHOUSE_SCHEMA`,
    );
  }
  return value;
}

/** Double-quoted identifier; only for values that passed assertPlainIdentifier. */
export function quoteIdentifier(value: string): string {
  return `"${assertPlainIdentifier(value).replaceAll('"', '""')}"`;
}
