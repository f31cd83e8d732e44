/**
 * One root pino logger, built by the CLI and passed down; child loggers per job carry
 * `{ scope, window, jobId }`. Secrets are redacted by path, and never logged on purpose.
 */
import { createRequire } from 'node:module';
import { pino, type Logger, type LevelWithSilent, type DestinationStream } from 'pino';
import type PinoPretty from 'pino-pretty';
import { EventsMirrorError } from './errors.js';
import { writeAboveBar } from './terminal-lines.js';

export type { Logger };

/** Paths pino replaces with "[redacted]" wherever they appear in a log object. */
export const REDACT_PATHS = [
  'privateKey',
  '*.privateKey',
  '*.*.privateKey',
  'password',
  '*.password',
  'authorization',
  'Authorization',
  '*.authorization',
  '*.Authorization',
  'headers.authorization',
  'headers.Authorization',
  '*.headers.authorization',
  '*.headers.Authorization',
  'req.headers.authorization',
  'DATABASE_URL',
  'databaseUrl',
];

export interface LoggerOptions {
  level: LevelWithSilent;
  /** Where lines go; defaults to stdout (fd 1). One-shot commands whose stdout is a report use 2. */
  fd?: 1 | 2;
  /** Human-readable lines; defaults to on when the destination is a terminal. */
  pretty?: boolean;
  /** For tests: capture lines instead of writing to a file descriptor. */
  stream?: DestinationStream;
}

export function createLogger(options: LoggerOptions): Logger {
  const fd = options.fd ?? 1;
  const base = {
    level: options.level,
    redact: { paths: REDACT_PATHS, censor: '[redacted]' },
    base: { pid: process.pid },
    timestamp: pino.stdTimeFunctions.isoTime,
    serializers: { err: serializeError },
  };
  if (options.stream) return pino(base, options.stream);
  const usePretty = options.pretty ?? (fd === 1 ? process.stdout.isTTY : process.stderr.isTTY) === true;
  if (usePretty) {
    // Loaded only for a terminal: most runs (services, cron, CI, piped output) never need its 30-odd
    // modules, and every command pays for what it loads at start.
    const { prettyFactory } = createRequire(import.meta.url)('pino-pretty') as typeof PinoPretty;
    const prettify = prettyFactory({ ignore: 'pid,hostname', translateTime: 'SYS:HH:MM:ss.l' });
    const out = pino.destination({ fd, sync: true });
    // A progress bar drawn on the same terminal takes the lines, to keep them above itself.
    return pino(base, {
      write: (line: string) => {
        const text = prettify(line);
        if (!writeAboveBar(fd, text)) out.write(text);
      },
    });
  }
  return pino(base, pino.destination({ fd, sync: fd === 2 }));
}

/**
 * Our own errors (a refused key, a 404, an unmigrated warehouse) are expected failures whose
 * message says it all: their stack is noise in a log line. Anything else keeps its stack.
 */
function serializeError(error: unknown): unknown {
  if (!(error instanceof Error)) return error;
  const serialized = pino.stdSerializers.err(error) as unknown as Record<string, unknown>;
  if (error instanceof EventsMirrorError) delete serialized.stack;
  return serialized;
}

/** A logger that drops everything, for library callers and tests that do not care. */
export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}
