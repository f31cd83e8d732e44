/**
 * For the queue's process tests: a private redis-server that can be killed and restarted on the
 * same port, long-running CLI children whose output is kept for failure messages, free ports, and
 * polling for a condition with a generous deadline.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { Redis } from 'ioredis';
import type { Kysely } from 'kysely';
import { createSyncQueue } from '../../src/queue/scheduler.js';
import type { Database } from '../../src/warehouse/database.js';
import { spawnCli, waitForExit, type CliResult } from './cli.js';

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** Polls `check` until it returns a truthy value; fails after `deadlineMs` naming `what`. */
export async function waitFor<T>(
  what: string,
  check: () => Promise<T | undefined | false>,
  deadlineMs = 90_000,
  everyMs = 200,
): Promise<T> {
  const until = Date.now() + deadlineMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value) return value;
    } catch (error) {
      lastError = error;
    }
    if (Date.now() > until)
      throw new Error(
        `timed out waiting for ${what}${lastError ? ` (last error: ${lastError instanceof Error ? lastError.message : JSON.stringify(lastError)})` : ''}`,
      );
    await sleep(everyMs);
  }
}

export interface PrivateRedis {
  readonly port: number;
  readonly url: string;
  /** The running server's process id, for cleanup that cannot wait. */
  pid(): number | undefined;
  /** Kills the server (SIGKILL: nothing saved) and starts a fresh, empty one on the same port. */
  restart(downMs?: number): Promise<void>;
  /** INFO commandstats as command → calls. */
  commandStats(): Promise<Map<string, number>>;
  stop(): Promise<void>;
}

/** `dir`: where the server runs (it writes nothing there: no snapshots, no append-only file). */
export async function startPrivateRedis(options: { dir?: string } = {}): Promise<PrivateRedis> {
  const port = await freePort();
  const url = `redis://127.0.0.1:${port}`;
  let child: ChildProcess | undefined;
  const start = async () => {
    child = spawn(
      'redis-server',
      ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--daemonize', 'no'],
      { stdio: 'ignore', cwd: options.dir },
    );
    await waitFor(
      `redis-server on port ${port}`,
      async () => {
        const probe = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
        probe.on('error', () => undefined);
        try {
          await probe.connect();
          return (await probe.ping()) === 'PONG';
        } finally {
          probe.disconnect();
        }
      },
      10_000,
      50,
    );
  };
  const stop = async () => {
    const running = child;
    child = undefined;
    if (!running || running.exitCode !== null) return;
    const exited = new Promise((resolve) => running.once('exit', resolve));
    running.kill('SIGKILL');
    await exited;
  };
  await start();
  return {
    port,
    url,
    pid: () => (child && child.exitCode === null ? child.pid : undefined),
    async restart(downMs = 500) {
      await stop();
      await sleep(downMs);
      await start();
    },
    async commandStats() {
      const client = new Redis(url);
      try {
        const info = await client.info('commandstats');
        const stats = new Map<string, number>();
        for (const match of info.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) stats.set(match[1]!, Number(match[2]));
        return stats;
      } finally {
        client.disconnect();
      }
    },
    stop,
  };
}

/** A long-running CLI child (worker, scheduler) whose output is kept for failure messages. */
export interface CliProcess {
  readonly child: ChildProcess;
  readonly name: string;
  output(): string;
  /** Sends `signal` and waits for the exit. */
  stop(signal?: NodeJS.Signals, timeoutMs?: number): Promise<CliResult>;
  readonly exited: Promise<CliResult>;
}

export function startCli(name: string, args: readonly string[], env: Record<string, string | undefined>): CliProcess {
  const child = spawnCli(args, env);
  const exited = waitForExit(child, 10 * 60_000);
  exited.catch(() => undefined);
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output = (output + chunk.toString()).slice(-20_000)));
  child.stderr?.on('data', (chunk: Buffer) => (output = (output + chunk.toString()).slice(-20_000)));
  return {
    child,
    name,
    exited,
    output: () => `--- ${name} ---\n${output}`,
    async stop(signal = 'SIGTERM', timeoutMs = 45_000) {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      let timer: NodeJS.Timeout | undefined;
      const deadline = new Promise<never>((_, reject) => {
        timer = setTimeout(() => {
          child.kill('SIGKILL');
          reject(new Error(`${name} did not exit within ${timeoutMs} ms of ${signal}\n${output}`));
        }, timeoutMs);
      });
      try {
        return await Promise.race([exited, deadline]);
      } finally {
        clearTimeout(timer);
      }
    },
  };
}

export interface ScopeProgress {
  readonly scope: string;
  readonly watermark: Date | null;
}

export async function watermarks(db: Kysely<Database>): Promise<Map<string, Date | null>> {
  const rows = await db.selectFrom('sync_state').select(['scope', 'watermark']).execute();
  return new Map(rows.map((r) => [r.scope, r.watermark]));
}

/**
 * Poll jobs per scope with a window that succeeded and started after `since`. Counted by job id:
 * one poll job may read several windows, each its own run row.
 */
/** Each scope's count of polls that succeeded so far (`sync_state.polls`): idle polls add no sync_runs row. */
export type PollMark = ReadonlyMap<string, number>;

export async function pollMark(db: Kysely<Database>): Promise<PollMark> {
  const rows = await db.selectFrom('sync_state').select(['scope', 'polls']).execute();
  return new Map(rows.map((r) => [r.scope, Number(r.polls)]));
}

/** Polls that succeeded per scope since `mark` (a scope unknown then counts from 0). */
export async function pollRunsSince(db: Kysely<Database>, mark: PollMark): Promise<Map<string, number>> {
  const now = await pollMark(db);
  const since = new Map<string, number>();
  for (const [scope, polls] of now) if (polls > (mark.get(scope) ?? 0)) since.set(scope, polls - (mark.get(scope) ?? 0));
  return since;
}

export async function runningRuns(
  db: Kysely<Database>,
  mode: 'poll' | 'backfill',
): Promise<Array<{ scope: string; jobId: string | null }>> {
  const rows = await db
    .selectFrom('sync_runs')
    .select(['scope', 'job_id'])
    .where('mode', '=', mode)
    .where('status', '=', 'running')
    .execute();
  return rows.map((r) => ({ scope: r.scope, jobId: r.job_id }));
}

/** Removes every key of a test's sync queue under `prefix` in `redisUrl`. */
export async function obliterateSyncQueue(redisUrl: string, prefix: string): Promise<void> {
  const connection = new Redis(redisUrl, { maxRetriesPerRequest: null });
  try {
    await createSyncQueue(connection, prefix).obliterate({ force: true });
  } finally {
    connection.disconnect();
  }
}

/**
 * A promise that rejects as soon as any of `processes` exits, to race waits against: a test fails
 * at once, naming the process, rather than at a deadline.
 */
export function failWhenAnyExits(processes: readonly CliProcess[]): Promise<never> {
  const died = Promise.race(
    processes.map((p) =>
      p.exited.then((r) => {
        throw new Error(`${p.name} exited (code ${r.code}, signal ${r.signal})`);
      }),
    ),
  );
  died.catch(() => undefined);
  return died;
}
