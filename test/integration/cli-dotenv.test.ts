/**
 * `.env` in the working directory (issue 37): the CLI reads it when present, the real environment
 * wins over it, and a directory without one reads nothing. Shown with `scheduler --once` against
 * the real Redis: its line names the scopes and the interval it used.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { obliterateSyncQueue } from '../helpers/queue-processes.js';
import { REDIS_URL } from '../helpers/services.js';

describe('.env in the working directory', () => {
  const prefix = `em-test-${randomUUID()}`;
  const dirs: string[] = [];
  const tempDir = () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'em-dotenv-'));
    dirs.push(dir);
    return dir;
  };

  afterAll(async () => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
    await obliterateSyncQueue(REDIS_URL, prefix);
  });

  it('is read when present, under the real environment', async () => {
    const dir = tempDir();
    writeFileSync(
      path.join(dir, '.env'),
      [
        '# the scheduler of this directory',
        'EVENTS_SCOPES=org:5f0000000000000000000372,group:6a0000000000000000000372',
        `export REDIS_PREFIX="${prefix}"`,
        'EVENTS_POLL_INTERVAL_SECONDS=30 # overridden by the real environment below',
        "EVENTS_RECONCILE_INTERVAL_SECONDS='0'",
        '',
      ].join('\n'),
    );
    const result = await runCli(['scheduler', '--once'], { EVENTS_POLL_INTERVAL_SECONDS: '45' }, dir);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(
      'job schedulers for 2 scopes every 45 s (scheduled reconcile off): 2 added, 0 updated, 0 removed, 0 unchanged\n',
    );

    // The same again: the schedulers are in Redis under the .env's prefix.
    const again = await runCli(['scheduler', '--once'], { EVENTS_POLL_INTERVAL_SECONDS: '45' }, dir);
    expect(again.stdout).toContain(': 0 added, 0 updated, 0 removed, 2 unchanged');

    // A bad value in the file names the variable, like one in the environment (exit 2).
    writeFileSync(path.join(dir, '.env'), 'EVENTS_SCOPES=group:6a0000000000000000000372\nEVENTS_LOOKBACK_SECONDS=soon\n');
    const bad = await runCli(['scheduler', '--once'], { REDIS_PREFIX: prefix }, dir);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('EVENTS_LOOKBACK_SECONDS="soon": expected a whole number such as 900');
    const overridden = await runCli(['scheduler', '--once'], { REDIS_PREFIX: prefix, EVENTS_LOOKBACK_SECONDS: '900' }, dir);
    expect(overridden.code).toBe(0);
  });

  it('is not looked for anywhere else: a directory without one configures nothing', async () => {
    const result = await runCli(['scheduler', '--once'], { REDIS_PREFIX: prefix }, tempDir());
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('no scopes configured');
  });
});
