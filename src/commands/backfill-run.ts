/** `events-mirror backfill`'s work, loaded when the command runs: backfill.ts defines its flags. */
import type { Scope } from '../scope.js';
import cliProgress from 'cli-progress';
import { requireApiAccess, scopeSettings } from '../config.js';
import { UsageError, errorMessage } from '../errors.js';
import { backfillScope, type BackfillProgress } from '../sync/backfill.js';
import { listenForShutdown } from '../shutdown-signals.js';
import { openSyncRuntime } from '../sync/runtime.js';
import { formatTimestamp } from '../time.js';
import { EXIT_OK, createContext } from './context.js';
import { requireKnownScopes } from './known-scopes.js';

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
