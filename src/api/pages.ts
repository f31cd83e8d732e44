/**
 * Paging through one window: pageNum 1, 2, … computed here (the `next` href is not followed),
 * stopping after a page shorter than itemsPerPage. Neither `links` nor `totalCount` ends a window:
 * the service's count can be an estimate and its links follow it, so a full page that claims to
 * be the last is read past (one more request, an empty page when it really was the last).
 */
import type { RejectedEvent, ValidEvent } from '../events/types.js';

export interface EventsPage {
  pageNum: number;
  /** Validated, in the order received (newest first). */
  events: ValidEvent[];
  /** Malformed events with reasons; never thrown. */
  rejected: RejectedEvent[];
  totalCount: number;
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
): AsyncGenerator<EventsPage, void, undefined> {
  for (let pageNum = 1; ; pageNum += 1) {
    const page = await fetchPage(pageNum);
    yield page;
    if (isLastPage(page, itemsPerPage)) return;
  }
}
