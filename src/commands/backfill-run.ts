/** `events-mirror backfill`'s work, loaded when the command runs: backfill.ts defines its flags. */
import type { Scope } from '../scope.js';
import { requireApiAccess } from '../config.js';
import { UsageError, errorMessage } from '../errors.js';
import { backfillScope, type BackfillProgress } from '../sync/backfill.js';
import { listenForShutdown } from '../shutdown-signals.js';
import { openSyncRuntime } from '../sync/runtime.js';
import { formatTimestamp } from '../time.js';
import { EXIT_OK, createContext } from './context.js';
import { namedScopeSettings } from './known-scopes.js';
import { terminalProgress } from './progress.js';
import type { Logger } from '../logger.js';

export interface BackfillOptions {
  scope: Scope;
  from: Date;
  to?: Date;
  enqueue?: boolean;
  force?: boolean;
}

export async function runBackfill(options: BackfillOptions): Promise<number> {
  const to = options.to ?? new Date();
  if (options.from > to) {
    // Without --to the range ends now: a --to the user never gave is not named.
    throw new UsageError(
      options.to
        ? `--from ${formatTimestamp(options.from)} is after --to ${formatTimestamp(to)}: swap them`
        : `--from ${formatTimestamp(options.from)} is in the future (now is ${formatTimestamp(to)}): give a date in the past`,
    );
  }
  const { config, logger } = createContext({ logFd: 2, interactive: true });
  if (options.enqueue) {
    // Loaded only here: BullMQ and ioredis take half a second, which a backfill run in place would pay.
    const { runEnqueueBackfill } = await import('../queue/enqueue-backfill.js');
    return runEnqueueBackfill(config, logger, options.scope, options.from, to, { force: options.force === true });
  }
  requireApiAccess(config);
  const shutdown = listenForShutdown();
  const progress = progressReporter(logger, options.scope.key);
  const runtime = await openSyncRuntime(config, logger, { signal: shutdown.signal });
  try {
    const [settings] = await namedScopeSettings(runtime.warehouse.db, config, [options.scope], 'defaults');
    const result = await backfillScope(runtime.ctx, settings!, options.from, to, {
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

/** A progress bar on a terminal; otherwise a log line per window (at LOG_LEVEL=info). */
function progressReporter(logger: Logger, scopeKey: string) {
  // The scope is on the command line: the bar leaves it out to fit in 80 columns with its eta.
  const bar = terminalProgress('backfill [{bar}] {value}/{total} windows | {events} events | eta {eta_formatted}', logger);
  return {
    update: (p: BackfillProgress) => {
      logger.info(p, `backfill ${scopeKey}: ${p.windowsDone}/${p.windowsTotal} windows, ${p.totals.eventsSeen} events`);
      bar.update(p.windowsDone, p.windowsTotal, { events: p.totals.eventsSeen.toLocaleString('en-US') });
    },
    stop: () => bar.stop(),
  };
}
