import { describe, expect, it } from 'vitest';
import { ScopeEventStore } from '../../src/emulator/event-store.js';
import type { EventRecord } from '../../src/emulator/generator.js';
import { Rng } from '../../src/emulator/random.js';

function store(rng: Rng, size: number): ScopeEventStore {
  const created = new Uint32Array(size).map(() => 1000 + rng.int(0, 300));
  created.sort();
  const types = new Uint16Array(size).map(() => rng.int(0, 5));
  return new ScopeEventStore(created, types, new Uint8Array(size));
}

const key = (r: EventRecord): string => `${r.created}:${r.counter}`;

describe('ScopeEventStore', () => {
  it('merges generated and added events for any offset, window and type set like a sort of everything', () => {
    const rng = new Rng(11);
    for (let round = 0; round < 20; round += 1) {
      const s = store(rng, rng.int(0, 400));
      for (let i = rng.int(0, 60); i > 0; i -= 1) s.add(1000 + rng.int(-20, 320), rng.int(0, 6), 0);
      const everything = s.query({ offset: 0, limit: s.size }).records;
      expect(everything).toHaveLength(s.size);
      const sorted = [...everything].sort((a, b) => b.created - a.created || b.counter - a.counter);
      expect(everything.map(key)).toEqual(sorted.map(key));
      for (let q = 0; q < 30; q += 1) {
        const types = rng.chance(0.5) ? [rng.int(0, 6), rng.int(0, 6)] : undefined;
        const minSec = rng.chance(0.5) ? 1000 + rng.int(-30, 300) : undefined;
        const maxSec = rng.chance(0.5) ? (minSec ?? 1000) + rng.int(0, 200) : undefined;
        const expected = sorted.filter(
          (r) =>
            (!types || types.includes(r.type)) &&
            (minSec === undefined || r.created >= minSec) &&
            (maxSec === undefined || r.created <= maxSec),
        );
        const offset = rng.int(0, expected.length + 5);
        const limit = rng.int(1, 50);
        const result = s.query({ types, minSec, maxSec, offset, limit });
        expect(result.total).toBe(expected.length);
        expect(result.records.map(key)).toEqual(expected.slice(offset, offset + limit).map(key));
      }
    }
  });

  it('returns nothing for an empty type set and finds records by (created, counter)', () => {
    const s = store(new Rng(2), 50);
    expect(s.query({ types: [], offset: 0, limit: 10 })).toEqual({ total: 0, records: [] });
    const added = s.add(5000, 1, 0);
    expect(s.find(5000, added.counter)).toEqual(added);
    expect(s.find(4999, added.counter)).toBeUndefined();
    const first = s.query({ offset: 49, limit: 1 }).records[0] as EventRecord;
    expect(s.find(first.created, first.counter)).toEqual(first);
  });
});
