import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnCli, waitForExit } from '../helpers/cli.js';
import { daysAgo, startSyncFixture, type SyncFixture } from '../helpers/sync-fixture.js';
import { countCell, syncSummaryRows } from '../helpers/sync-summary.js';

describe('events-mirror sync (without --once)', () => {
  let fixture: SyncFixture;

  beforeAll(async () => {
    fixture = await startSyncFixture(
      { seed: 81, groups: ['6a0000000000000000000081'], eventsPerScope: 200, days: 1, liveRatePerSecond: 5 },
      { EVENTS_START_DATE: daysAgo(2).toISOString(), EVENTS_POLL_INTERVAL_SECONDS: '1' },
    );
  });
  afterAll(async () => fixture?.close());

  it('passes over every scope every poll interval and stops cleanly on SIGTERM', async () => {
    const child = spawnCli(['sync'], fixture.envWith({}));
    const exited = waitForExit(child);
    let stdout = '';
    await new Promise<void>((resolve) => {
      child.stdout!.on('data', (chunk: Buffer) => {
        stdout += chunk.toString();
        if ((stdout.match(/scopes synced/g) ?? []).length >= 3) resolve();
      });
      child.on('close', () => resolve());
    });
    child.kill('SIGTERM');
    const result = await exited;
    expect(result.code, result.stderr).toBe(0);
    const passes = stdout.match(/2 scopes synced/g) ?? [];
    expect(passes.length, stdout).toBeGreaterThanOrEqual(3);
    // Live events keep arriving, so a later pass finds new ones: its row's `new` column is not 0.
    const third = stdout.split('2 scopes synced')[2]!;
    const inserted = syncSummaryRows(third).get('group:6a0000000000000000000081')?.new;
    expect(countCell(inserted), third).toBeGreaterThan(0);
  });
});
