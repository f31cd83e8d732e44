/**
 * The one job handler: read one scope over one window, newest first, and land every page.
 *
 * Each page is upserted in its own transaction with its rejected events; on the window's last page
 * the checkpoint moves in that same transaction (DESIGN rule 3), so a crash at any point re-reads
 * and never skips. A window whose first page reports more events than the allowed depth is split
 * by time (rule 5; into as many parts as its totalCount needs) and its parts read oldest first, so
 * the checkpoint only moves forward.
 */
import type { EventsPage } from '../api/client.js';
import type { ApiClients } from '../api/clients.js';
import { isLastPage } from '../api/pages.js';
import type { ScopeSettings } from '../config.js';
import { errorMessage } from '../errors.js';
import type { Logger } from '../logger.js';
import type { Warehouse } from '../warehouse/database.js';
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
import { formatWindow, isTooDeep, splitForDepth, type TimeWindow } from './planner.js';
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

/** Reads one window (splitting it when too deep) and records a `sync_runs` row whatever happens. */
export async function runWindow(ctx: SyncContext, scope: ScopeSettings, window: TimeWindow, options: WindowOptions): Promise<SyncTotals> {
  const db = ctx.warehouse.db;
  const started = performance.now();
  const runId = await startRun(db, {
    scope: scope.scope.key,
    mode: options.mode,
    windowStart: window.minDate,
    windowEnd: window.maxDate,
    ...(options.jobId ? { jobId: options.jobId } : {}),
  });
  try {
    const totals = await readWindow(ctx, scope, window, options);
    const durationMs = Math.round(performance.now() - started);
    await finishRun(db, runId, { ...totals, status: 'succeeded', durationMs });
    ctx.logger.info(
      { scope: scope.scope.key, window: formatWindow(window), ...totals, durationMs },
      formatCompletion(scope.scope.key, window, totals, durationMs),
    );
    return totals;
  } catch (error) {
    const durationMs = Math.round(performance.now() - started);
    await finishRun(db, runId, { ...emptyTotals(), status: 'failed', error: errorMessage(error), durationMs }).catch(
      (recordError: unknown) => ctx.logger.error({ err: recordError, scope: scope.scope.key }, 'could not record the failed run'),
    );
    throw error;
  }
}

async function readWindow(ctx: SyncContext, scope: ScopeSettings, window: TimeWindow, options: WindowOptions): Promise<SyncTotals> {
  const totals = emptyTotals();
  const log = ctx.logger.child({ scope: scope.scope.key, window: formatWindow(window) });
  let first = true;
  let checkpointed = false;
  const query = { minDate: window.minDate, maxDate: window.maxDate, eventTypes: scope.eventTypes, includeRaw: scope.includeRaw };
  const pages = ctx.clients.for(scope.credential).pages(scope.scope, query, ctx.signal)[Symbol.asyncIterator]();
  const prepareAhead = (fetched: Promise<IteratorResult<EventsPage, void>>, landing: EventsPage | undefined) =>
    ctx.warehouse.kind === 'postgres' ? preparedAhead(ctx.warehouse, scope.scope.key, fetched, landing) : NOTHING_PREPARED;
  let next = fetchAhead(pages);
  let prepared = prepareAhead(next, undefined);
  for (let result = await next; !result.done; result = await next) {
    const page = result.value;
    const ready = await prepared;
    const tooDeep = first && isTooDeep(page.totalCount, ctx.settings.itemsPerPage, ctx.settings.maxPagesPerWindow);
    const parts = tooDeep ? splitForDepth(window, page.totalCount, ctx.settings.itemsPerPage, ctx.settings.maxPagesPerWindow) : undefined;
    if (tooDeep && !parts) {
      log.warn({ totalCount: page.totalCount }, 'a one-second window holds more events than the page depth allows: paging it in full');
    }
    first = false;
    const isLast = !parts && isLastPage(page, ctx.settings.itemsPerPage);
    // The next page is fetched while this one lands, so HTTP and parsing overlap the database's
    // work; pages still land one at a time and in order.
    next = isLast || parts ? NO_MORE_PAGES : fetchAhead(pages);
    prepared = prepareAhead(next, page);
    // The first page of a window about to be split still lands: its events are valid, only the
    // checkpoint waits for the parts.
    await landPage(ctx, scope, window, page, totals, isLast && options.advanceCheckpoint ? window.maxDate : undefined, ready);
    checkpointed ||= isLast;
    if (parts) {
      log.debug({ totalCount: page.totalCount, parts: parts.length }, 'window too deep to page: splitting it');
      await pages.return?.();
      for (const part of parts) addTotals(totals, await readWindow(ctx, scope, part, options));
      return totals;
    }
  }
  if (!checkpointed && options.advanceCheckpoint) await advanceWatermark(ctx.warehouse.db, scope.scope.key, window.maxDate);
  totals.windows += 1;
  return totals;
}

const NO_MORE_PAGES: Promise<IteratorResult<EventsPage, void>> = Promise.resolve({ done: true, value: undefined });

/**
 * Asks for the next page now. A failure is still thrown where the result is awaited; marking it
 * handled here keeps it from counting as unhandled while a page lands, or when the page fetched
 * ahead is dropped because landing failed.
 */
function fetchAhead(pages: AsyncIterator<EventsPage, void>): Promise<IteratorResult<EventsPage, void>> {
  const next = pages.next();
  next.catch(() => undefined);
  return next;
}

const NOTHING_PREPARED: Promise<PreparedPage | undefined> = Promise.resolve(undefined);

/**
 * As soon as the next page arrives, and while the current one lands, looks up on a connection of
 * its own which of its events the warehouse holds and encodes the new ones: the page's transaction
 * then only writes. Undefined when the lookup failed (the transaction looks them up itself).
 */
function preparedAhead(
  warehouse: Warehouse,
  scopeKey: string,
  fetched: Promise<IteratorResult<EventsPage, void>>,
  landing: EventsPage | undefined,
): Promise<PreparedPage | undefined> {
  return fetched
    .then(async (result) => {
      if (result.done) return undefined;
      const held = await lookupHeldScopes(warehouse.db, result.value.events);
      // The lookup cannot see the rows of the page landing meanwhile: they are this scope's by the
      // time this page lands (a held event takes the statement path, which is always right).
      for (const event of landing?.events ?? []) if (!held.has(event.id)) held.set(event.id, scopeKey);
      return preparePage(scopeKey, result.value.events, held, new Date());
    })
    .catch(() => undefined);
}

async function landPage(
  ctx: SyncContext,
  scope: ScopeSettings,
  window: TimeWindow,
  page: EventsPage,
  totals: SyncTotals,
  checkpoint: Date | undefined,
  prepared: PreparedPage | undefined,
): Promise<void> {
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
