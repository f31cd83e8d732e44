/**
 * The embedded warehouse is for one process at a time: two processes on one PGlite directory used
 * to lose committed rows. Now a second process (`status` or `backfill` beside a running `sync`)
 * fails at once with one line naming the process that holds it, touching nothing; when the holder
 * is gone — stopped, or killed without a chance to clean up — the next process opens it.
 */
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/server.js';
import { runCli } from '../helpers/cli.js';
import { startCli, waitFor, type CliProcess } from '../helpers/queue-processes.js';
import { daysAgo } from '../helpers/sync-fixture.js';
import { emulatorEnv } from '../helpers/emulator.js';

describe('one process at a time on the embedded warehouse', () => {
  let emulator: RunningEmulator;
  let env: Record<string, string>;
  let sync: CliProcess | undefined;
  const dataDir = path.join(mkdtempSync(path.join(tmpdir(), 'em-lock-')), 'data');
  const lockFile = path.join(dataDir, 'pglite.lock');

  beforeAll(async () => {
    emulator = await startEmulator({ port: 0, seed: 191, orgs: ['5f0000000000000000000191'], groups: [], eventsPerScope: 300, days: 1 });
    env = {
      ...emulatorEnv(emulator),
      EVENTS_START_DATE: daysAgo(2).toISOString(),
      EVENTS_MIRROR_DATA_DIR: dataDir,
      EVENTS_POLL_INTERVAL_SECONDS: '3600',
      LOG_LEVEL: 'info',
    };
  });
  afterAll(async () => {
    await sync?.stop('SIGKILL').catch(() => undefined);
    await emulator?.close();
  });

  it('refuses a second process while sync runs, naming it, and opens once the holder is gone', async () => {
    sync = startCli('sync', ['sync'], env);
    await waitFor('the first pass to finish', () => Promise.resolve(sync!.output().match(/scopes? synced/) !== null), 120_000);
    expect(existsSync(lockFile)).toBe(true);

    for (const args of [['status'], ['backfill', '--scope', env.EVENTS_SCOPES!, '--from', daysAgo(1).toISOString()]]) {
      const second = await runCli(args, env);
      expect(second.code, `${args[0]}: ${second.stdout}${second.stderr}`).toBe(1);
      const lines = second.stderr.trim().split('\n');
      expect(lines, second.stderr).toHaveLength(1);
      expect(lines[0]).toMatch(
        new RegExp(
          `embedded warehouse at .*pglite is in use by events-mirror sync \\(process ${sync.child.pid}, started \\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}Z \\(\\d+s ago\\)\\): stop that process first, or set DATABASE_URL`,
        ),
      );
    }

    // A holder killed without cleaning up leaves its lock behind: the next process takes it over.
    await sync.stop('SIGKILL');
    sync = undefined;
    expect(existsSync(lockFile)).toBe(true);
    const status = await runCli(['status'], env);
    expect(status.code, status.stderr).toBe(0);
    expect(status.stdout).toContain(env.EVENTS_SCOPES);
    // And a process that ends normally removes its lock.
    expect(existsSync(lockFile)).toBe(false);
  }, 240_000);
});
