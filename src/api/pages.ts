/**
 * Paging through one window: pageNum 1, 2, … computed here (the `next` href is not followed),
 * stopping after a page shorter than itemsPerPage. Neither `links` nor `totalCount` ends a window:
 * the service's count can be an estimate and its links follow it, so a full page that claims to
 * be the last is read past (one more request, an empty page when it really was the last). A walk
 * that would never end (repeated pages, pages far past the count) is stopped (PageWalk).
 */
import { PermanentError } from '../errors.js';
import type { RejectedEvent, ValidEvent } from '../events/types.js';

export interface EventsPage {
  pageNum: number;
  /** Validated, in the order received (newest first). */
  events: ValidEvent[];
  /** Malformed events with reasons; never thrown. */
  rejected: RejectedEvent[];
  /** The service's count; undefined when not asked for (Atlas v2 pages after the first). */
  totalCount: number | undefined;
  /** A `next` link was present. */
  hasNext: boolean;
  /** HTTP requests this page took: 1 normally, one more per challenge or retry. */
  requests: number;
  /** Response body bytes of the successful request. */
  bytes: number;
}

export function isLastPage(page: EventsPage, itemsPerPage: number): boolean {
  return page.events.length + page.rejected.length < itemsPerPage;
}

export async function* windowPages(
  fetchPage: (pageNum: number) => Promise<EventsPage>,
  itemsPerPage: number,
  walk: PageWalk = new PageWalk('events', itemsPerPage),
): AsyncGenerator<EventsPage, void, undefined> {
  for (let pageNum = 1; ; pageNum += 1) {
    const page = await fetchPage(pageNum);
    walk.check(
      pageNum,
      page.events.map((event) => event.id),
      page.totalCount,
    );
    yield page;
    if (isLastPage(page, itemsPerPage)) return;
  }
}

/** Pages a walk may read past what its largest `totalCount` needs: that many times, plus this many. */
export const PAGES_PAST_COUNT = { times: 4, plus: 10 } as const;

/**
 * Ends a walk the service would never end (a server answering every pageNum with the same full
 * page, or with new items past any count): pages are read until a short one, which such a server
 * never sends. A full page whose every id an earlier page of the walk listed, or a page past
 * PAGES_PAST_COUNT of the largest `totalCount` seen (an estimate, so read past generously), stops
 * the walk with a PermanentError naming the scope and the endpoint. Pure; no I/O.
 */
export class PageWalk {
  readonly #seen = new Set<string>();
  #mostCounted = 0;

  /**
   * @param items what the pages list, for messages (`events`, `projects`)
   * @param where `GET /groups/abc/events for group:abc`, for messages
   */
  constructor(
    private readonly items: string,
    private readonly itemsPerPage: number,
    private readonly where = '',
  ) {}

  /** `totalCount` undefined: the page was not counted (Atlas v2 after a window's first page). */
  check(pageNum: number, ids: readonly string[], totalCount: number | undefined): void {
    if (totalCount !== undefined && Number.isFinite(totalCount)) this.#mostCounted = Math.max(this.#mostCounted, totalCount);
    const counted = Math.ceil(this.#mostCounted / this.itemsPerPage);
    const allowed = counted * PAGES_PAST_COUNT.times + PAGES_PAST_COUNT.plus;
    if (pageNum > allowed) {
      throw this.#stopped(
        pageNum,
        `page ${pageNum} is past what a totalCount of ${this.#mostCounted} allows (${counted} page(s) of ${this.itemsPerPage}; read up to ${allowed})`,
      );
    }
    const full = ids.length >= this.itemsPerPage;
    let fresh = false;
    for (const id of ids) {
      if (this.#seen.has(id)) continue;
      this.#seen.add(id);
      fresh = true;
    }
    if (full && !fresh && pageNum > 1) {
      throw this.#stopped(
        pageNum,
        `page ${pageNum} lists only ${this.items} that earlier pages listed (the service is repeating its pages)`,
      );
    }
  }

  #stopped(pageNum: number, why: string): PermanentError {
    const where = this.where ? `${this.where}: ` : '';
    return new PermanentError('ENDLESS_PAGING', `${where}${why}; stopped after ${pageNum} pages (the next run reads them again)`);
  }
}
