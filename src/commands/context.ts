/**
 * What every subcommand needs: configuration (loaded once, on demand, with the command's flag
 * overrides), the root logger, and one way of turning failures into exit codes.
 */
import type { Command } from 'commander';
import { loadConfigLayers, type Config, type ConfigInput } from '../config.js';
import { credentialVariables, describeUnknownVariable, unknownVariables } from '../config-env-names.js';
import { ConfigError, UsageError, errorMessage } from '../errors.js';
import { createLogger, type Logger } from '../logger.js';
import { terminalSafe } from '../report/table.js';

export const EXIT_OK = 0;
export const EXIT_FAILURE = 1;
export const EXIT_USAGE = 2;

export interface CommandContext {
  config: Config;
  logger: Logger;
}

export interface ContextOptions {
  overrides?: ConfigInput;
  /** Long-running processes log to stdout; one-shot commands whose stdout is a report use stderr. */
  logFd?: 1 | 2;
  /**
   * A command a person runs and reads (sync --once, status, backfill, …): unless LOG_LEVEL says
   * otherwise it logs warnings and errors only, around its own progress and summary. Services
   * (worker, scheduler, sync without --once) log at info.
   */
  interactive?: boolean;
}

/** The log level a command runs at: LOG_LEVEL when set, else by the kind of command. */
export function logLevelFor(config: Config, interactive: boolean): NonNullable<Config['logLevel']> {
  return config.logLevel ?? (interactive ? 'warn' : 'info');
}

export function createContext(options: ContextOptions = {}): CommandContext {
  const loaded = loadConfigLayers({ overrides: options.overrides });
  const config = loaded.config;
  const logger = createLogger({ level: logLevelFor(config, options.interactive === true), fd: options.logFd ?? 2 });
  for (const unknown of unknownVariables(loaded.env, credentialVariables(loaded.settings))) {
    logger.warn({ variable: unknown.name, closest: unknown.closest }, describeUnknownVariable(unknown));
  }
  return { config, logger };
}

/**
 * Wraps a command's action: configuration and usage errors print one line and exit 2, nothing
 * touched; anything else is logged and exits 1. The action returns its own exit code.
 */
export function action<Args extends unknown[]>(run: (...args: Args) => Promise<number | void>): (...args: Args) => Promise<void> {
  return async (...args: Args) => {
    try {
      process.exitCode = (await run(...args)) ?? EXIT_OK;
    } catch (error) {
      process.exitCode = reportFailure(error, args.at(-1) as Command | undefined);
    }
  };
}

export function reportFailure(error: unknown, command?: Command): number {
  if (error instanceof UsageError) {
    printFailure(error.message);
    if (command) process.stderr.write(`\n${command.helpInformation()}`);
    return EXIT_USAGE;
  }
  if (error instanceof ConfigError) {
    printFailure(error.message);
    return EXIT_USAGE;
  }
  printFailure(errorMessage(error));
  return EXIT_FAILURE;
}

/**
 * A failure's one line on stderr. Messages from libraries sometimes span several lines, and text
 * from the API or the warehouse (an error's detail, a value) may hold escape sequences a terminal
 * would obey: those are shown escaped, as in the tables.
 */
export function printFailure(message: string): void {
  process.stderr.write(`events-mirror: ${terminalSafe(message.replace(/\s*\n\s*/g, ' ').trim())}\n`);
}
