/**
 * Runs the real CLI as a child process, the way a user runs it: the run's JavaScript build of it
 * (global-setup.ts, cli-build.ts), or `src/cli.ts` through tsx outside the suite (benchmarks).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';
import { REDIS_URL } from './services.js';

export const PROJECT_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const CLI = path.join(PROJECT_ROOT, 'src', 'cli.ts');
/** The environment variable holding the built CLI's entry (set by global-setup.ts). */
export const CLI_ENTRY_ENV = 'TEST_CLI_ENTRY';

/** The arguments to `node` that start the CLI, before its own. */
export function cliNodeArgs(): string[] {
  const built = process.env[CLI_ENTRY_ENV];
  return built ? [built] : ['--import', 'tsx', CLI];
}

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** The environment a CLI child gets: no inherited EVENTS_* or DATABASE_URL, only what the test sets (and the suite's Redis). */
export function cliEnv(env: Record<string, string | undefined>): NodeJS.ProcessEnv {
  const base: NodeJS.ProcessEnv = {};
  for (const key of ['PATH', 'HOME', 'TMPDIR', 'LANG']) if (process.env[key]) base[key] = process.env[key];
  return { ...base, NODE_ENV: 'test', LOG_LEVEL: 'warn', REDIS_URL, ...env };
}

/** Each test file's folder, by its path: a worker runs several files with this module loaded once. */
const childDirs = new Map<string, string>();

/**
 * Where a CLI child runs unless the test says: with the suite's build, a folder of this test file's
 * own, so that neither a `.env` nor a `./data` in the checkout, nor another file's, reaches the
 * children (the CLI reads both from its working directory); through tsx, the project root, where
 * `--import tsx` resolves.
 */
function defaultCwd(): string {
  if (!process.env[CLI_ENTRY_ENV]) return PROJECT_ROOT;
  const file = expect.getState().testPath ?? '';
  let dir = childDirs.get(file);
  if (!dir) {
    dir = mkdtempSync(path.join(tmpdir(), 'em-cli-cwd-'));
    childDirs.set(file, dir);
  }
  return dir;
}

export function spawnCli(args: readonly string[], env: Record<string, string | undefined>, cwd = defaultCwd()): ChildProcess {
  return spawn(process.execPath, [...cliNodeArgs(), ...args], { cwd, env: cliEnv(env), stdio: ['ignore', 'pipe', 'pipe'] });
}

/** Call it right after spawning: output and the exit are only seen from then on. */
export function waitForExit(child: ChildProcess, timeoutMs = 120_000): Promise<CliResult> {
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`CLI did not exit within ${timeoutMs} ms\nstdout: ${stdout}\nstderr: ${stderr}`));
    }, timeoutMs);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
}

export function runCli(args: readonly string[], env: Record<string, string | undefined>, cwd?: string): Promise<CliResult> {
  return waitForExit(spawnCli(args, env, cwd));
}

/** Writes a JSON config file for EVENTS_MIRROR_CONFIG in a fresh temporary folder. */
export function writeConfigFile(value: unknown): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'em-config-'));
  const file = path.join(dir, 'config.json');
  writeFileSync(file, JSON.stringify(value));
  return file;
}
