/**
 * Issue 43 item 16: Atlas v2 token buckets with small capacities (10 tokens), over real HTTP against
 * the emulator's buckets. An organization's feed and its project list share one bucket, so a worker
 * paging the feed while others list the projects (discovery, a second deployment's discovery) have
 * several requests of one bucket in flight at once, more than the reserve of 2 tokens covers. Each answer's `RateLimit-Remaining` does not yet count the other requests in
 * flight: the budget subtracts them (in memory for one process, in Redis for workers sharing it),
 * so it never sends a request the bucket refuses: no token-bucket 429 at all.
 *
 * The bucket refills 30 tokens a 6 s period (the 30 a minute, ten times faster so the run
 * takes seconds) and api.requestsPerMinute is that rate (300), so the budget's refill is the true
 * one and only the requests in flight can make it wrong.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { EventsClient } from '../../src/api/client.js';
import { memoryRequestBudget, type RequestBudget } from '../../src/api/request-budget.js';
import { startEmulator, type RunningEmulator } from '../../src/emulator/server.js';
import { parseScope } from '../../src/scope.js';

const ORG = '5f0000000000000000000416';
const KEY = { publicKey: 'small-pub', privateKey: 'small-priv-416', roles: [{ orgId: ORG, roleName: 'ORG_OWNER' }] };
const SMALL = { capacity: 10, refill: 30 };
const PERIOD_SECONDS = 6;
const PER_MINUTE = { group: 300, org: 300 };
const ITEMS_PER_PAGE = 10;
const EVENTS = 250;
const PROJECT_LISTS = 12;
/** Listers beside the feed reader: with it, four requests of the bucket in flight at once. */
const LISTERS = 3;

let emulator: RunningEmulator;
const clients: EventsClient[] = [];

beforeAll(async () => {
  emulator = await startEmulator({
    port: 0,
    seed: 416,
    orgs: [ORG],
    groups: ['6a0000000000000000000416'],
    eventsPerScope: EVENTS,
    days: 1,
    keys: [KEY] as never,
    faults: { tokenBuckets: { group: SMALL, org: SMALL, periodSeconds: PERIOD_SECONDS, hints: true } },
  });
});
afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
});
afterAll(async () => {
  await emulator.close();
});

function client(budget: RequestBudget): EventsClient {
  const made = new EventsClient({
    baseUrl: emulator.atlasV2BaseUrl,
    dialect: 'atlas-v2',
    publicKey: KEY.publicKey,
    privateKey: KEY.privateKey,
    itemsPerPage: ITEMS_PER_PAGE,
    budget,
    retry: { maxAttempts: 10, baseDelayMs: 10, maxDelayMs: 100 },
    requestTimeoutMs: 10_000,
  });
  clients.push(made);
  return made;
}

const window = { minDate: new Date(Date.now() - 3 * 86_400_000), maxDate: new Date(Date.now() + 86_400_000) };

describe('small token buckets, a feed and its project list at once', () => {
  it('reads every page and every list without one token-bucket refusal', async () => {
    const org = parseScope(`org:${ORG}`);
    const shared = memoryRequestBudget(PER_MINUTE);
    const feedReader = client(shared);
    const listers = Array.from({ length: LISTERS }, () => client(shared));
    const before = emulator.stats();
    const readFeed = async () => {
      let events = 0;
      for await (const page of feedReader.pages(org, window)) events += page.events.length;
      return events;
    };
    const listProjects = async (lister: EventsClient) => {
      for (let i = 0; i < PROJECT_LISTS; i += 1) await lister.listProjects(org);
    };
    const [events] = await Promise.all([readFeed(), ...listers.map(listProjects)]);
    const after = emulator.stats();
    expect(events).toBe(emulator.dataset.validIds(`org:${ORG}`).size);
    expect({ requests: after.requests - before.requests, refused: after.tokenBucketRefusals - before.tokenBucketRefusals }).toMatchObject({
      refused: 0,
    });
  }, 120_000);
});
