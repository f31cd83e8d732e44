/** Builds the `events-mirror` command tree; each subcommand lives in src/commands/. */
import { Command, CommanderError } from 'commander';
import { EXIT_USAGE } from './commands/context.js';

export function buildProgram(): Command {
  const program = new Command('events-mirror')
    .description('Mirror the Events API (project and organization activity feeds) into PostgreSQL')
    .version('0.1.0')
    .showHelpAfterError()
    .exitOverride();
  return program;
}

export async function main(argv: string[]): Promise<void> {
  const program = buildProgram();
  try {
    await program.parseAsync(argv);
  } catch (error) {
    if (error instanceof CommanderError) {
      // Help and version exit 0; a wrong flag or argument has already printed usage.
      process.exitCode = error.exitCode === 0 ? 0 : EXIT_USAGE;
      return;
    }
    throw error;
  }
}
