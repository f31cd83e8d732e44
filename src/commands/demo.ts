/** `events-mirror demo`: emulator + embedded warehouse + one sync, then a short report and the HTML report. */
import type { Command } from 'commander';
import { action } from './context.js';
import { positiveInt } from './options.js';
import type { DemoFlags } from './demo-run.js';

export function registerDemoCommand(program: Command): void {
  program
    .command('demo')
    .description('emulator + embedded warehouse + one sync, then a short report; needs no services')
    .option('--events-per-scope <n>', 'events the emulator generates per scope', positiveInt, 3000)
    .option('--days <n>', 'days of history', positiveInt, 14)
    .action(action(async (flags: DemoFlags) => (await import('./demo-run.js')).runDemoCommand(flags)));
}
