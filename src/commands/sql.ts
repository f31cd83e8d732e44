/**
 * `events-mirror sql "select …"`: one read-only statement against the configured warehouse,
 * embedded or PostgreSQL, printed as a table, CSV or JSON. The statement runs inside a READ ONLY
 * transaction that is rolled back, so PostgreSQL itself refuses a write; several statements in one
 * string are refused before anything runs (and the extended protocol would refuse them too).
 */
import type { Command } from 'commander';
import { action } from './context.js';
import type { SqlFlags } from './sql-run.js';

export function registerSqlCommand(program: Command): void {
  program
    .command('sql')
    .description('run one read-only SQL statement against the warehouse (embedded or PostgreSQL) and print its rows')
    .argument('<statement>', 'one statement, e.g. "select count(*) from events"; tables and views need no schema prefix')
    .option('--csv', 'print CSV (RFC 4180, a header line) instead of a table')
    .option('--json', 'print a JSON array of one object per row instead of a table')
    .action(action(async (statement: string, flags: SqlFlags) => (await import('./sql-run.js')).runSql(statement, flags)));
}
