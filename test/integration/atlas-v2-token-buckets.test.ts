/**
 * Issue 35's acceptance run of the budget that listens, over real HTTP against the emulator in
 * Atlas v2 mode with token buckets of the service's sizes (project 300 tokens refilling 100 a
 * period, organization 500 refilling 250), the deep-paging timeout and 5 % faults (2.5 % 429, 2.5 %
 * 5xx), into real PostgreSQL with the request budget shared through real Redis: a backfill of
 * 200,000 events of a project and its organization (500 a page, about 400 pages), then a reconcile,
 * lands every event once, and at most 2 % of the mirror's requests are token-bucket refusals
 * (counted by the emulator; its own 429 faults are not). The same run with the hints removed (no
 * RateLimit-* headers, no parameters in the 429 body) completes on Retry-After alone.
 *
 * Scaled: the period is 30 s instead of the service's 60 (the run would take minutes), and the
 * mirror's configured budget with it (api.requestsPerMinute = refill × 60 / period: 200 and 500).
 * BUCKET_PERIOD_SECONDS=60 runs it at the service's period and the default budget (100 and 250): on
 * 2026-11-27, 0 token-bucket 429s of 480 requests with the hints, 25 % without, 150 s a run.
 * 200,000 events are fewer requests than the two buckets hold, so another reader of the same scopes
 * empties them just before the mirror starts, as a second deployment or a SIEM's collector would.
 * Measured (2026-11-27, 2 cores, the two runs side by side): following the hints, 0 refusals of
 * 483 requests, 74 s; the hints removed, 45 of 529 (8.5 %), 70 s; following switched off in
 * client.ts with the hints sent, 37 of 521 (7.1 %): this test fails. Not shorter: at a 15 s period
 * a loaded CI run could not read as fast as the buckets refilled, and the run without hints saw no
 * refusal at all (0 of 482, 2026-11-27), so its check failed.
 */
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { Registry } from 'prom-client';
import { afterAll, describe, expect, it } from 'vitest';
import { createApiMetrics } from '../../src/api/metrics.js';
import { redisRequestBudget } from '../../src/api/request-budget.js';
import { scopeSettings } from '../../src/config.js';
import { parseScope } from '../../src/scope.js';
import { backfillScope } from '../../src/sync/backfill.js';
import { isReconciled, reconcileScope } from '../../src/sync/reconcile-scope.js';
import { expectMirrorEqualsEmulator } from '../helpers/mirror.js';
import { REDIS_URL } from '../helpers/services.js';
import { daysAgo, startSyncFixture, type SyncFixture } from '../helpers/sync-fixture.js';

const ORG = '5f0000000000000000000355';
const PROJECT = '6a0000000000000000000355';
/** BUCKET_PERIOD_SECONDS=60 runs it at the service's own period (a run of about twice the time). */
const PERIOD_SECONDS = Number(process.env.BUCKET_PERIOD_SECONDS ?? 30);
const DAYS = 20;
const EVENTS_PER_SCOPE = 100_000;
const BUCKETS = { group: { capacity: 300, refill: 100 }, org: { capacity: 500, refill: 250 } } as const;
/** Another reader of the same scopes (a second deployment, a SIEM's collector), Bearer-authenticated. */
const OTHER_READER = {
  clientId: 'mdb_sa_id_other',
  clientSecret: 'mdb_sa_sk_other-secret',
  roles: [{ orgId: ORG, roleName: 'ORG_OWNER' }],
};

const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
const prefix = `events-mirror-test:${randomUUID()}`;
const fixtures: SyncFixture[] = [];
afterAll(async () => {
  for (const fixture of fixtures) await fixture.close();
  const keys = await redis.keys(`${prefix}*`);
  if (keys.length > 0) await redis.del(...keys);
  await redis.quit();
});

async function start(hints: boolean): Promise<SyncFixture> {
  const fixture = await startSyncFixture({
    seed: 355,
    orgs: [ORG],
    projects: [{ id: PROJECT, orgId: ORG, name: 'busy' }],
    eventsPerScope: EVENTS_PER_SCOPE,
    days: DAYS,
    serviceAccounts: [OTHER_READER],
    tokenLimits: { perWindow: 100 },
    faults: {
      rate429: 0.025,
      rate5xx: 0.025,
      retryAfterSeconds: 1,
      timeoutPagingDepth: 2,
      tokenBuckets: { ...BUCKETS, periodSeconds: PERIOD_SECONDS, hints },
    },
  });
  fixtures.push(fixture);
  return fixture;
}

/** The other reader empties both buckets just before the mirror starts (one-item pages). */
async function drainBuckets(fixture: SyncFixture): Promise<number> {
  const base = fixture.emulator.atlasV2BaseUrl;
  const tokenAnswer = await fetch(`${fixture.emulator.url}/api/oauth/token`, {
    method: 'POST',
    headers: {
      authorization: `Basic ${Buffer.from(`${OTHER_READER.clientId}:${OTHER_READER.clientSecret}`).toString('base64')}`,
      'content-type': 'application/x-www-form-urlencoded',
    },
    body: 'grant_type=client_credentials',
  });
  const { access_token: token } = (await tokenAnswer.json()) as { access_token: string };
  let sent = 0;
  for (const path of [`/groups/${PROJECT}/events`, `/orgs/${ORG}/events`]) {
    // Until the bucket refuses (a 429 or 5xx fault takes no token: keep going).
    for (let refused = false; !refused; sent += 1) {
      const answer = await fetch(`${base}${path}?itemsPerPage=1&includeCount=false`, {
        headers: { authorization: `Bearer ${token}`, accept: 'application/vnd.atlas.2023-01-01+json' },
      });
      const text = await answer.text();
      refused = answer.status === 429 && text.includes('RATE_LIMITED_TOKEN_BUCKET');
    }
  }
  return sent;
}

async function mirror(fixture: SyncFixture, name: string) {
  const env = { ...fixture.env, EVENTS_API_BASE_URL: fixture.emulator.atlasV2BaseUrl };
  const scale = 60 / PERIOD_SECONDS;
  const overrides = {
    api: { itemsPerPage: 500, maxAttempts: 12, requestsPerMinute: { group: 100 * scale, org: 250 * scale } },
    sync: { windowSeconds: 86_400 },
  };
  Object.assign(fixture.env, env);
  const config = fixture.config(overrides);
  const budget = redisRequestBudget(redis, config.api.requestsPerMinute, `${prefix}:${name}`);
  const registry = new Registry();
  const runtime = await fixture.runtime(overrides, { budget, metrics: createApiMetrics(registry) });
  const scopes = [`org:${ORG}`, `group:${PROJECT}`];
  await drainBuckets(fixture);
  const before = fixture.emulator.stats();
  const started = performance.now();
  const from = daysAgo(DAYS + 1);
  const to = new Date();
  const backfills = await Promise.all(scopes.map((key) => backfillScope(runtime.ctx, scopeSettings(config, parseScope(key)), from, to)));
  for (const result of backfills) expect(result.windowsSkipped).toBe(0);
  const reconciles = await Promise.all(
    scopes.map((key) => reconcileScope(runtime.ctx, scopeSettings(config, parseScope(key)), { days: DAYS + 1, reReadPages: 4, from, to })),
  );
  for (const result of reconciles) expect(isReconciled(result.outcome), `${result.scope}: ${String(result.error)}`).toBe(true);
  const seconds = (performance.now() - started) / 1000;
  await expectMirrorEqualsEmulator(runtime.warehouse.db, fixture.emulator.dataset, scopes);
  const after = fixture.emulator.stats();
  const stats = {
    requests: after.requests - before.requests,
    tokenBucketRefusals: after.tokenBucketRefusals - before.tokenBucketRefusals,
    byStatus: Object.fromEntries(Object.entries(after.byStatus).map(([k, v]) => [k, v - (before.byStatus[Number(k)] ?? 0)])) as Record<
      number,
      number
    >,
  };
  const share = stats.tokenBucketRefusals / stats.requests;
  console.info(
    `${name}: ${stats.requests} requests, ${stats.tokenBucketRefusals} token-bucket 429s (${(share * 100).toFixed(2)} %), ` +
      `${stats.byStatus[429] ?? 0} 429s in all, ${(stats.byStatus[500] ?? 0) + (stats.byStatus[503] ?? 0)} 5xx, ${seconds.toFixed(1)} s`,
  );
  const remaining = (await registry.getSingleMetric('events_mirror_api_budget_remaining')!.get()).values;
  return { stats, share, seconds, remaining };
}

// The two runs wait on their buckets most of the time: they run side by side.
describe.concurrent('the request budget follows Atlas v2 token-bucket hints', () => {
  it('backfills and reconciles 200,000 events with at most 2 % token-bucket refusals', async () => {
    const fixture = await start(true);
    const { stats, share, remaining } = await mirror(fixture, 'hints');
    // One series a scope: the tokens the service last said were left.
    expect(remaining.map((v) => [v.labels.scope_kind, v.labels.scope]).sort()).toEqual([
      ['group', `group:${PROJECT}`],
      ['org', `org:${ORG}`],
    ]);
    expect(stats.byStatus[429] ?? 0, 'the 429 faults fired').toBeGreaterThan(stats.tokenBucketRefusals);
    expect(share).toBeLessThanOrEqual(0.02);
  }, 300_000);

  it('completes on Retry-After alone when the service sends no hints', async () => {
    const fixture = await start(false);
    const { stats, remaining } = await mirror(fixture, 'no-hints');
    expect(remaining).toEqual([]);
    expect(stats.requests).toBeGreaterThan(400);
    // The buckets did run dry: without hints the budget learns of them only from the refusals.
    expect(stats.tokenBucketRefusals).toBeGreaterThan(0);
  }, 300_000);
});
