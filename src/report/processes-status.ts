/**
 * `status`'s lines about the processes that feed the warehouse from a queue: each scheduler and
 * worker heard from in the last day (their heartbeats, processes.repository.ts), whether it runs,
 * stopped, or went silent, and when it was last heard. Nothing when none was: a warehouse fed by
 * `sync` alone has no such processes.
 */
import { isoTimestamp } from '../time.js';
import { HEARTBEAT_MS, processState, type ProcessSeen, type ProcessState } from '../warehouse/processes.repository.js';
import { shorten } from './shorten.js';
import { renderTable } from './table.js';
import { formatDurationWords } from './units.js';

/** `status` lists the processes heard from within this window. */
export const PROCESSES_WINDOW_MS = 86_400_000;

export interface ProcessJson {
  readonly kind: ProcessSeen['kind'];
  readonly host: string;
  readonly pid: number;
  readonly state: ProcessState;
  readonly startedAt: string;
  readonly lastSeenAt: string;
  readonly stoppedAt: string | null;
}

export function processesJson(processes: readonly ProcessSeen[], now: Date): ProcessJson[] {
  return processes.map((p) => ({
    kind: p.kind,
    host: p.host,
    pid: p.pid,
    state: processState(p, now),
    startedAt: isoTimestamp(p.startedAt),
    lastSeenAt: isoTimestamp(p.lastSeenAt),
    stoppedAt: p.stoppedAt ? isoTimestamp(p.stoppedAt) : null,
  }));
}

/** Host names are cut to fit 80 columns with the other columns. */
const HOST_WIDTH = 28;

export function renderProcesses(processes: readonly ProcessSeen[], now: Date): string {
  if (processes.length === 0) return '';
  const ago = (date: Date) => `${formatDurationWords((now.getTime() - date.getTime()) / 1000)} ago`;
  const states = processes.map((p) => processState(p, now));
  const count = (kind: ProcessSeen['kind']) => processes.filter((p, i) => p.kind === kind && states[i] === 'running').length;
  const schedulers = count('scheduler');
  const workers = count('worker');
  const heading =
    `\nprocesses: ${schedulers} scheduler${schedulers === 1 ? '' : 's'}, ${workers} worker${workers === 1 ? '' : 's'} running` +
    ` (heartbeat ${HEARTBEAT_MS / 1000} s, last 24 h)` +
    (schedulers === 0 ? '\n  no scheduler running: nothing is polled on schedule' : '');
  const rows = processes.map((p, i) => [
    p.kind,
    shorten(p.host, HOST_WIDTH),
    p.pid,
    states[i] === 'silent' ? 'SILENT' : states[i]!,
    states[i] === 'stopped' ? `stopped ${ago(p.stoppedAt!)}` : ago(p.lastSeenAt),
  ]);
  return `${heading}\n${renderTable(['process', 'host', 'pid', 'state', 'last heard'], rows, { plainNumbers: true })}`;
}
