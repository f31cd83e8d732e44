/** `events-mirror backfill --scope S --from ISO --to ISO`: re-read a range, resumably. */
import cliProgress from 'cli-progress';
import type { Command } from 'commander';
import { requireApiAccess, scopeSettings } from '../config.js';
import { UsageError, errorMessage } from '../errors.js';
import type { Scope } from '../scope.js';
import { backfillScope, type BackfillProgress } from '../sync/backfill.js';
import { listenForShutdown } from '../shutdown-signals.js';
import { openSyncRuntime } from '../sync/runtime.js';
import { formatTimestamp } from '../time.js';
import { EXIT_OK, action, createContext } from './context.js';
import { requireKnownScopes } from './known-scopes.js';
import { isoDate, isoDateEnd, scopeArg } from './options.js';

interface BackfillOptions {
  scope: Scope;
  from: Date;
  to?: Date;
  enqueue?: boolean;
  force?: boolean;
}

export function registerBackfillCommand(program: Command): void {
  program
    .command('backfill')
    .description('re-read a date range for one scope without touching its checkpoint (resumable)')
    .requiredOption('--scope <scope>', 'org:<orgId> or group:<groupId>', scopeArg)
    .requiredOption('--from <iso>', 'start of the range, included: a date (from 00:00:00Z) or a UTC date-time', isoDate)
    .option('--to <iso>', 'end of the range, included: a date (its whole day, to 23:59:59Z) or a UTC date-time (default: now)', isoDateEnd)
    .option('--enqueue', 'add one BullMQ job per window for the workers instead of running here (needs Redis only)')
    .option('--force', 're-read windows a previous backfill finished too (default: they are skipped, so a backfill resumes)')
    .action(action(async (options: BackfillOptions) => runBackfill(options)));
}

async function runBackfill(options: BackfillOptions): Promise<number> {
  const to = options.to ?? new Date();
  if (options.from > to) {
    throw new UsageError(`--from ${formatTimestamp(options.from)} is after --to ${formatTimestamp(to)}: swap them`);
  }
  const { config, logger } = createContext({ logFd: 2, interactive: true });
  if (options.enqueue) {
    // Loaded only here: BullMQ and ioredis take half a second, which a backfill run in place would pay.
    const { runEnqueueBackfill } = await import('../queue/enqueue-backfill.js');
    return runEnqueueBackfill(config, logger, options.scope, options.from, to, { force: options.force === true });
  }
  requireApiAccess(config);
  const settings = scopeSettings(config, options.scope);
  const shutdown = listenForShutdown();
  const progress = progressReporter(logger, options.scope.key);
  const runtime = await openSyncRuntime(config, progress.quietLogger, { signal: shutdown.signal });
  try {
    await requireKnownScopes(runtime.warehouse.db, config, [options.scope]);
    const result = await backfillScope(runtime.ctx, settings, options.from, to, {
      onWindow: progress.update,
      force: options.force === true,
    });
    progress.stop();
    const t = result.totals;
    process.stdout.write(
      `backfilled ${options.scope.key} ${formatTimestamp(options.from)}..${formatTimestamp(to)}: ` +
        `${result.windowsTotal} windows (${result.windowsSkipped} already done), ${t.pages} pages, ` +
        `${t.eventsSeen} events (${t.inserted} new, ${t.changed} changed, ${t.rejected} rejected)\n`,
    );
    return EXIT_OK;
  } catch (error) {
    if (!shutdown.signal.aborted) throw error;
    throw new Error(`${errorMessage(shutdown.signal.reason)}: run the same command again to resume (finished windows are skipped)`, {
      cause: error,
    });
  } finally {
    progress.stop();
    shutdown.dispose();
    await runtime.close();
  }
}

/** A progress bar on a terminal; otherwise a log line per window. */
function progressReporter(logger: import('../logger.js').Logger, scopeKey: string) {
  if (!process.stderr.isTTY) {
    return {
      quietLogger: logger,
      update: (p: BackfillProgress) =>
        logger.info(p, `backfill ${scopeKey}: ${p.windowsDone}/${p.windowsTotal} windows, ${p.totals.eventsSeen} events`),
      stop: () => undefined,
    };
  }
  const bar = new cliProgress.SingleBar(
    { format: `backfill ${scopeKey} [{bar}] {value}/{total} windows | {events} events | eta {eta_formatted}`, stream: process.stderr },
    cliProgress.Presets.shades_classic,
  );
  let started = false;
  return {
    // Window completion lines would tear the bar: keep warnings and errors only.
    quietLogger: logger.child({}, { level: logger.isLevelEnabled('warn') ? 'warn' : logger.level }),
    update: (p: BackfillProgress) => {
      if (!started) {
        bar.start(p.windowsTotal, 0, { events: 0 });
        started = true;
      }
      bar.update(p.windowsDone, { events: p.totals.eventsSeen });
    },
    stop: () => {
      if (started) bar.stop();
      started = false;
    },
  };
}
