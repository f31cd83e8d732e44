/**
 * `events-mirror status`: the fleet summary (scopes by state, failing ones by error code, the worst
 * lags), then the scopes worst first, filtered with --failing or --lagging, one in detail with
 * --scope; --json for scripts. The project listings and the schema changes follow in a few lines.
 */
import type { Command } from 'commander';
import { SCHEMA_CHANGES_DAYS } from '../report/schema-changes.js';
import { action } from './context.js';
import { durationSeconds, scopeArg } from './options.js';
import type { StatusFlags } from './status-run.js';

export function registerStatusCommand(program: Command): void {
  program
    .command('status')
    .description(
      `a summary of the scopes by state, then one row per scope worst first (scope, name, state, lag, last polled); then the project listings and the schema changes of the last ${SCHEMA_CHANGES_DAYS} days in one line`,
    )
    .option('--scope <scope>', 'only this scope, one line per field, its last error whole', scopeArg)
    .option('--failing', 'only the scopes whose last run failed, with their errors')
    .option(
      '--lagging [duration]',
      'only the scopes whose checkpoint is further behind than this (90s, 15m, 2h, 1d; default 3 poll intervals + the settle time, as the lag alert)',
      durationSeconds,
    )
    .option('--all', 'the whole table, however many scopes (by default more than 20 show their 12 worst)')
    .option('--json', 'one JSON document (docs/commands.md, "JSON output") instead of the text')
    .option(
      '--schema-changes',
      `list the event types and fields first seen in the last ${SCHEMA_CHANGES_DAYS} days instead (and, with an Atlas v2 source, the types the event type catalogue lacks or dropped)`,
    )
    .action(action(async (flags: StatusFlags) => (await import('./status-run.js')).runStatus(flags)));
}
