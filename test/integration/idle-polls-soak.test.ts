/**
 * The soak of many scopes: once caught up, polls that land nothing add no `sync_runs` row, only
 * their counters in `sync_state` (polls, last polled); a poll that lands events, and one that
 * fails, keep their rows; housekeeping deletes old rows in bounded batches.
 */
import { sql, type Kysely } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import type { ScopeSettings } from '../../src/config.js';
import { syncScope } from '../../src/sync/sync-scope.js';
import type { Database } from '../../src/warehouse/database.js';
import { pruneRuns } from '../../src/warehouse/housekeeping.repository.js';
import { getSyncState } from '../../src/warehouse/state.repository.js';
import { daysAgo, startSyncFixture, type SyncFixture } from '../helpers/sync-fixture.js';

const ORG = '5f0000000000000000000351';
const PROJECTS = 60;
const ROUNDS = 8;
const projectId = (i: number) => `6a${(0x350000 + i).toString(16).padStart(22, '0')}`;

const fixtures: SyncFixture[] = [];
afterAll(async () => {
  for (const fixture of fixtures) await fixture.close();
});

async function runCount(db: Kysely<Database>, mode?: string): Promise<number> {
  let query = db.selectFrom('sync_runs').select(sql<number>`count(*)::int`.as('n'));
  if (mode) query = query.where('mode', '=', mode);
  return (await query.executeTakeFirstOrThrow()).n;
}

describe('idle polls', () => {
  it(
    `leave sync_runs flat over ${ROUNDS} rounds of ${PROJECTS + 1} scopes; landing and failing polls keep their rows`,
    { timeout: 300_000 },
    async () => {
      const fixture = await startSyncFixture(
        {
          seed: 351,
          orgs: [ORG],
          projects: Array.from({ length: PROJECTS }, (_, i) => ({ id: projectId(i), orgId: ORG })),
          eventsPerScope: 30,
          days: 1,
        },
        { EVENTS_START_DATE: daysAgo(2).toISOString() },
      );
      fixtures.push(fixture);
      const runtime = await fixture.runtime();
      const db = runtime.warehouse.db;
      const scopes = fixture.config().scopes;
      expect(scopes).toHaveLength(PROJECTS + 1);
      const pollAll = async (which: readonly ScopeSettings[] = scopes) => {
        for (const scope of which) await syncScope(runtime.ctx, scope, { mode: 'poll', jobId: `soak-${scope.scope.key}` });
      };

      // The first poll of each scope catches up: it lands events, so it keeps its row.
      await pollAll();
      const afterCatchUp = await runCount(db, 'poll');
      expect(afterCatchUp).toBeGreaterThanOrEqual(PROJECTS + 1);

      // Then nothing happens: many polls, no row.
      const counts: number[] = [];
      for (let round = 1; round < ROUNDS; round += 1) {
        await pollAll();
        counts.push(await runCount(db));
      }
      console.log(`sync_runs after the catch-up: ${afterCatchUp}; after each idle round of ${PROJECTS + 1} polls: ${counts.join(', ')}`);
      expect(
        counts.every((n) => n === afterCatchUp),
        `sync_runs flat: ${counts.join(', ')}`,
      ).toBe(true);
      const sample = scopes[7]!.scope.key;
      const state = (await getSyncState(db, sample))!;
      expect(state.polls).toBe(ROUNDS);
      expect(state.lastPolledAt!.getTime()).toBeGreaterThan(state.lastLandedAt!.getTime());

      // Events arrive in one scope: its next poll lands them and keeps a row; the others stay idle.
      fixture.emulator.dataset.addEvents(sample, 3, { createdMs: Date.now() - 60_000 });
      await pollAll();
      const rows = await db
        .selectFrom('sync_runs')
        .select(['scope', 'events_inserted', 'status'])
        .where('id', '>', sql<number>`(select max(id) from sync_runs) - 1`)
        .execute();
      expect(await runCount(db)).toBe(afterCatchUp + 1);
      expect(rows).toEqual([{ scope: sample, events_inserted: 3, status: 'succeeded' }]);
      const landed = (await getSyncState(db, sample))!;
      expect(landed.polls).toBe(ROUNDS + 1);
      expect(landed.lastLandedAt!.getTime()).toBe(landed.lastPolledAt!.getTime());

      // A poll that fails keeps its row, and does not count as polled.
      fixture.emulator.setFaults({ rate5xx: 1 });
      await pollAll([scopes[3]!]);
      fixture.emulator.setFaults({ rate5xx: 0 });
      expect(await runCount(db)).toBe(afterCatchUp + 2);
      const failed = (await getSyncState(db, scopes[3]!.scope.key))!;
      expect(failed.consecutiveFailures).toBe(1);
      expect(failed.polls).toBe(ROUNDS + 1);

      // Housekeeping deletes in bounded batches: every old row goes, a statement at a time.
      const total = await runCount(db);
      expect(await pruneRuns(db, new Date(Date.now() + 60_000), 7)).toBe(total);
      expect(await runCount(db)).toBe(0);
    },
  );
});
