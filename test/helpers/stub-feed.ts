/**
 * A plain HTTP server standing in for the Events API where a test needs pages the emulator would
 * never serve (exact payloads, one id in two feeds). It asks for no authentication (the client
 * sends none until challenged) and serves `page(path, pageNum)` for each page of every window, as
 * `bodyText` writes it when a test needs the exact text. A page shorter than itemsPerPage ends a
 * window, so a `page` that ignores the number serves its events as the only page.
 * With it, a sync runtime on a fresh PostgreSQL database or a fresh embedded warehouse (a copy of the
 * run's migrated one, test/helpers/database.ts).
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadConfig, scopeSettings, type Config, type ConfigInput } from '../../src/config.js';
import { silentLogger } from '../../src/logger.js';
import { parseScope } from '../../src/scope.js';
import { syncScope } from '../../src/sync/sync-scope.js';
import { openSyncRuntime, type SyncRuntime, type SyncRuntimeOptions } from '../../src/sync/runtime.js';
import { IN_MEMORY, createWarehouse } from '../../src/warehouse/database.js';
import { migrateToLatest } from '../../src/warehouse/migrator.js';
import { copyMigratedDataDir, createTestDatabase, type TestDatabase } from './database.js';
import { daysAgo } from './sync-fixture.js';

export interface StubFeedSync {
  readonly config: Config;
  readonly runtime: SyncRuntime;
  close(): Promise<void>;
}

export async function startStubFeedSync(
  kind: 'postgres' | 'pglite',
  scopes: readonly string[],
  page: (path: string, pageNum: number) => unknown[],
  overrides: ConfigInput = {},
  /** The body's text for a page's results (default: JSON.stringify of a plain list). */
  bodyText: (results: unknown[]) => string = (results) => JSON.stringify({ links: [], results, totalCount: results.length }),
  runtimeOptions: SyncRuntimeOptions = {},
): Promise<StubFeedSync> {
  const server = createServer((req, res) => {
    const url = new URL(req.url!, 'http://stub');
    const pageNum = Number(url.searchParams.get('pageNum') ?? 1);
    const results = page(url.pathname, pageNum);
    res.setHeader('content-type', 'application/json');
    res.end(bodyText(results));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  let database: TestDatabase | undefined;
  const embedded = kind === 'pglite' ? copyMigratedDataDir() : undefined;
  if (kind === 'postgres') {
    database = await createTestDatabase();
    const warehouse = await createWarehouse({ url: database.url, schema: 'events_mirror', dataDir: 'unused' });
    await migrateToLatest(warehouse);
    await warehouse.close();
  }
  const config = loadConfig({
    env: {
      EVENTS_API_BASE_URL: `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/public/v1.0`,
      EVENTS_API_PUBLIC_KEY: 'public',
      EVENTS_API_PRIVATE_KEY: 'private',
      EVENTS_SCOPES: scopes.join(','),
      EVENTS_START_DATE: daysAgo(1).toISOString(),
      ...(database ? { DATABASE_URL: database.url } : {}),
    },
    overrides: { ...overrides, database: { dataDir: embedded?.dataDir ?? IN_MEMORY }, sync: { settleSeconds: 0, ...overrides.sync } },
  });
  const runtime = await openSyncRuntime(config, silentLogger(), runtimeOptions);
  return {
    config,
    runtime,
    async close() {
      await runtime.close();
      await new Promise((resolve) => server.close(resolve));
      await database?.drop();
      embedded?.remove();
    },
  };
}

/** One sync of `scope` (`group:<id>` or `org:<id>`) through the stub, as a worker's job runs it. */
export function syncThroughStub(stub: StubFeedSync, scope: string): ReturnType<typeof syncScope> {
  return syncScope(stub.runtime.ctx, scopeSettings(stub.config, parseScope(scope)), { mode: 'sync' });
}

/**
 * A stub serving `body`, the exact text of a page of `count` events, for every window, after a first
 * sync of `scope` that landed all of them (it throws otherwise, closing the stub).
 */
export async function syncPageText(kind: 'postgres' | 'pglite', scope: string, body: string, count: number): Promise<StubFeedSync> {
  // `count` placeholders: fewer than a page, so each window ends after the one page.
  const stub = await startStubFeedSync(
    kind,
    [scope],
    () => Array.from({ length: count }, () => ({})),
    {},
    () => body,
  );
  const result = await syncThroughStub(stub, scope);
  if (result.status !== 'succeeded' || result.totals.inserted !== count) {
    await stub.close();
    throw new Error(
      `the first sync of ${scope} ${result.status}, ${result.totals.inserted} of ${count} events inserted: ${String(result.error)}`,
    );
  }
  return stub;
}
