/**
 * The one JSON document `status`, `sync --once`, `reconcile` and `checkpoint` print with `--json`
 * (docs/commands.md, "JSON output"): the command, when, the fleet summary and one entry per scope
 * (its state as `status` shows it, and what this command did to it under `run`). The zod schema
 * is the contract: tests hold every command's output to it.
 */
import { z } from 'zod';
import { isoTimestamp } from '../time.js';
import type { LastReconcile } from '../warehouse/reconcile.repository.js';
import { SCOPE_STATES, type FleetSummary, type ScopeHealth } from './scope-health.js';

const timestamp = z.string().regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{3})?Z$/);
const errorSchema = z.object({ code: z.string().min(1), message: z.string() }).strict();
const count = z.number().int().nonnegative();

const syncRunSchema = z
  .object({
    kind: z.literal('sync'),
    status: z.enum(['succeeded', 'failed', 'skipped']),
    windows: count,
    pages: count,
    inserted: count,
    changed: count,
    rejected: count,
    error: errorSchema.nullable(),
  })
  .strict();

const reconcileRunSchema = z
  .object({
    kind: z.literal('reconcile'),
    outcome: z.string().min(1),
    consistent: z.boolean(),
    from: timestamp.nullable(),
    to: timestamp.nullable(),
    windowsChecked: count,
    windowsDiffering: count,
    windowsReread: count,
    eventsRecovered: count,
    eventsMissing: count,
    eventsExtra: count,
    requests: count,
    error: errorSchema.nullable(),
  })
  .strict();

const checkpointRunSchema = z
  .object({
    kind: z.literal('checkpoint'),
    action: z.enum(['show', 'set', 'reset']),
    before: timestamp.nullable(),
    after: timestamp.nullable(),
    settings: z
      .object({
        eventTypes: z.array(z.string()),
        includeRaw: z.boolean(),
        startDate: z.string().nullable(),
        excludeEventTypes: z.array(z.string()).nullable(),
        clusterNames: z.array(z.string()).nullable(),
      })
      .strict()
      .nullable(),
  })
  .strict();

export const scopeJsonSchema = z
  .object({
    scope: z.string().regex(/^(org|group):.+$/),
    name: z.string().nullable(),
    origin: z.string().nullable(),
    discoveredBy: z.string().nullable(),
    removedAt: timestamp.nullable(),
    state: z.enum(SCOPE_STATES),
    watermark: timestamp.nullable(),
    lagSeconds: count.nullable(),
    lastPolledAt: timestamp.nullable(),
    lastLandedAt: timestamp.nullable(),
    lastAttemptAt: timestamp.nullable(),
    lastSuccessAt: timestamp.nullable(),
    polls: count,
    consecutiveFailures: count,
    lastError: errorSchema.nullable(),
    events: count.nullable(),
    lastReconcile: z
      .object({ result: z.string(), startedAt: timestamp, finishedAt: timestamp.nullable(), eventsRecovered: count })
      .strict()
      .nullable(),
    run: z.discriminatedUnion('kind', [syncRunSchema, reconcileRunSchema, checkpointRunSchema]).nullable(),
  })
  .strict();

export const commandJsonSchema = z
  .object({
    command: z.enum(['status', 'sync', 'reconcile', 'checkpoint']),
    generatedAt: timestamp,
    summary: z
      .object({
        scopes: count,
        byState: z
          .object(Object.fromEntries(SCOPE_STATES.map((s) => [s, count])) as Record<(typeof SCOPE_STATES)[number], typeof count>)
          .strict(),
        lagThresholdSeconds: count,
        failingByCode: z.array(z.object({ code: z.string().min(1), scopes: count }).strict()),
        worstLags: z.array(z.object({ scope: z.string(), lagSeconds: count }).strict()),
      })
      .strict(),
    scopes: z.array(scopeJsonSchema),
    /** `status` only: the schedulers and workers heard from in the last 24 h. */
    processes: z
      .array(
        z
          .object({
            kind: z.enum(['scheduler', 'worker']),
            host: z.string(),
            pid: count,
            state: z.enum(['running', 'stopped', 'silent']),
            startedAt: timestamp,
            lastSeenAt: timestamp,
            stoppedAt: timestamp.nullable(),
          })
          .strict(),
      )
      .optional(),
  })
  .strict();

export type CommandJson = z.infer<typeof commandJsonSchema>;
export type ScopeRunJson = NonNullable<z.infer<typeof scopeJsonSchema>['run']>;

const at = (date: Date | null | undefined): string | null => (date ? isoTimestamp(date) : null);
const seconds = (ms: number | null): number | null => (ms === null ? null : Math.round(ms / 1000));

/** The document for `command`: the summary of `summary`, and `scopes` with each one's run, if any. */
export function commandJson(
  command: CommandJson['command'],
  now: Date,
  summary: FleetSummary,
  scopes: readonly ScopeHealth[],
  runs: ReadonlyMap<string, ScopeRunJson> = new Map(),
): CommandJson {
  return {
    command,
    generatedAt: isoTimestamp(now),
    summary: {
      scopes: summary.scopes,
      byState: { ...summary.byState },
      lagThresholdSeconds: seconds(summary.lagThresholdMs)!,
      failingByCode: summary.failingByCode.map((f) => ({ ...f })),
      worstLags: summary.worstLags.map((h) => ({ scope: h.scope, lagSeconds: seconds(h.lagMs)! })),
    },
    scopes: scopes.map((h) => ({
      scope: h.scope,
      name: h.name,
      origin: h.configured ? 'configured' : (h.known?.origin ?? null),
      discoveredBy: h.known?.discoveredBy ?? null,
      removedAt: at(h.known?.removedAt),
      state: h.state,
      watermark: at(h.sync?.watermark),
      lagSeconds: seconds(h.lagMs),
      lastPolledAt: at(h.sync?.lastPolledAt),
      lastLandedAt: at(h.sync?.lastLandedAt),
      lastAttemptAt: at(h.sync?.lastAttemptAt),
      lastSuccessAt: at(h.sync?.lastSuccessAt),
      polls: h.sync?.polls ?? 0,
      consecutiveFailures: h.sync?.consecutiveFailures ?? 0,
      lastError: h.lastError ? { ...h.lastError } : null,
      events: h.events,
      lastReconcile: reconcileJson(h.lastReconcile),
      run: runs.get(h.scope) ?? null,
    })),
  };
}

function reconcileJson(last: LastReconcile | undefined): CommandJson['scopes'][number]['lastReconcile'] {
  if (!last) return null;
  return {
    result: last.result,
    startedAt: isoTimestamp(last.startedAt),
    finishedAt: at(last.finishedAt),
    eventsRecovered: last.eventsRecovered,
  };
}

/** The document as printed: indented, one trailing newline. */
export function printableJson(doc: CommandJson): string {
  return `${JSON.stringify(doc, null, 2)}\n`;
}
