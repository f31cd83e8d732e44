/**
 * Benchmark: the Events API client against the emulator on 127.0.0.1.
 *  1. requests per page over 1,000 pages of 500 with 60 s nonces (target ≤ 1.02). 1,000 pages take
 *     far less than 60 real seconds here, so the emulator's injectable clock advances 0.6 simulated
 *     seconds per page (the pace of the default budget, 100 requests a minute per project): the nonce
 *     expires every 60 simulated seconds, i.e. every 100 pages.
 *  2. pages per second, one scope sequentially and four scopes concurrently (real clock).
 * Run: npx tsx test/bench/client-pages.bench.ts
 */
import { EventsClient } from '../../src/api/client.js';
import { unlimitedRequestBudget } from '../../src/api/request-budget.js';
import { startEmulator } from '../../src/emulator/server.js';
import { parseScope, type Scope } from '../../src/scope.js';

const PAGES = 1000;
const ITEMS_PER_PAGE = 500;
const EVENTS_PER_SCOPE = 10_000; // 20 pages a window; the window is re-read until 1,000 pages
const SIMULATED_SECONDS_PER_PAGE = 0.6;
const KEY = { publicKey: 'bench-pub', privateKey: 'bench-priv', roles: [{ orgId: 'o1', roleName: 'ORG_OWNER' }] };

let simulatedOffsetMs = 0;
const emulator = await startEmulator({
  port: 0,
  seed: 3,
  orgs: ['o1'],
  groups: ['g1', 'g2', 'g3', 'g4'],
  eventsPerScope: EVENTS_PER_SCOPE,
  days: 5,
  nonceTtlSeconds: 60,
  now: () => Date.now() + simulatedOffsetMs,
  keys: [KEY] as never,
});
const newClient = () =>
  new EventsClient({
    baseUrl: emulator.baseUrl,
    publicKey: KEY.publicKey,
    privateKey: KEY.privateKey,
    itemsPerPage: ITEMS_PER_PAGE,
    budget: unlimitedRequestBudget(),
  });
const window = () => ({
  minDate: new Date(Date.now() + simulatedOffsetMs - 10 * 86_400_000),
  maxDate: new Date(Date.now() + simulatedOffsetMs + 86_400_000),
});

async function readPages(
  client: EventsClient,
  scope: Scope,
  pages: number,
  afterPage?: () => void,
): Promise<{ pages: number; requests: number; events: number }> {
  const total = { pages: 0, requests: 0, events: 0 };
  while (total.pages < pages) {
    for await (const page of client.pages(scope, window())) {
      total.pages += 1;
      total.requests += page.requests;
      total.events += page.events.length + page.rejected.length;
      afterPage?.();
      if (total.pages >= pages) break;
    }
  }
  return total;
}

try {
  const g1 = parseScope('group:g1');
  // 1. requests per page with nonces expiring every 60 simulated seconds.
  const statsBefore = emulator.stats();
  const client = newClient();
  const simulated = await readPages(client, g1, PAGES, () => (simulatedOffsetMs += SIMULATED_SECONDS_PER_PAGE * 1000));
  await client.close();
  const stale = emulator.stats().staleChallenges - statsBefore.staleChallenges;
  const perPage = simulated.requests / simulated.pages;
  console.log(
    `requests per page: ${perPage.toFixed(4)} over ${simulated.pages} pages of ${ITEMS_PER_PAGE} ` +
      `(${simulated.requests} requests, ${stale} stale-nonce challenges; nonce TTL 60 s on the emulator's simulated clock, ` +
      `${SIMULATED_SECONDS_PER_PAGE} s per page = ${(simulated.pages * SIMULATED_SECONDS_PER_PAGE).toFixed(0)} simulated s) target <= 1.02: ${perPage <= 1.02 ? 'PASS' : 'FAIL'}`,
  );

  // 2. throughput on the real clock.
  const sequential = newClient();
  await readPages(sequential, g1, 20); // warm-up: connection, nonce, JIT
  let started = performance.now();
  const one = await readPages(sequential, g1, PAGES);
  let seconds = (performance.now() - started) / 1000;
  await sequential.close();
  console.log(
    `pages per second (1 scope, sequential): ${(one.pages / seconds).toFixed(1)} (${one.pages} pages, ${(one.events / seconds).toFixed(0)} events/s, ${(one.requests / one.pages).toFixed(4)} requests/page)`,
  );

  const shared = newClient();
  const scopes = ['g1', 'g2', 'g3', 'g4'].map((g) => parseScope(`group:${g}`));
  await Promise.all(scopes.map((scope) => readPages(shared, scope, 20)));
  started = performance.now();
  const four = await Promise.all(scopes.map((scope) => readPages(shared, scope, PAGES / 4)));
  seconds = (performance.now() - started) / 1000;
  await shared.close();
  const fourPages = four.reduce((n, r) => n + r.pages, 0);
  console.log(`pages per second (4 scopes, concurrent): ${(fourPages / seconds).toFixed(1)} (${fourPages} pages)`);
} finally {
  await emulator.close();
}
