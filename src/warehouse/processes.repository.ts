/**
 * `processes`: the schedulers and workers that feed the warehouse, each with its heartbeat, so
 * `status` can say which were last heard and when. A process writes its row at start and every
 * heartbeat, and its stop time when it stops cleanly; rows not heard from for a week are removed.
 */
import type { Kysely } from 'kysely';
import type { Database, ProcessesTable } from './tables.js';

export type ProcessKind = ProcessesTable['kind'];

export interface ProcessIdentity {
  readonly id: string;
  readonly kind: ProcessKind;
  readonly host: string;
  readonly pid: number;
  readonly startedAt: Date;
}

export interface ProcessSeen extends ProcessIdentity {
  readonly lastSeenAt: Date;
  readonly stoppedAt: Date | null;
}

/** How often a running process writes its heartbeat. */
export const HEARTBEAT_MS = 15_000;
/** A process not heard from for this long (three heartbeats), and not stopped, is called silent. */
export const SILENT_AFTER_MS = 3 * HEARTBEAT_MS;

/** `running` (heard within three heartbeats), `stopped` (cleanly), or `silent` (died, or cut off). */
export type ProcessState = 'running' | 'stopped' | 'silent';

export function processState(process: ProcessSeen, now: Date): ProcessState {
  if (process.stoppedAt) return 'stopped';
  return now.getTime() - process.lastSeenAt.getTime() <= SILENT_AFTER_MS ? 'running' : 'silent';
}

/** Rows not heard from for this long are removed by the next heartbeat of any process. */
export const PROCESS_RETENTION_MS = 7 * 86_400_000;

export async function recordHeartbeat(db: Kysely<Database>, process: ProcessIdentity, now: Date): Promise<void> {
  await db
    .insertInto('processes')
    .values({
      id: process.id,
      kind: process.kind,
      host: process.host,
      pid: process.pid,
      started_at: process.startedAt,
      last_seen_at: now,
      stopped_at: null,
    })
    .onConflict((oc) => oc.column('id').doUpdateSet({ last_seen_at: now, stopped_at: null }))
    .execute();
  await db
    .deleteFrom('processes')
    .where('last_seen_at', '<', new Date(now.getTime() - PROCESS_RETENTION_MS))
    .execute();
}

export async function recordStopped(db: Kysely<Database>, id: string, now: Date): Promise<void> {
  await db.updateTable('processes').set({ last_seen_at: now, stopped_at: now }).where('id', '=', id).execute();
}

/** Processes heard from since `since`, schedulers first, then by host and pid. */
export async function listProcesses(db: Kysely<Database>, since: Date): Promise<ProcessSeen[]> {
  const rows = await db
    .selectFrom('processes')
    .selectAll()
    .where('last_seen_at', '>=', since)
    .orderBy('kind')
    .orderBy('host')
    .orderBy('pid')
    .orderBy('started_at')
    .execute();
  return rows.map((r) => ({
    id: r.id,
    kind: r.kind,
    host: r.host,
    pid: r.pid,
    startedAt: new Date(r.started_at),
    lastSeenAt: new Date(r.last_seen_at),
    stoppedAt: r.stopped_at ? new Date(r.stopped_at) : null,
  }));
}
