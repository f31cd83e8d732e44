/** `events-mirror sync [--once]`: every configured scope from its checkpoint to now, in-process. */
import type { Command } from 'commander';
import { action } from './context.js';
import { collectScopes, portArg, positiveInt } from './options.js';
import type { SyncOptions } from './sync-run.js';

export function registerSyncCommand(program: Command): void {
  program
    .command('sync')
    .description('sync every configured scope from its checkpoint to now, in-process (no Redis needed)')
    .option('--once', 'one pass, print a summary table, exit 0 only if every scope succeeded')
    .option('--scope <scope>', 'only this scope (repeatable, or a comma list); default: every configured scope', collectScopes)
    .option('--concurrency <n>', 'scopes synced in parallel (default: sync.concurrency)', positiveInt)
    .option(
      '--serve-sql <port>',
      'also serve the embedded warehouse read-only over the PostgreSQL protocol on this port (0 picks one)',
      portArg,
    )
    .option('--serve-sql-host <host>', 'the address --serve-sql listens on', '127.0.0.1')
    .option('--json', 'with --once: one JSON document (docs/commands.md, "JSON output") instead of the table')
    .action(action(async (options: SyncOptions) => (await import('./sync-run.js')).runSync(options)));
}
