/**
 * A window's pages read ahead of the page handed out. Each page is asked for as soon as the one
 * before it arrives (never speculatively: a request past the last page would spend the API's
 * budget), at most `depth` pages ahead of the one handed out, and prepared for its transaction as
 * soon as it arrives. Pages are handed out one at a time and in order.
 */
import type { EventsPage } from '../api/client.js';

export interface ReadyPage<P> {
  readonly page: EventsPage;
  /** The page's place in the window, from 0. */
  readonly index: number;
  /** Undefined when preparing failed: the page's transaction then does it itself. */
  readonly prepared: P | undefined;
}

export interface ReadAheadOptions<P> {
  /** Pages asked for beyond the one handed out (at least 1). */
  readonly depth: number;
  /** Whether to ask for the page after this one (`index` counts from 0). */
  readonly continuesAfter: (page: EventsPage, index: number) => boolean;
  /** `unlanded`: the earlier pages not landed when this one arrived; their rows may not be visible yet. */
  readonly prepare: (page: EventsPage, unlanded: readonly EventsPage[]) => Promise<P | undefined>;
}

export interface ReadAhead<P> {
  /** The next page with its preparation; undefined after the last. Throws the page's fetch error. */
  next(): Promise<ReadyPage<P> | undefined>;
  /** The page at `index` has landed (committed), in whatever order pages land. */
  landed(index: number): void;
  /** Asks for no more pages; those in flight are dropped, their failures ignored. */
  stop(): void;
}

export function readAhead<P>(pages: AsyncIterator<EventsPage, void>, options: ReadAheadOptions<P>): ReadAhead<P> {
  const slots: Array<Promise<ReadyPage<P> | undefined>> = [];
  const arrived = new Map<number, EventsPage>();
  let taken = 0;
  let stopped = false;
  let waitingForRoom = false;

  // Room is counted from the pages handed out, not from those landed: the consumer asks for the
  // next page while the one before it is still committing.
  const askWhenRoom = (): void => {
    waitingForRoom = !stopped && slots.length - taken >= options.depth;
    if (!stopped && !waitingForRoom) ask();
  };
  const arrival = async (index: number): Promise<ReadyPage<P> | undefined> => {
    const result = await pages.next();
    if (result.done) return undefined;
    const page = result.value;
    // Pages arrive in order: those still here arrived earlier and have not landed.
    const unlanded = [...arrived.values()];
    arrived.set(index, page);
    if (options.continuesAfter(page, index)) askWhenRoom();
    const prepared = await options.prepare(page, unlanded).catch(() => undefined);
    return { page, index, prepared };
  };
  const ask = (): void => {
    const slot = arrival(slots.length);
    // A failure is thrown where the slot is awaited; one dropped after a failed landing is not unhandled.
    slot.catch(() => undefined);
    slots.push(slot);
  };

  ask();
  return {
    next: () => {
      if (taken === slots.length) return Promise.resolve(undefined);
      const slot = slots[taken++]!;
      if (waitingForRoom) askWhenRoom();
      return slot;
    },
    landed: (index) => void arrived.delete(index),
    stop: () => {
      stopped = true;
    },
  };
}
