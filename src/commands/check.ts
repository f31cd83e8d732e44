/**
 * `events-mirror check`: before a first sync, or after a change, is the setup right? Each
 * credential and configured scope (one small request each), the warehouse (reachable, migrated,
 * privileges) and Redis when it is configured: a line each, a problem with its fix. Exit 0 only
 * when every check passes. Nothing is changed.
 */
import type { Command } from 'commander';
import { action } from './context.js';
import type { CheckFlags } from './check-run.js';

export function registerCheckCommand(program: Command): void {
  program
    .command('check')
    .description(
      'check the setup: each credential and scope (one request each), the warehouse (reachable, migrated, privileges), Redis when configured; exit 0 only if all pass',
    )
    .option('--json', 'one JSON array of {subject, outcome, detail} instead of the lines')
    .action(action(async (flags: CheckFlags) => (await import('./check-run.js')).runCheck(flags)));
}
