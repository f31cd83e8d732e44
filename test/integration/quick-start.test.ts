import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../helpers/cli.js';

/** The README's quick start, run as written from a clean checkout of the committed tree. */
describe('README quick start', () => {
  const workdir = mkdtempSync(path.join(tmpdir(), 'em-quick-start-'));
  // The clone holds a whole node_modules: removing it took over a minute in a loaded CI run, and a
  // synchronous rmSync held the worker for all of it. fs.promises.rm works off the main thread.
  afterAll(() => rm(workdir, { recursive: true, force: true }), 300_000);

  it('`npm ci && npm run demo` works on a fresh clone and prints the report', () => {
    const readme = readFileSync(path.join(PROJECT_ROOT, 'README.md'), 'utf8');
    const block = /## Quick start\s+```sh\n([\s\S]*?)```/.exec(readme)?.[1];
    expect(block, 'README has a Quick start shell block').toBeDefined();
    const commands = block!
      .split('\n')
      .map((line) => line.replace(/\s+#.*$/, '').trim())
      .filter(Boolean);
    expect(commands).toHaveLength(2);
    expect(commands[0]).toBe('npm ci && npm run demo');

    const checkout = path.join(workdir, 'events-mirror');
    execFileSync('git', ['clone', '--quiet', PROJECT_ROOT, checkout]);
    const env: NodeJS.ProcessEnv = { ...process.env, CI: 'true', NODE_ENV: '', npm_config_prefer_offline: 'true' };
    delete env.DATABASE_URL;
    // A fresh machine's pace, with the rest of the suite running beside it: up to 260 s seen on a
    // 2-core machine, against 70 s on a quiet faster one.
    const run = spawnSync('bash', ['-c', commands[0]!], { cwd: checkout, env, encoding: 'utf8', timeout: 480_000 });
    expect(run.status, run.stderr.slice(-2000)).toBe(0);
    // A first install warns about nothing: no engine a dependency refuses, no install script left to review.
    expect(run.stderr.split('\n').filter((line) => line.startsWith('npm warn'))).toEqual([]);
    expect(run.stdout).toMatch(/[\d,]+ events mirrored from 4 scopes/);
    for (const heading of [
      'Events per type',
      'Events per day',
      'Top actors',
      'Recent configuration changes',
      'Sync lag',
      'Point it at a real account',
    ]) {
      expect(run.stdout).toContain(heading);
    }
    // The README's commands are `npx events-mirror …`: npm ci built the bin through `prepare`.
    const help = spawnSync('npx', ['--no-install', 'events-mirror', '--help'], { cwd: checkout, env, encoding: 'utf8', timeout: 60_000 });
    expect(help.status, `${help.stderr}\n${help.stdout}`).toBe(0);
    expect(help.stdout).toMatch(/Usage: events-mirror/);
  }, 600_000);
});
