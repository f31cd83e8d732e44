/** `events-mirror reconcile`'s work, loaded when the command runs: reconcile.ts defines its flags. */
import type { Scope } from '../scope.js';
import { requireApiAccess } from '../config.js';
import { UsageError, errorCodeOf, errorMessage } from '../errors.js';
import type { ScopeRunJson } from '../report/json-output.js';
import { renderReconcileSummary } from '../report/reconcile-report.js';
import { listenForShutdown } from '../shutdown-signals.js';
import { mapWithConcurrency } from '../sync/concurrency.js';
import { isReconciled, reconcileScope, type ReconcileScopeResult } from '../sync/reconcile-scope.js';
import { openSyncRuntime } from '../sync/runtime.js';
import { formatTimestamp } from '../time.js';
import { EXIT_FAILURE, EXIT_OK, createContext } from './context.js';
import { scopesRunJson } from './fleet.js';
import { requireScopesUnlessNamed, selectScopes } from './select-scopes.js';

export interface ReconcileOptions {
  scope?: Scope[];
  from?: Date;
  to?: Date;
  json?: boolean;
}

export async function runReconcile(options: ReconcileOptions): Promise<number> {
  if (options.from && options.to && options.from > options.to) {
    throw new UsageError(`--from ${formatTimestamp(options.from)} is after --to ${formatTimestamp(options.to)}: swap them`);
  }
  const { config, logger } = createContext({ logFd: 2, interactive: true });
  requireApiAccess(config);
  requireScopesUnlessNamed(config, options.scope);
  const shutdown = listenForShutdown();
  const runtime = await openSyncRuntime(config, logger, { signal: shutdown.signal });
  try {
    const scopes = await selectScopes(runtime.warehouse.db, config, options.scope);
    const results = await mapWithConcurrency(scopes, config.sync.concurrency, (settings) =>
      reconcileScope(runtime.ctx, settings, {
        days: config.reconcile.days,
        reReadPages: config.reconcile.reReadPages,
        ...(options.from ? { from: options.from } : {}),
        ...(options.to ? { to: options.to } : {}),
      }),
    );
    if (options.json) {
      const runs = new Map(results.map((r) => [r.scope, reconcileRunJson(r)]));
      process.stdout.write(await scopesRunJson(runtime.warehouse.db, config, 'reconcile', new Date(), runs));
    } else {
      process.stdout.write(renderReconcileSummary(results));
    }
    return results.every((r) => isReconciled(r.outcome)) ? EXIT_OK : EXIT_FAILURE;
  } finally {
    shutdown.dispose();
    await runtime.close();
  }
}

function reconcileRunJson(r: ReconcileScopeResult): ScopeRunJson {
  return {
    kind: 'reconcile',
    outcome: r.outcome,
    consistent: isReconciled(r.outcome),
    from: r.from ? r.from.toISOString() : null,
    to: r.to ? r.to.toISOString() : null,
    windowsChecked: r.windowsChecked,
    windowsDiffering: r.windowsDiffering,
    windowsReread: r.windowsReread,
    eventsRecovered: r.eventsRecovered,
    eventsMissing: r.eventsMissing,
    eventsExtra: r.eventsExtra,
    requests: r.requests,
    error: r.outcome === 'failed' ? { code: errorCodeOf(r.error), message: errorMessage(r.error) } : null,
  };
}
