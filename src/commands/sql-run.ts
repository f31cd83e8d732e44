/** `events-mirror sql`'s work, loaded when the command runs: sql.ts defines its flags. */
import { UsageError, errorMessage } from '../errors.js';
import { renderQueryRows, type SqlOutputFormat } from '../report/sql-output.js';
import { openWarehouse } from '../sync/open-warehouse.js';
import { judgeReadOnly } from '../warehouse/read-only-guard.js';
import { EXIT_FAILURE, EXIT_OK, EXIT_USAGE, createContext, printFailure } from './context.js';

export interface SqlFlags {
  csv?: boolean;
  json?: boolean;
}

/** PostgreSQL's SQLSTATE for a write in a read-only transaction. */
const READ_ONLY_SQL_TRANSACTION = '25006';

const ONLY_READS =
  'events-mirror sql only reads (docs/commands.md#sql lists what it runs); ' +
  "change the warehouse with the mirror's own commands (migrate, backfill, forget), never by hand";

export async function runSql(statement: string, flags: SqlFlags): Promise<number> {
  if (flags.csv && flags.json) throw new UsageError('--csv and --json exclude each other: pick one');
  const format: SqlOutputFormat = flags.csv ? 'csv' : flags.json ? 'json' : 'table';
  // Judged before the warehouse opens; readOnlyQuery judges the same text again before it runs.
  const { statements, refusal } = await judgeReadOnly(statement);
  if (statements === 0 && !refusal)
    throw new UsageError('no SQL statement given: pass one, e.g. events-mirror sql "select count(*) from events"');
  if (statements > 1) return refuse(severalStatements(statements));
  if (refusal) return refuse(`refused: ${refusal}: ${ONLY_READS}`);
  const { config, logger } = createContext({ logFd: 2, interactive: true });
  const warehouse = await openWarehouse(config, logger);
  try {
    const result = await warehouse.readOnlyQuery(statement);
    process.stdout.write(renderQueryRows(result, format));
    return EXIT_OK;
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (code === READ_ONLY_SQL_TRANSACTION) {
      return refuse(`refused: ${errorMessage(error)}: ${ONLY_READS}`);
    }
    printFailure(`SQL error${typeof code === 'string' ? ` ${code}` : ''}: ${describeSqlError(error)}`);
    return EXIT_FAILURE;
  } finally {
    await warehouse.close();
  }
}

function severalStatements(count: number): string {
  return `refused: events-mirror sql runs one statement, this text holds ${count}: run them one at a time, without a ';' between two`;
}

function refuse(message: string): number {
  printFailure(message);
  return EXIT_USAGE;
}

/** PostgreSQL's message, then its detail and hint when it gives them, on one line. */
function describeSqlError(error: unknown): string {
  const { detail, hint } = error as { detail?: unknown; hint?: unknown };
  return [errorMessage(error), typeof detail === 'string' ? `detail: ${detail}` : '', typeof hint === 'string' ? `hint: ${hint}` : '']
    .filter((part) => part !== '')
    .join('; ');
}
