/**
 * One process at a time on an embedded warehouse's data directory. PGlite has no locking of its
 * own: two processes on one directory lose committed rows. The lock is a file created exclusively
 * beside the data (`<dataDir>/pglite.lock`) holding the owner's pid, command and start time; a
 * lock whose process is gone (a crash, SIGKILL) is taken over.
 */
import { closeSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { hostname } from 'node:os';
import { WarehouseError } from '../errors.js';

interface LockOwner {
  readonly pid: number;
  readonly host: string;
  readonly command: string;
  readonly since: string;
}

export interface DataDirLock {
  release(): void;
}

export function lockDataDir(lockFile: string, dataLocation: string): DataDirLock {
  const me: LockOwner = {
    pid: process.pid,
    host: hostname(),
    command: commandLine(),
    since: new Date().toISOString(),
  };
  for (let attempt = 0; attempt < 2; attempt += 1) {
    try {
      const fd = openSync(lockFile, 'wx');
      writeSync(fd, JSON.stringify(me));
      closeSync(fd);
      let released = false;
      const release = () => {
        if (released) return;
        released = true;
        if (readOwner(lockFile)?.pid === me.pid) rmSync(lockFile, { force: true });
      };
      process.once('exit', release);
      return {
        release() {
          process.off('exit', release);
          release();
        },
      };
    } catch (error) {
      if ((error as { code?: unknown }).code !== 'EEXIST') throw error;
      const owner = readOwner(lockFile);
      if (owner && isAlive(owner)) {
        throw new WarehouseError(
          'WAREHOUSE_IN_USE',
          `the embedded warehouse at ${dataLocation} is in use by ${describeOwner(owner, new Date())}: ` +
            'stop that process first, or set DATABASE_URL to a PostgreSQL warehouse, which several processes can share',
        );
      }
      // Its process is gone: the lock is stale.
      rmSync(lockFile, { force: true });
    }
  }
  throw new WarehouseError('WAREHOUSE_IN_USE', `cannot lock the embedded warehouse at ${dataLocation} (${lockFile} keeps coming back)`);
}

function readOwner(lockFile: string): LockOwner | undefined {
  try {
    const owner = JSON.parse(readFileSync(lockFile, 'utf8')) as Partial<LockOwner>;
    return typeof owner.pid === 'number' ? (owner as LockOwner) : undefined;
  } catch {
    // Half written by a process that died between creating and writing it: stale.
    return undefined;
  }
}

function isAlive(owner: LockOwner): boolean {
  // Another machine's process cannot be checked from here: assume it is alive.
  if (owner.host !== hostname()) return true;
  try {
    process.kill(owner.pid, 0);
    return true;
  } catch (error) {
    return (error as { code?: unknown }).code === 'EPERM';
  }
}

/** `events-mirror sync --once (process 21113, started 2026-11-27T03:30:12Z, 4m ago, on host h)`. */
export function describeOwner(owner: Partial<LockOwner> & { pid: number }, now: Date): string {
  const command = typeof owner.command === 'string' && owner.command.trim() !== '' ? owner.command.trim() : 'an events-mirror process';
  const since = typeof owner.since === 'string' ? new Date(owner.since) : undefined;
  const started =
    since && !Number.isNaN(since.getTime())
      ? `, started ${since.toISOString().replace(/\.\d{3}Z$/, 'Z')} (${ago(now.getTime() - since.getTime())})`
      : '';
  const host = owner.host && owner.host !== hostname() ? `, on host ${owner.host}` : '';
  return `${command} (process ${owner.pid}${started}${host})`;
}

function ago(ms: number): string {
  const seconds = Math.max(0, Math.round(ms / 1000));
  if (seconds < 120) return `${seconds}s ago`;
  if (seconds < 7200) return `${Math.round(seconds / 60)}m ago`;
  if (seconds < 172_800) return `${Math.round(seconds / 3600)}h ago`;
  return `${Math.round(seconds / 86_400)}d ago`;
}

/** What the holder was started as, for the message a second process gets: `events-mirror sync --once`. */
function commandLine(): string {
  const args = process.argv.slice(2).filter((arg) => !arg.endsWith('.ts') && !arg.endsWith('.js'));
  return ['events-mirror', ...args].join(' ').slice(0, 200);
}
