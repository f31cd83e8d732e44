import { describe, expect, it } from 'vitest';
import type { EventsPage } from '../../src/api/pages.js';
import { readAhead } from '../../src/sync/read-ahead.js';

const page = (pageNum: number, size: number): EventsPage => ({
  pageNum,
  events: Array.from({ length: size }, (_, i) => ({ id: `${pageNum}-${i}` }) as unknown as EventsPage['events'][number]),
  rejected: [],
  totalCount: 0,
  hasNext: false,
  requests: 1,
  bytes: 0,
});

/** A window of `sizes.length` pages served as soon as asked; records when each was asked. */
function windowOf(sizes: readonly number[]) {
  const asked: number[] = [];
  const iterator: AsyncIterator<EventsPage, void> = {
    next: () => {
      const pageNum = asked.length + 1;
      asked.push(pageNum);
      return Promise.resolve(
        pageNum <= sizes.length ? { done: false, value: page(pageNum, sizes[pageNum - 1]!) } : { done: true, value: undefined },
      );
    },
  };
  return { asked, iterator };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('readAhead', () => {
  it('asks for at most `depth` pages beyond the one handed out, and hands out every page in order while landing lags', async () => {
    const { asked, iterator } = windowOf([3, 3, 3, 3, 3, 1]);
    const ahead = readAhead(iterator, { depth: 2, continuesAfter: (p) => p.events.length === 3, prepare: async () => 'ready' });
    const handed: number[] = [];
    for (let ready = await ahead.next(); ready; ready = await ahead.next()) {
      await settle();
      expect(asked.length).toBeLessThanOrEqual(ready.page.pageNum + 2);
      handed.push(ready.page.pageNum);
      expect(ready.prepared).toBe('ready');
      // No page is reported landed: the read-ahead's room must not depend on commits.
    }
    expect(handed).toEqual([1, 2, 3, 4, 5, 6]);
    // The page after the short last page is never asked for (it would spend the API's budget).
    expect(asked).toEqual([1, 2, 3, 4, 5, 6]);
  });

  it('gives each page the earlier pages not landed yet when it arrived, whatever order they land in', async () => {
    const { iterator } = windowOf([2, 2, 2, 2, 1]);
    const seen: Array<[number, number[]]> = [];
    const ahead = readAhead(iterator, {
      depth: 2,
      continuesAfter: (p) => p.events.length === 2,
      prepare: async (p, unlanded) => void seen.push([p.pageNum, unlanded.map((u) => u.pageNum)]),
    });
    const first = await ahead.next();
    const second = await ahead.next();
    await settle();
    // Page 2 commits before page 1 (they were in flight together), then page 5 is asked for.
    ahead.landed(second!.index);
    const third = await ahead.next();
    await settle();
    ahead.landed(first!.index);
    ahead.landed(third!.index);
    for (let ready = await ahead.next(); ready; ready = await ahead.next()) ahead.landed(ready.index);
    expect(seen).toEqual([
      [1, []],
      [2, [1]],
      [3, [1, 2]],
      [4, [1, 2, 3]],
      [5, [1, 3, 4]],
    ]);
  });

  it('stops after a page that ends the window, and hands out a failed preparation as undefined', async () => {
    const { asked, iterator } = windowOf([2, 2, 2]);
    const ahead = readAhead(iterator, {
      depth: 2,
      continuesAfter: (_p, index) => index !== 0,
      prepare: () => Promise.reject(new Error('lookup failed')),
    });
    const first = await ahead.next();
    expect(first).toMatchObject({ page: { pageNum: 1 }, prepared: undefined });
    expect(await ahead.next()).toBeUndefined();
    expect(asked).toEqual([1]);
  });
});
