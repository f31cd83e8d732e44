import { describe, expect, it } from 'vitest';
import { windowPages, type EventsPage } from '../../src/api/pages.js';

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
