import type { ChildProcess } from 'node:child_process';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commandJsonSchema } from '../../src/report/json-output.js';
import { createWarehouse } from '../../src/warehouse/database.js';
import { runCli, spawnCli, waitForExit } from '../helpers/cli.js';
import { expectMirrorEqualsEmulator } from '../helpers/mirror.js';
import { daysAgo, startSyncFixture, type SyncFixture } from '../helpers/sync-fixture.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('sync killed with SIGKILL mid-run, then run again', () => {
  let fixture: SyncFixture;

  beforeAll(async () => {
    fixture = await startSyncFixture(
      {
        seed: 41,
        orgs: ['5f0000000000000000000031'],
        groups: ['6a0000000000000000000031', '6a0000000000000000000032'],
        eventsPerScope: 3000,
        days: 3,
        faults: { latencyMs: 25, malformedRate: 0.01 },
      },
      { EVENTS_START_DATE: daysAgo(4).toISOString(), EVENTS_SYNC_CONCURRENCY: '3' },
    );
  });
  afterAll(async () => fixture?.close());

  it('loses nothing and doubles nothing', async () => {
    // Small pages and windows make a run long enough to be cut at many different points.
    const env = fixture.envWith({ api: { itemsPerPage: 100 }, sync: { windowSeconds: 6 * 3600 } });
    const cuts: string[] = [];
    for (let i = 0; i < 4; i++) {
      const child = spawnCli(['sync', '--once'], { ...env, LOG_LEVEL: 'info' });
      const exited = waitForExit(child);
      // Cut at a random point after the run has landed events, whatever the start-up time (the
      // first windows, before the dataset's days, land none).
      await firstWindowWithNewEvents(child);
      const delay = Math.floor(Math.random() * 600);
      await sleep(delay);
      child.kill('SIGKILL');
      const result = await exited;
      cuts.push(result.signal === 'SIGKILL' ? `killed ${delay} ms into the run` : `finished within ${delay} ms`);
    }
    expect(cuts.filter((cut) => cut.startsWith('killed')).length, cuts.join(', ')).toBeGreaterThanOrEqual(2);
    const warehouse = await createWarehouse({ url: fixture.database.url, schema: 'events_mirror', dataDir: 'unused' });
    try {
      const partial = await warehouse.db
        .selectFrom('events')
        .select(sql<number>`count(*)::int`.as('n'))
        .executeTakeFirstOrThrow();
      expect(partial.n, cuts.join(', ')).toBeGreaterThan(0);
      const final = await runCli(['sync', '--once'], env);
      expect(final.code, final.stderr).toBe(0);
      await expectMirrorEqualsEmulator(warehouse.db, fixture.emulator.dataset, fixture.emulator.dataset.scopes());

      // `status` shows every scope caught up, without failures, with the events it holds.
      const status = await runCli(['status', '--json'], env);
      expect(status.code, status.stderr).toBe(0);
      const doc = commandJsonSchema.parse(JSON.parse(status.stdout));
      for (const scope of fixture.emulator.dataset.scopes()) {
        const entry = doc.scopes.find((s) => s.scope === scope);
        expect(entry, status.stdout).toMatchObject({
          origin: 'configured',
          state: 'ok',
          consecutiveFailures: 0,
          lastError: null,
          events: fixture.emulator.dataset.validIds(scope).size,
          lastReconcile: null,
        });
        expect(entry!.watermark).not.toBeNull();
      }
    } finally {
      await warehouse.close();
    }
  });
});

function firstWindowWithNewEvents(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    child.stderr!.on('data', (chunk: Buffer) => {
      if (/"msg":"synced [^"]*\(([1-9][\d,]*) new/.test(chunk.toString())) resolve();
    });
    child.on('close', () => resolve());
  });
}
