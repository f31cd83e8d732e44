/** `events-mirror migrate`: applies the migrations in `migrations/` to the configured warehouse. */
import type { Command } from 'commander';
import { action } from './context.js';

export function registerMigrateCommand(program: Command): void {
  program
    .command('migrate')
    .description('apply the migrations in migrations/ to the warehouse (DATABASE_URL, or the embedded one)')
    .action(action(async () => (await import('./migrate-run.js')).runMigrate()));
}
