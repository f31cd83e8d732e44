/**
 * Issue 43: a client of `sync --serve-sql` that asks for a result of gigabytes does not make the
 * sync hold it. Read from outside (/proc/<pid>/status), the sync's resident memory stays within
 * SERVED_MEMORY_BOUND_MB (docs/warehouse.md) of what it was before, both while a client that never
 * reads waits (its connection is ended once it has held the mirror 15 s) and while a client reads
 * as fast as it can (the result ends past the cap with SQLSTATE 54000); the sync keeps mirroring.
 */
import { readFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sleep, waitFor } from '../helpers/queue-processes.js';
import { servedSync, type ServedSync } from '../helpers/served-sync.js';

/** docs/warehouse.md's bound on what a served result adds to the sync's resident memory. */
const SERVED_MEMORY_BOUND_MB = 200;
/** About 2 GB of rows: far past the 256 MiB cap and past what the machine would hold twice. */
const HUGE_RESULT = `select repeat('x', 10000) as filler from generate_series(1, 200000)`;

function residentMb(pid: number): number {
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return Number(match![1]) / 1024;
}

/** A raw protocol client: start-up as user postgres, then one simple Query. */
function rawQuery(port: number, query: string): Socket {
  const params = Buffer.from('user\0postgres\0database\0postgres\0\0');
  const startup = Buffer.alloc(8);
  startup.writeInt32BE(8 + params.length);
  startup.writeInt32BE(196608, 4);
  const text = Buffer.from(`${query}\0`);
  const header = Buffer.alloc(5);
  header.write('Q');
  header.writeInt32BE(4 + text.length, 1);
  const socket = connect(port, '127.0.0.1');
  socket.write(Buffer.concat([startup, params, header, text]));
  return socket;
}

/** The peak resident memory of `pid` until `done` resolves, sampled every 200 ms. */
async function peakWhile(pid: number, done: Promise<unknown>): Promise<number> {
  let [peak, finished] = [residentMb(pid), false];
  void done.finally(() => (finished = true));
  while (!finished) {
    peak = Math.max(peak, residentMb(pid));
    await sleep(200);
  }
  return Math.max(peak, residentMb(pid));
}

describe('sync --serve-sql memory', () => {
  let served: ServedSync;

  beforeAll(async () => {
    served = await servedSync({ seed: 434, groups: ['6a0000000000000000000434'], eventsPerScope: 50, days: 1 });
  });

  afterAll(async () => {
    await served?.close();
  });

  it('holds a bounded amount for a client asking for gigabytes, reading or not', async () => {
    await served.start();
    const { port, pid } = served;

    // A client that never reads: its connection ends once it has held the mirror 15 s.
    const baseline = residentMb(pid);
    const silent = rawQuery(port, HUGE_RESULT);
    silent.pause();
    silent.on('error', () => undefined);
    // The client, reading nothing, would not see the end either: the sync's log says it.
    const ended = 'a SQL client left the rows it asked for unread over 15 s while the mirror waited: rolled back, connection ended';
    const silentPeak = await peakWhile(
      pid,
      waitFor('the silent client ended', () => Promise.resolve(served.stderr().includes(ended)), 120_000),
    );
    silent.destroy();

    // A client that reads all it is sent: the result ends at the cap with an error.
    const readerBaseline = residentMb(pid);
    const reader = rawQuery(port, HUGE_RESULT);
    let [received, tail] = [0, Buffer.alloc(0)];
    const answered = new Promise<void>((resolve, reject) => {
      reader.on('data', (chunk: Buffer) => {
        received += chunk.length;
        tail = Buffer.concat([tail, chunk]).subarray(-4096);
        // ReadyForQuery ends the answer (the start-up's comes first, before any row).
        if (received > 1024 * 1024 && tail.length >= 6 && tail[tail.length - 6] === 0x5a && tail.readInt32BE(tail.length - 5) === 5)
          resolve();
      });
      reader.on('error', reject);
      reader.on('close', () => reject(new Error('closed before ReadyForQuery')));
    });
    const readerPeak = await peakWhile(pid, answered);
    reader.destroy();
    expect(tail.toString('latin1')).toContain('C54000');
    expect(tail.toString('latin1')).toContain('events-mirror serves at most 256 MiB of rows per result, and this one is larger');
    expect(received).toBeGreaterThan(256 * 1024 * 1024);
    expect(received).toBeLessThan(260 * 1024 * 1024);

    console.log(
      `sync RSS: ${baseline.toFixed(0)} MB before; never-reading client peak ${silentPeak.toFixed(0)} MB; ` +
        `reading client ${readerBaseline.toFixed(0)} MB before, peak ${readerPeak.toFixed(0)} MB, ${(received / 1024 / 1024).toFixed(0)} MiB sent`,
    );
    expect(silentPeak - baseline).toBeLessThan(SERVED_MEMORY_BOUND_MB);
    expect(readerPeak - readerBaseline).toBeLessThan(SERVED_MEMORY_BOUND_MB);

    await served.morePasses(2);
    expect(served.stderr()).not.toMatch(/"level":(50|60)/);
    const stopped = await served.stop();
    expect(stopped.code, served.stderr().slice(-2000)).toBe(0);
  }, 600_000);
});
