/** `events-mirror reconcile`: hold the warehouse against the API's per-window counts, re-read what differs. */
import type { Command } from 'commander';
import { action } from './context.js';
import { collectScopes, isoDate, isoDateEnd } from './options.js';
import type { ReconcileOptions } from './reconcile-run.js';

export function registerReconcileCommand(program: Command): void {
  program
    .command('reconcile')
    .description("compare the warehouse with the API's own count of events per window and re-read only what differs")
    .option('--scope <scope>', 'only this scope (repeatable, or a comma list); default: every configured scope', collectScopes)
    .option(
      '--from <iso>',
      'start of the range, included: a date (from 00:00:00Z) or a UTC date-time (default: EVENTS_RECONCILE_DAYS before --to)',
      isoDate,
    )
    .option(
      '--to <iso>',
      "end of the range, included: a date (its whole day, to 23:59:59Z) or a UTC date-time (default: each scope's checkpoint)",
      isoDateEnd,
    )
    .option('--json', 'one JSON document (docs/commands.md, "JSON output") instead of the table')
    .action(action(async (options: ReconcileOptions) => (await import('./reconcile-run.js')).runReconcile(options)));
}
