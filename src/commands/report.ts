/**
 * `events-mirror report`: the summary the demo prints, for the warehouse's own data; with
 * `--html FILE`, a self-contained HTML report with charts.
 */
import type { Command } from 'commander';
import { action } from './context.js';
import { collectScopes, positiveInt } from './options.js';
import type { ReportFlags } from './report-run.js';

export function registerReportCommand(program: Command): void {
  program
    .command('report')
    .description(
      'a summary in the terminal (events per type and per day, top actors, configuration changes, sync lag); with --html, a self-contained HTML report with charts',
    )
    .option('--html <file>', 'write the HTML report to this file instead (one file, opens without a network)')
    .option('--days <n>', 'report on events created in the last N days', positiveInt, 14)
    .option('--scope <scope>', 'only this scope (repeatable, or a comma list); default: every scope in the warehouse', collectScopes)
    .action(action(async (flags: ReportFlags) => (await import('./report-run.js')).runReport(flags)));
}
