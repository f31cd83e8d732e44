/**
 * `events-mirror forget --scope S [--delete-events]`: the mirror forgets a scope it no longer
 * mirrors. Its state, runs and `scopes` row leave the warehouse; its job schedulers, queued jobs
 * and request budget leave Redis (PostgreSQL warehouses only: the embedded one has no workers);
 * with `--delete-events`, its events, memberships and rejected events go too.
 *
 * Refused, with nothing touched (exit 2): a scope still configured (the next sync or scheduler
 * would bring it back), a scope the mirror does not know, and a scope held by a running sync or
 * worker. The scope's lock is held for the whole of it, so no run starts meanwhile.
 */
import type { Command } from 'commander';
import { action } from './context.js';
import { scopeArg } from './options.js';
import type { ForgetOptions } from './forget-run.js';

export function registerForgetCommand(program: Command): void {
  program
    .command('forget')
    .description('remove a scope the mirror no longer mirrors: its state, runs and job schedulers (its events too with --delete-events)')
    .requiredOption('--scope <scope>', 'org:<orgId> or group:<groupId>, no longer configured', scopeArg)
    .option('--delete-events', 'also delete its events (those no other scope lists), its memberships and its rejected events')
    .action(action(async (options: ForgetOptions) => (await import('./forget-run.js')).runForget(options)));
}
