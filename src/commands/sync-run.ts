/** `events-mirror sync`'s work, loaded when the command runs: sync.ts defines its flags. */
import type { Scope } from '../scope.js';
import { requireApiAccess } from '../config.js';
import { UsageError, errorCodeOf, errorMessage } from '../errors.js';
import type { ScopeRunJson } from '../report/json-output.js';
import { plural } from '../report/shorten.js';
import { renderSyncSummary } from '../report/sync-summary.js';
import { mapWithConcurrency } from '../sync/concurrency.js';
import { listenForShutdown } from '../shutdown-signals.js';
import { openSyncRuntime } from '../sync/runtime.js';
import { discoverScopes } from '../sync/discovery.js';
import { keepHouse } from '../sync/housekeeping.js';
import { CATALOG_REFRESH_MS, CATALOG_RETRY_MS, catalogSources, tryRefreshEventTypeCatalog } from '../sync/event-type-catalog.js';
import { syncScope, type ScopeRunResult } from '../sync/sync-scope.js';
import { EXIT_FAILURE, EXIT_OK, createContext } from './context.js';
import { serveWarehouse, type ServedWarehouse } from '../warehouse/pglite-served.js';
import { scopesRunJson } from './fleet.js';
import { terminalProgress } from './progress.js';
import { requireScopesUnlessNamed, selectScopes } from './select-scopes.js';
import { syncProblems } from './sync-problems.js';
import { DEFAULT_CREDENTIAL } from '../credentials.js';

export interface SyncOptions {
  once?: boolean;
  scope?: Scope[];
  concurrency?: number;
  serveSql?: number;
  serveSqlHost: string;
  json?: boolean;
}

export async function runSync(options: SyncOptions): Promise<number> {
  if (options.json && !options.once) throw new UsageError('--json needs --once: a continuous sync prints one table per pass');
  const { config, logger } = createContext({
    logFd: 2,
    interactive: options.once === true,
    ...(options.concurrency ? { overrides: { sync: { concurrency: options.concurrency } } } : {}),
  });
  requireApiAccess(config);
  if (options.serveSql !== undefined) {
    if (options.once) throw new UsageError('--serve-sql serves the warehouse while sync keeps mirroring: drop --once');
    if (config.database.url) {
      throw new UsageError(
        '--serve-sql serves the embedded warehouse, and DATABASE_URL is set (a PostgreSQL warehouse): connect SQL clients to that PostgreSQL instead',
      );
    }
  }
  requireScopesUnlessNamed(config, options.scope);
  const shutdown = listenForShutdown();
  // A pass on a terminal shows scopes done and events landed (the summary table follows).
  const progress =
    options.once && !options.json ? terminalProgress('sync [{bar}] {value}/{total} scopes | {events} events', logger) : undefined;
  let events = 0;
  let scopesDone = 0;
  let scopesTotal = 0;
  const runtime = await openSyncRuntime(config, logger, {
    signal: shutdown.signal,
    ...(progress
      ? {
          onPage: (_scope, page) => {
            events += page.events.length + page.rejected.length;
            progress.update(scopesDone, scopesTotal, { events: events.toLocaleString('en-US') });
          },
        }
      : {}),
  });
  let catalogDueAt = 0;
  let served: ServedWarehouse | undefined;
  try {
    const configured = await selectScopes(runtime.warehouse.db, config, options.scope);
    // Atlas v2 sources' event type catalogue: read before the first pass, then daily.
    const catalogCredentials = catalogSources(
      config,
      configured.map((s) => s.credential),
    );
    if (options.serveSql !== undefined) {
      served = await serveWarehouse(runtime.warehouse.pglite!, { host: options.serveSqlHost, port: options.serveSql, logger });
      logger.info(
        { host: served.host, port: served.port },
        `serving the embedded warehouse read-only on ${served.host}:${served.port}: psql -h ${served.host} -p ${served.port} -U postgres postgres`,
      );
    }
    for (;;) {
      if (catalogCredentials.length > 0 && runtime.ctx.now().getTime() >= catalogDueAt) {
        const read = await tryRefreshEventTypeCatalog(
          { clients: runtime.clients, warehouse: runtime.warehouse, logger, now: runtime.ctx.now, signal: shutdown.signal },
          catalogCredentials,
        );
        catalogDueAt = runtime.ctx.now().getTime() + (read ? CATALOG_REFRESH_MS : CATALOG_RETRY_MS);
      }
      // Each pass lists the organizations' projects first: a project created since is synced too.
      const scopes = configured.some((s) => s.discoverProjects)
        ? (
            await discoverScopes(
              { clients: runtime.clients, db: runtime.warehouse.db, logger, now: runtime.ctx.now, signal: shutdown.signal },
              configured,
            )
          ).scopes
        : configured;
      scopesTotal = scopes.length;
      const credentialByScope = new Map(scopes.map((s) => [s.scope.key, s.credential ?? DEFAULT_CREDENTIAL]));
      const results = await mapWithConcurrency(scopes, config.sync.concurrency, async (settings) => {
        // A pass a person reads reports its failures once, as problems above the summary.
        const result = await syncScope(runtime.ctx, settings, { mode: 'sync', reportsFailures: options.once === true && !options.json });
        scopesDone += 1;
        progress?.update(scopesDone, scopesTotal, { events: events.toLocaleString('en-US') });
        return result;
      });
      progress?.stop();
      if (options.json) {
        const runs = new Map(results.map((r) => [r.scope, syncRunJson(r)]));
        process.stdout.write(await scopesRunJson(runtime.warehouse.db, config, 'sync', runtime.ctx.now(), runs));
      } else {
        const problems = syncProblems(results, (scope) => credentialByScope.get(scope) ?? DEFAULT_CREDENTIAL);
        const width = process.stdout.isTTY ? process.stdout.columns : undefined;
        process.stdout.write(renderSyncSummary(results, runtime.ctx.now(), { problems, width }));
      }
      await keepHouse(runtime.ctx, config.housekeeping, logger);
      if (options.once || shutdown.signal.aborted) return exitCodeFor(results);
      await sleep(config.scheduler.pollIntervalSeconds * 1000, shutdown.signal);
      if (shutdown.signal.aborted) return exitCodeFor(results);
      logger.info(`next pass over ${plural(configured.length, 'configured scope')}`);
    }
  } finally {
    progress?.stop();
    shutdown.dispose();
    await served?.close();
    await runtime.close();
  }
}

function syncRunJson(r: ScopeRunResult): ScopeRunJson {
  const t = r.totals;
  return {
    kind: 'sync',
    status: r.status,
    windows: t.windows,
    pages: t.pages,
    inserted: t.inserted,
    changed: t.changed,
    rejected: t.rejected,
    error: r.status === 'failed' ? { code: errorCodeOf(r.error), message: errorMessage(r.error) } : null,
  };
}

/** Skipped scopes are being synced by another runner right now: not a failure. */
function exitCodeFor(results: readonly ScopeRunResult[]): number {
  return results.every((r) => r.status !== 'failed') ? EXIT_OK : EXIT_FAILURE;
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        resolve();
      },
      { once: true },
    );
  });
}
