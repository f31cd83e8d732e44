/**
 * `status`'s exit code for scripts and cron (issue 44, item 6): 0 when every scope it judges is ok
 * (or never synced, or removed), 1 when one is failing or lagging past the threshold, whatever it
 * shows (the summary, --json, --failing, --lagging), 2 for a usage error. The report itself is
 * printed as before. A real sync through the emulator, one scope of which does not exist.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { createMigratedTestDatabase, type TestDatabase } from '../helpers/database.js';
import { emulatorEnv, startTestEmulator, type RunningEmulator } from '../helpers/emulator.js';

const MISSING = 'group:6a00000000000000000044a6';

describe('status exit codes', { timeout: 180_000 }, () => {
  let emulator: RunningEmulator;
  let database: TestDatabase;
  let healthy: Record<string, string>;
  let withMissing: Record<string, string>;
  let good: string;

  beforeAll(async () => {
    emulator = await startTestEmulator({ eventsPerScope: 100 });
    database = await createMigratedTestDatabase();
    good = emulator.dataset.scopes()[1]!;
    healthy = { ...emulatorEnv(emulator), EVENTS_SCOPES: good, DATABASE_URL: database.url };
    withMissing = { ...healthy, EVENTS_SCOPES: `${good},${MISSING}` };
    expect((await runCli(['sync', '--once'], healthy)).code).toBe(0);
  });
  afterAll(async () => {
    await emulator?.close();
    await database?.drop();
  });

  it('exits 0 when every scope is ok, and 1 when one lags past the threshold given', async () => {
    const ok = await runCli(['status'], healthy);
    expect(ok.stdout).toMatch(/^1 scope: 1 ok, 0 failing/m);
    expect(ok.code).toBe(0);
    // Just synced: the checkpoint is the settle time (seconds) behind now, more than one second.
    const lagging = await runCli(['status', '--lagging=1s'], healthy);
    expect(lagging.stdout).toContain(good);
    expect(lagging.code).toBe(1);
  });

  it('exits 1 when a scope is failing, with the report printed as before, in every form', async () => {
    const synced = await runCli(['sync', '--once'], withMissing);
    expect(synced.code).toBe(1);
    const summary = await runCli(['status'], withMissing);
    expect(summary.stdout).toMatch(/^2 scopes: 1 ok, 1 failing/m);
    expect(summary.code).toBe(1);
    for (const args of [['--json'], ['--failing'], ['--lagging'], ['--scope', MISSING]]) {
      const run = await runCli(['status', ...args], withMissing);
      expect(run.code, args.join(' ')).toBe(1);
    }
    // One scope judged alone: the healthy one is fine.
    expect((await runCli(['status', '--scope', good], withMissing)).code).toBe(0);
    // A usage error stays 2.
    expect((await runCli(['status', '--failing', '--lagging'], withMissing)).code).toBe(2);
  });
});
