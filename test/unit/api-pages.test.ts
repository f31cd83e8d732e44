import { describe, expect, it } from 'vitest';
import { PageWalk, windowPages, type EventsPage } from '../../src/api/pages.js';

const page = (pageNum: number, size: number, hasNext: boolean): EventsPage => ({
  pageNum,
  events: Array.from({ length: size }, (_, i) => ({ id: `${pageNum}-${i}`, created: new Date(0), payload: {} })),
  rejected: [],
  totalCount: 0,
  hasNext,
  requests: 1,
  bytes: 0,
});

async function collect(sizes: Array<[number, boolean]>, itemsPerPage: number): Promise<number[]> {
  const asked: number[] = [];
  for await (const p of windowPages(async (n) => {
    asked.push(n);
    const [size, hasNext] = sizes[n - 1]!;
    return page(n, size, hasNext);
  }, itemsPerPage)) {
    expect(p.pageNum).toBe(asked.at(-1));
  }
  return asked;
}

describe('windowPages', () => {
  it('asks pageNum 1, 2, … and stops after a short page', async () => {
    expect(
      await collect(
        [
          [3, true],
          [3, true],
          [1, true],
          [3, true],
        ],
        3,
      ),
    ).toEqual([1, 2, 3]);
  });
  it('reads past a full page that claims to be the last (no next link): links can be cut or follow an estimate', async () => {
    expect(
      await collect(
        [
          [3, true],
          [3, false],
          [3, false],
          [0, false],
        ],
        3,
      ),
    ).toEqual([1, 2, 3, 4]);
  });
  it('stops on an empty first page', async () => {
    expect(await collect([[0, false]], 3)).toEqual([1]);
  });
});

describe('PageWalk', () => {
  const ids = (from: number, n: number) => Array.from({ length: n }, (_, i) => `e${from + i}`);

  it('stops at a full page whose every id an earlier page listed, naming where', () => {
    const walk = new PageWalk('events', 3, 'GET /groups/g/events for group:g');
    walk.check(1, ids(0, 3), 1000);
    walk.check(2, ids(2, 3), 1000); // overlapping pages (a late event shifted them) are read on
    expect(() => walk.check(3, ids(1, 3), 1000)).toThrow(
      'GET /groups/g/events for group:g: page 3 lists only events that earlier pages listed (the service is repeating its pages); stopped after 3 pages',
    );
  });

  it('reads a count that is a third of the truth to the end, and stops four times past it plus ten', () => {
    const walk = new PageWalk('events', 100, 'GET /groups/g/events for group:g');
    for (let pageNum = 1; pageNum <= 22; pageNum += 1) walk.check(pageNum, ids(pageNum * 100, 100), 300);
    expect(() => walk.check(23, ids(2300, 100), 300)).toThrow(
      /page 23 is past what a totalCount of 300 allows \(3 page\(s\) of 100; read up to 22\)/,
    );
  });
});
