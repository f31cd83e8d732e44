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
          `the embedded warehouse at ${dataLocation} is in use by process ${owner.pid} (${owner.command}, since ${owner.since}): ` +
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

function commandLine(): string {
  const args = process.argv.slice(2).filter((arg) => !arg.endsWith('.ts') && !arg.endsWith('.js'));
  return ['events-mirror', ...args].join(' ').slice(0, 200);
}
