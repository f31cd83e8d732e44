/**
 * docs/configuration.md "Numbers the service sends" says the range of every number the client
 * clamps (src/api/network-ranges.ts): each entry has its row, and the row's range is the code's.
 */
import { describe, expect, it } from 'vitest';
import { NETWORK_RANGES, type NetworkNumber } from '../../src/api/network-ranges.js';
import { readDoc } from '../helpers/markdown.js';

const ROW_OF: Record<NetworkNumber, string> = {
  bucketCapacity: 'bucket capacity',
  bucketRemaining: 'tokens remaining',
  bucketRefill: 'refill',
  retryAfter: 'Retry-After',
  tokenLifetime: 'token lifetime',
};

const figure = (n: number): string => (n === 1 / 60 ? '1/60' : n.toLocaleString('en-US'));

function tableRows(): Map<string, string[]> {
  const page = readDoc('docs/configuration.md');
  const section = page.slice(page.indexOf('### Numbers the service sends'));
  const rows = new Map<string, string[]>();
  for (const line of section.split('\n').slice(1)) {
    if (line.startsWith('#')) break;
    if (!line.startsWith('| ') || line.startsWith('| ---') || line.startsWith('| number')) continue;
    const cells = line.split('|').map((cell) => cell.trim());
    rows.set(cells[1]!, cells.slice(2, -1));
  }
  return rows;
}

describe('docs/configuration.md: numbers the service sends', () => {
  it('gives each clamped number its row with the range the code applies', () => {
    const rows = tableRows();
    expect([...rows.keys()].sort()).toEqual(Object.values(ROW_OF).sort());
    for (const [name, range] of Object.entries(NETWORK_RANGES) as Array<[NetworkNumber, (typeof NETWORK_RANGES)[NetworkNumber]]>) {
      const [, rangeCell] = rows.get(ROW_OF[name])!;
      expect(rangeCell, name).toMatch(new RegExp(`^${figure(range.min).replace('/', '\\/')} – ${figure(range.max)} ${range.unit}`));
    }
  });
});
