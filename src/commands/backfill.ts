/** `events-mirror backfill --scope S --from ISO --to ISO`: re-read a range, resumably. */
import type { Command } from 'commander';
import { action } from './context.js';
import { isoDate, isoDateEnd, scopeArg } from './options.js';
import type { BackfillOptions } from './backfill-run.js';

export function registerBackfillCommand(program: Command): void {
  program
    .command('backfill')
    .description('re-read a date range for one scope without touching its checkpoint (resumable)')
    .requiredOption('--scope <scope>', 'org:<orgId> or group:<groupId>', scopeArg)
    .requiredOption('--from <iso>', 'start of the range, included: a date (from 00:00:00Z) or a UTC date-time', isoDate)
    .option('--to <iso>', 'end of the range, included: a date (its whole day, to 23:59:59Z) or a UTC date-time (default: now)', isoDateEnd)
    .option('--enqueue', 'add one BullMQ job per window for the workers instead of running here (needs Redis only)')
    .option('--force', 're-read windows a previous backfill finished too (default: they are skipped, so a backfill resumes)')
    .action(action(async (options: BackfillOptions) => (await import('./backfill-run.js')).runBackfill(options)));
}
