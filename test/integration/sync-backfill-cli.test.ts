import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, spawnCli, waitForExit } from '../helpers/cli.js';
import { expectMirrorEqualsEmulator } from '../helpers/mirror.js';
import { daysAgo, startSyncFixture, type SyncFixture } from '../helpers/sync-fixture.js';
import { createWarehouse } from '../../src/warehouse/database.js';

describe('events-mirror backfill, interrupted with Ctrl-C and run again', () => {
  let fixture: SyncFixture;

  beforeAll(async () => {
    fixture = await startSyncFixture({
      seed: 71,
      groups: ['6a0000000000000000000071'],
      eventsPerScope: 2000,
      days: 6,
      faults: { latencyMs: 40 },
    });
  });
  afterAll(async () => fixture?.close());

  it('stops cleanly, says how to resume, and the second run skips the finished windows', async () => {
    const scope = 'group:6a0000000000000000000071';
    const env = fixture.envWith({ api: { itemsPerPage: 100 }, sync: { windowSeconds: 6 * 3600 } });
    const args = ['backfill', '--scope', scope, '--from', daysAgo(7).toISOString(), '--to', new Date().toISOString()];

    const child = spawnCli(args, { ...env, LOG_LEVEL: 'info' });
    const exited = waitForExit(child);
    // Interrupt once a few windows are done (the progress log says so), not at a guessed time.
    await new Promise<void>((resolve) => {
      let seen = '';
      child.stderr!.on('data', (chunk: Buffer) => {
        seen += chunk.toString();
        if (/backfill group:\S+: 3\/\d+ windows/.test(seen)) resolve();
      });
    });
    child.kill('SIGINT');
    const interrupted = await exited;
    expect(interrupted.code, interrupted.stderr).toBe(1);
    expect(interrupted.stderr).toMatch(/interrupted by SIGINT: run the same command again to resume \(finished windows are skipped\)/);

    const resumed = await runCli(args, env);
    expect(resumed.code, resumed.stderr).toBe(0);
    const skipped = /(\d+) windows \((\d+) already done\)/.exec(resumed.stdout);
    expect(skipped, resumed.stdout).not.toBeNull();
    expect(Number(skipped![2])).toBeGreaterThan(0);
    expect(Number(skipped![2])).toBeLessThan(Number(skipped![1]));

    const warehouse = await createWarehouse({ url: fixture.database.url, schema: 'events_mirror', dataDir: 'unused' });
    try {
      await expectMirrorEqualsEmulator(warehouse.db, fixture.emulator.dataset, [scope]);
    } finally {
      await warehouse.close();
    }
  });
});
