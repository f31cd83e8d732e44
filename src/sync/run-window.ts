/**
 * The one job handler: read one scope over one window, newest first, and land every page.
 *
 * Each page is upserted in its own transaction with its rejected events; on the window's last page
 * the checkpoint moves in that same transaction (DESIGN rule 3), so a crash at any point re-reads
 * and never skips. Two pages of a window write at once (pages-in-flight.ts says when one waits). A
 * window whose first page reports more events than the allowed depth is split by time (rule 5; into
 * as many parts as its totalCount needs) and its parts read oldest first, so the checkpoint only
 * moves forward.
 */
import { serverFiltersOf } from './checkpoint-settings.js';
import { ApiTransientError } from '../api/api-error.js';
import type { EventsPage } from '../api/client.js';
import type { ApiClients } from '../api/clients.js';
import { isLastPage } from '../api/pages.js';
import type { ScopeSettings } from '../config.js';
import { errorMessage } from '../errors.js';
import type { Logger } from '../logger.js';
import type { Warehouse } from '../warehouse/database.js';
import { storedEventId } from '../warehouse/event-row.js';
import { recordSchema } from '../warehouse/event-schema.repository.js';
import {
  isRowRefusal,
  isUniqueViolation,
  lookupHeldScopes,
  preparePage,
  upsertEvents,
  type PreparedPage,
  upsertEventsInOneStatement,
  upsertEventsOneByOne,
} from '../warehouse/events.repository.js';
import { recordRejected } from '../warehouse/rejected.repository.js';
import { finishRun, startRun, type RunMode } from '../warehouse/runs.repository.js';
import { advanceWatermark } from '../warehouse/state.repository.js';
import type { ScopeLock } from './lock.js';
import { formatWindow, isTooDeep, splitForDepth, splitWindowInto, type TimeWindow } from './planner.js';
import { PagesInFlight } from './pages-in-flight.js';
import { readAhead } from './read-ahead.js';
import { logSchemaChanges, seenSchemaOf } from './schema-watch.js';
import { addTotals, emptyTotals, formatCompletion, type SyncTotals } from './totals.js';

export interface SyncSettings {
  readonly itemsPerPage: number;
  readonly maxPagesPerWindow: number;
  readonly lookbackSeconds: number;
  readonly settleSeconds: number;
  readonly windowSeconds: number;
  readonly initialDays: number;
}

export interface SyncContext {
  /** The API client of each credential. */
  readonly clients: ApiClients;
  readonly warehouse: Warehouse;
  readonly lock: ScopeLock;
  readonly logger: Logger;
  readonly settings: SyncSettings;
  readonly now: () => Date;
  readonly signal?: AbortSignal;
  /** Called after every landed page; backfill progress and metrics hook in here. */
  readonly onPage?: (scope: ScopeSettings, page: EventsPage, totals: SyncTotals) => void;
}

export interface WindowOptions {
  readonly mode: RunMode;
  /** Sync and poll runs move the scope's checkpoint; backfills never touch it. */
  readonly advanceCheckpoint: boolean;
  readonly jobId?: string;
}

/**
 * Reads one window (splitting it when too deep) and records a `sync_runs` row: at its start and end
 * for every mode but polls. A poll's row is written when it ends, and only when it landed an event
 * or failed: an idle poll (the steady state of a fleet) leaves only its counters in `sync_state`
 * (sync-scope.ts), so the run history grows with what happens, not with the clock.
 */
export async function runWindow(ctx: SyncContext, scope: ScopeSettings, window: TimeWindow, options: WindowOptions): Promise<SyncTotals> {
  const db = ctx.warehouse.db;
  const started = performance.now();
  const startedAt = new Date();
  const runStart = {
    scope: scope.scope.key,
    mode: options.mode,
    windowStart: window.minDate,
    windowEnd: window.maxDate,
    startedAt,
    ...(options.jobId ? { jobId: options.jobId } : {}),
  };
  const deferred = options.mode === 'poll';
  const early = deferred ? undefined : await startRun(db, runStart);
  const runId = async () => early ?? (await startRun(db, runStart));
  try {
    const totals = await readWindow(ctx, scope, window, options);
    const durationMs = Math.round(performance.now() - started);
    if (!deferred || landedAny(totals)) await finishRun(db, await runId(), { ...totals, status: 'succeeded', durationMs });
    // An idle poll is the steady state of a fleet: a line each at info would be thousands a minute.
    ctx.logger[deferred && !landedAny(totals) ? 'debug' : 'info'](
      { scope: scope.scope.key, window: formatWindow(window), ...totals, durationMs },
      formatCompletion(scope.scope.key, window, totals, durationMs),
    );
    return totals;
  } catch (error) {
    const durationMs = Math.round(performance.now() - started);
    await runId()
      .then((id) => finishRun(db, id, { ...emptyTotals(), status: 'failed', error: errorMessage(error), durationMs }))
      .catch((recordError: unknown) => ctx.logger.error({ err: recordError, scope: scope.scope.key }, 'could not record the failed run'));
    throw error;
  }
}

/** Whether a run landed anything: a new or changed event, or one set aside. */
export function landedAny(totals: SyncTotals): boolean {
  return totals.inserted + totals.changed + totals.rejected > 0;
}

async function readWindow(ctx: SyncContext, scope: ScopeSettings, window: TimeWindow, options: WindowOptions): Promise<SyncTotals> {
  const totals = emptyTotals();
  const log = ctx.logger.child({ scope: scope.scope.key, window: formatWindow(window) });
  const { itemsPerPage, maxPagesPerWindow } = ctx.settings;
  const query = {
    minDate: window.minDate,
    maxDate: window.maxDate,
    eventTypes: scope.eventTypes,
    includeRaw: scope.includeRaw,
    ...serverFiltersOf(scope),
  };
  const pages = ctx.clients.for(scope.credential).pages(scope.scope, query, ctx.signal)[Symbol.asyncIterator]();
  // Without a count (Atlas v2 when counting timed out) the window is paged as it comes.
  const tooDeep = (page: EventsPage) => page.totalCount !== undefined && isTooDeep(page.totalCount, itemsPerPage, maxPagesPerWindow);
  const partsOf = (page: EventsPage) =>
    page.totalCount !== undefined && tooDeep(page) ? splitForDepth(window, page.totalCount, itemsPerPage, maxPagesPerWindow) : undefined;
  // The next pages are fetched and prepared while pages land, so HTTP, parsing and the id lookups
  // overlap the database's writes.
  const ahead = readAhead(pages, {
    depth: PAGES_AHEAD,
    continuesAfter: (page, index) => !isLastPage(page, itemsPerPage) && !(index === 0 && partsOf(page)),
    prepare: (page, unlanded) =>
      ctx.warehouse.kind === 'postgres' ? prepareForCopy(ctx.warehouse, scope.scope.key, page, unlanded) : NOTHING_PREPARED,
  });
  let checkpointed = false;
  const inFlight = new PagesInFlight(PAGES_IN_FLIGHT);
  try {
    for (let ready = await ahead.next(); ready; ready = await ahead.next()) {
      const { page, prepared, index } = ready;
      const parts = index === 0 ? partsOf(page) : undefined;
      if (index === 0 && !parts && tooDeep(page)) {
        log.warn({ totalCount: page.totalCount }, 'a one-second window holds more events than the page depth allows: paging it in full');
      }
      const isLast = !parts && isLastPage(page, itemsPerPage);
      const checkpoint = isLast && options.advanceCheckpoint ? window.maxDate : undefined;
      // Stored ids: two ids the warehouse stores as one are one row to wait for.
      const ids = page.events.map(storedEventId);
      await inFlight.room(ids, checkpoint !== undefined);
      // The first page of a window about to be split still lands: its events are valid, only the
      // checkpoint waits for the parts.
      const landing = landPage(ctx, { scope, window, page, totals, checkpoint, prepared });
      inFlight.add(
        landing.then(() => ahead.landed(index)),
        ids,
      );
      checkpointed ||= isLast;
      if (parts) {
        await inFlight.settle();
        log.debug({ totalCount: page.totalCount, parts: parts.length }, 'window too deep to page: splitting it');
        for (const part of parts) addTotals(totals, await readWindow(ctx, scope, part, options));
        return totals;
      }
    }
    await inFlight.settle();
  } catch (error) {
    // No transaction of this window outlives it (the scope's lock is released after it).
    await inFlight.settle().catch(() => undefined);
    const halves = isPagingTimeout(error) ? splitWindowInto(window, 2) : undefined;
    if (!halves) throw error;
    // A page the service cannot page to even without the count: its window is read in two
    // halves instead (oldest first, so the checkpoint only moves forward), never skipped.
    ahead.stop();
    log.warn({ parts: halves.length }, 'the service timed out paging this window even without the count: splitting it');
    for (const half of halves) addTotals(totals, await readWindow(ctx, scope, half, options));
    return totals;
  } finally {
    ahead.stop();
  }
  if (!checkpointed && options.advanceCheckpoint) await advanceWatermark(ctx.warehouse.db, scope.scope.key, window.maxDate);
  totals.windows += 1;
  return totals;
}

/** The service timed out reading a deep page (with the count, then without it). */
function isPagingTimeout(error: unknown): boolean {
  return error instanceof ApiTransientError && error.errorCode === 'TIMEOUT_WHILE_PAGING';
}

/** Pages fetched and prepared beyond the one handed out (measured: docs/benchmarks.md, the write path). */
const PAGES_AHEAD = 2;
/** Page transactions of one window at once (two: PostgreSQL then writes on both cores of a small machine). */
const PAGES_IN_FLIGHT = 2;

const NOTHING_PREPARED: Promise<PreparedPage | undefined> = Promise.resolve(undefined);

/**
 * Looks up on a connection of its own which of the page's events the warehouse holds, and encodes
 * the new ones, so that the page's transaction only writes. Undefined when the lookup failed (the
 * transaction looks them up itself).
 */
async function prepareForCopy(
  warehouse: Warehouse,
  scopeKey: string,
  page: EventsPage,
  unlanded: readonly EventsPage[],
): Promise<PreparedPage | undefined> {
  const held = await lookupHeldScopes(warehouse.db, page.events);
  // The lookup cannot see the rows of earlier pages not committed yet: they are this scope's by the
  // time this page lands (a held event takes the statement path, which is always right).
  for (const earlier of unlanded) {
    for (const event of earlier.events) {
      const id = storedEventId(event);
      if (!held.has(id)) held.set(id, scopeKey);
    }
  }
  return preparePage(scopeKey, page.events, held, new Date());
}

/** A page to land, and where its counts go. */
interface PageLanding {
  readonly scope: ScopeSettings;
  readonly window: TimeWindow;
  readonly page: EventsPage;
  readonly totals: SyncTotals;
  /** Moved in the page's transaction (the window's last page, in sync and poll runs). */
  readonly checkpoint: Date | undefined;
  readonly prepared: PreparedPage | undefined;
}

async function landPage(ctx: SyncContext, toLand: PageLanding): Promise<void> {
  const { scope, window, page, totals, checkpoint, prepared } = toLand;
  const key = scope.scope.key;
  // The page lands at once; only when the warehouse refuses a value does it land again event by
  // event, the refused ones set aside with the reason (one event never stops a scope).
  const seen = seenSchemaOf(ctx.warehouse);
  const write = (how: 'page' | 'oneStatement' | 'oneByOne') =>
    ctx.warehouse.transaction(async (trx) => {
      const written =
        how === 'oneByOne'
          ? await upsertEventsOneByOne(trx, key, page.events)
          : {
              counts: await (how === 'page'
                ? upsertEvents(trx, key, page.events, new Date(), prepared)
                : upsertEventsInOneStatement(trx, key, page.events)),
              refused: [],
            };
      const refused = new Set(written.refused.map((r) => r.payload));
      const sightings = seen.unseen(refused.size > 0 ? page.events.filter((e) => !refused.has(e.payload)) : page.events);
      const schema = await recordSchema(trx, key, sightings, ctx.now());
      const rejected = [...page.rejected, ...written.refused];
      if (rejected.length > 0) await recordRejected(trx, key, rejected, new Date(), window);
      if (checkpoint) await advanceWatermark(trx, key, checkpoint);
      return { counts: written.counts, rejected, sightings, schema };
    });
  let written: Awaited<ReturnType<typeof write>>;
  try {
    written = await write('page');
  } catch (error) {
    if (!isRowRefusal(error)) throw error;
    // Another feed's page inserted one of these events while this one was being COPied in: the
    // statement path takes such rows as they are. Any other refusal is a value: event by event.
    written = isUniqueViolation(error)
      ? await write('oneStatement').catch((again: unknown) => {
          if (!isRowRefusal(again)) throw again;
          return write('oneByOne');
        })
      : await write('oneByOne');
  }
  const { counts, rejected, schema } = written;
  seen.remember(written.sightings);
  logSchemaChanges(ctx.logger, key, schema);
  totals.pages += 1;
  totals.requests += page.requests;
  totals.bytes += page.bytes;
  totals.eventsSeen += page.events.length + page.rejected.length;
  totals.inserted += counts.inserted;
  totals.changed += counts.changed;
  totals.rejected += rejected.length;
  totals.newEventTypes += schema.eventTypes.length;
  totals.newFields += schema.fields.length;
  if (rejected.length > 0) {
    const reasons = [...new Set(rejected.map((r) => r.reason))];
    ctx.logger.warn(
      { scope: key, pageNum: page.pageNum, rejected: rejected.length, reasons },
      `${key}: ${rejected.length} ${rejected.length === 1 ? 'event' : 'events'} set aside in rejected_events (${reasons.join('; ')}); the rest of the page landed`,
    );
  }
  ctx.onPage?.(scope, page, totals);
}
