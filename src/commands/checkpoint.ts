/** `events-mirror checkpoint --scope S [--set ISO | --reset]`: show or move a scope's checkpoint. */
import type { Command } from 'commander';
import { action } from './context.js';
import { isoDate, scopeArg } from './options.js';
import type { CheckpointOptions } from './checkpoint-run.js';

export function registerCheckpointCommand(program: Command): void {
  program
    .command('checkpoint')
    .description("show a scope's checkpoint and the settings it covers; move it back with --set, or --reset it")
    .requiredOption('--scope <scope>', 'org:<orgId> or group:<groupId>', scopeArg)
    .option(
      '--set <iso>',
      'move the checkpoint back to this date (a date is its 00:00:00Z) or UTC date-time: the next sync reads from there (never forward)',
      isoDate,
    )
    .option('--reset', 'forget the checkpoint: the next sync reads from the start date (EVENTS_START_DATE, or 30 days back)')
    .option('--json', 'one JSON document (docs/commands.md, "JSON output") instead of the line')
    .action(action(async (options: CheckpointOptions) => (await import('./checkpoint-run.js')).runCheckpoint(options)));
}
