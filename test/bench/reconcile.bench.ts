/**
 * What `reconcile` costs in API requests: 10 scopes × 30 days held in full, reconciled once with no
 * holes and once with 50 events deleted from the warehouse at random over the range, against the
 * pages a full re-read of the same range needs. The emulator serves over HTTP in this process; the
 * warehouse is a fresh PostgreSQL database loaded straight from the emulator's data (the load is
 * set-up, not measured). Target: at most 10 % of a full re-read's pages with 50 holes.
 * Run: npx tsx test/bench/reconcile.bench.ts
 */
import { performance } from 'node:perf_hooks';
import { sql } from 'kysely';
import { loadConfig, scopeSettings } from '../../src/config.js';
import { startEmulator } from '../../src/emulator/server.js';
import { validateEvents } from '../../src/events/validate-event.js';
import { silentLogger } from '../../src/logger.js';
import { parseScope } from '../../src/scope.js';
import { reconcileScope } from '../../src/sync/reconcile-scope.js';
import { openSyncRuntime } from '../../src/sync/runtime.js';
import { createWarehouse } from '../../src/warehouse/database.js';
import { upsertEvents } from '../../src/warehouse/events.repository.js';
import { migrateToLatest } from '../../src/warehouse/migrator.js';
import { createTestDatabase } from '../helpers/database.js';

const SCOPES = 10;
const DAYS = 30;
const EVENTS_PER_SCOPE = 360_000;
const HOLES = 50;
const ITEMS_PER_PAGE = 500;
const DAY_MS = 86_400_000;
const fmt = (value: number) => Math.round(value).toLocaleString('en-US');

async function main(): Promise<void> {
  const groups = Array.from({ length: SCOPES - 1 }, (_, i) => `6a00000000000000000002${String(i).padStart(2, '0')}`);
  const emulator = await startEmulator({
    port: 0,
    seed: 2026,
    orgs: ['5f0000000000000000000200'],
    groups,
    eventsPerScope: EVENTS_PER_SCOPE,
    days: DAYS,
  });
  const database = await createTestDatabase();
  const loader = await createWarehouse({ url: database.url, schema: 'events_mirror', dataDir: 'unused', poolSize: 4 });
  try {
    await migrateToLatest(loader);
    const { dataset } = emulator;
    const scopes = dataset.scopes();
    const loadStarted = performance.now();
    for (const scope of scopes) {
      for (let offset = 0; offset < dataset.count(scope); offset += 5_000) {
        const { results } = dataset.query(scope, { offset, limit: 5_000, includeRaw: false });
        await upsertEvents(loader.db, scope, validateEvents(results).events);
      }
    }
    process.stdout.write(`loaded ${fmt(scopes.length * EVENTS_PER_SCOPE)} events in ${fmt((performance.now() - loadStarted) / 1000)} s\n`);

    const key = emulator.keys[0]!;
    const config = loadConfig({
      env: {
        EVENTS_API_BASE_URL: emulator.baseUrl,
        EVENTS_API_PUBLIC_KEY: key.publicKey,
        EVENTS_API_PRIVATE_KEY: key.privateKey,
        EVENTS_SCOPES: scopes.join(','),
        DATABASE_URL: database.url,
      },
      overrides: { api: { requestsPerMinute: { group: 1_000_000, org: 1_000_000 } } },
    });
    const runtime = await openSyncRuntime(config, silentLogger());
    const to = new Date(Math.floor(Date.now() / 1000) * 1000);
    const from = new Date(to.getTime() - DAYS * DAY_MS);

    const fullReread = scopes.reduce((pages, scope) => {
      let start = from.getTime();
      while (start < to.getTime()) {
        const end = Math.min(Math.floor(start / DAY_MS) * DAY_MS + DAY_MS, to.getTime());
        const { totalCount } = dataset.query(scope, { minSec: start / 1000, maxSec: end / 1000, offset: 0, limit: 1, includeRaw: false });
        pages += Math.max(1, Math.ceil(totalCount / ITEMS_PER_PAGE));
        start = end;
      }
      return pages;
    }, 0);

    const reconcileAll = async (label: string) => {
      const started = performance.now();
      let requests = 0;
      let windows = 0;
      let differing = 0;
      let recovered = 0;
      for (const scope of scopes) {
        const result = await reconcileScope(runtime.ctx, scopeSettings(config, parseScope(scope)), {
          from,
          to,
          days: DAYS,
          reReadPages: config.reconcile.reReadPages,
        });
        if (result.outcome !== 'consistent' && result.outcome !== 'recovered') throw new Error(`${scope}: ${result.outcome}`);
        requests += result.requests;
        windows += result.windowsChecked;
        differing += result.windowsDiffering;
        recovered += result.eventsRecovered;
      }
      const seconds = (performance.now() - started) / 1000;
      process.stdout.write(
        `${label}: ${fmt(requests)} requests (${((100 * requests) / fullReread).toFixed(1)} % of a full re-read's ${fmt(fullReread)} pages), ` +
          `${fmt(windows)} windows checked, ${differing} differing, ${recovered} events recovered, ${seconds.toFixed(1)} s\n`,
      );
      return recovered;
    };

    await reconcileAll('no holes');
    // 50 events deleted at random: spread over scopes and days.
    const { rows } = await sql<{ id: string }>`
      delete from events where id in (select id from events order by random() limit ${HOLES}) returning id`.execute(loader.db);
    const recovered = await reconcileAll(`${rows.length} holes`);
    if (recovered !== rows.length) throw new Error(`recovered ${recovered} of ${rows.length} deleted events`);
    await runtime.close();
  } finally {
    await loader.close();
    await emulator.close();
    await database.drop();
  }
}

await main();
