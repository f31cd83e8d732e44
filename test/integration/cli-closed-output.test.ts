/**
 * A reader that goes away (issue 44, item 2): `status | head -1` and `sql … | head -2` end quietly
 * with exit 0, as Unix tools do, instead of `Error: write EPIPE` and a stack with exit 1. The CLI's
 * stdout is a real pipe whose reading end is closed before the CLI writes (every write then fails
 * with EPIPE), and, as a person types it, a shell pipeline into `head` with `pipefail`.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliEnv, cliNodeArgs, runCli, spawnCli, waitForExit } from '../helpers/cli.js';
import { createMigratedTestDatabase, type TestDatabase } from '../helpers/database.js';
import { emulatorEnv, startTestEmulator, type RunningEmulator } from '../helpers/emulator.js';

/** The CLI with its stdout pipe's reading end closed at once: stderr and the exit are all there is to see. */
async function runWithStdoutClosed(args: readonly string[], env: Record<string, string>) {
  const child = spawnCli(args, env);
  const result = waitForExit(child);
  child.stdout!.destroy();
  return result;
}

describe('commands whose stdout reader goes away', { timeout: 180_000 }, () => {
  let emulator: RunningEmulator;
  let database: TestDatabase;
  let env: Record<string, string>;

  beforeAll(async () => {
    emulator = await startTestEmulator({ eventsPerScope: 400 });
    database = await createMigratedTestDatabase();
    env = { ...emulatorEnv(emulator), DATABASE_URL: database.url };
    const synced = await runCli(['sync', '--once'], env);
    expect(synced.code, synced.stderr).toBe(0);
  });
  afterAll(async () => {
    await emulator?.close();
    await database?.drop();
  });

  it.each([['status'], ['sql', 'select id from events'], ['sql', '--csv', 'select id from events'], ['config']])(
    '%s exits 0 without a word when its stdout is closed',
    async (...args) => {
      const result = await runWithStdoutClosed(args, env);
      expect(result.stderr).toBe('');
      expect(result.code).toBe(0);
    },
  );

  it.each([
    ['status', 1],
    ['sql "select id from events"', 2],
  ])('%s | head -%i, with pipefail, exits 0 and shows the first lines', async (args, lines) => {
    const cli = [process.execPath, ...cliNodeArgs()].join(' ');
    const { stdout, stderr } = await promisify(execFile)('bash', ['-c', `set -o pipefail; ${cli} ${args} | head -${lines}`], {
      env: cliEnv(env),
    });
    expect(stderr).toBe('');
    expect(stdout.trimEnd().split('\n')).toHaveLength(lines);
  });
});
