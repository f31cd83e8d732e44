/**
 * One scope's events, held compactly: the generated history as typed arrays sorted by created
 * (7 bytes an event), plus a small sorted list of events added while running (live, late, bursts).
 * Queries answer from indexes: binary search on created for minDate/maxDate, per-type position
 * lists (and cached unions for several types) for eventType, and a merge of the two parts for
 * the page asked for. Order is newest first by created, ties by counter (so by id) descending.
 * Pure; no I/O.
 */
import { WELL_FORMED, type EventRecord } from './generator.js';

export interface StoreQuery {
  /** Type indexes to keep; undefined keeps all, an empty list keeps none. */
  readonly types?: readonly number[];
  readonly minSec?: number;
  readonly maxSec?: number;
  readonly offset: number;
  readonly limit: number;
}

export interface StoreResult {
  readonly total: number;
  readonly records: EventRecord[];
}

const UNION_CACHE_SIZE = 16;

/** True when `a` comes before `b` in newest-first order. */
function before(a: EventRecord, b: EventRecord): boolean {
  return a.created > b.created || (a.created === b.created && a.counter > b.counter);
}

/** First position in [0, length) whose key is >= target (keys ascending). */
function lowerBound(length: number, key: (position: number) => number, target: number): number {
  let lo = 0;
  let hi = length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (key(mid) < target) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

export class ScopeEventStore {
  private readonly extras: EventRecord[] = [];
  private readonly extrasByCounter = new Map<number, EventRecord>();
  private typeLists: Map<number, Uint32Array> | undefined;
  private readonly unionCache = new Map<string, Uint32Array>();
  private malformed = 0;

  /** `created` must be sorted ascending; position i has counter i. */
  constructor(
    private readonly created: Uint32Array,
    private readonly types: Uint16Array,
    private readonly flags: Uint8Array,
  ) {
    for (const flag of flags) if (flag !== WELL_FORMED) this.malformed += 1;
  }

  get size(): number {
    return this.created.length + this.extras.length;
  }

  get malformedCount(): number {
    return this.malformed;
  }

  private baseRecord(index: number): EventRecord {
    return { created: this.created[index] as number, counter: index, type: this.types[index] as number, flag: this.flags[index] as number };
  }

  /** Adds one event; its counter follows every counter given so far. */
  add(created: number, type: number, flag: number): EventRecord {
    const record: EventRecord = { created, counter: this.created.length + this.extras.length, type, flag };
    // Extras are kept ascending; the newcomer has the highest counter, so it goes after its second's peers.
    const at = lowerBound(this.extras.length, (p) => (this.extras[p] as EventRecord).created, created + 1);
    this.extras.splice(at, 0, record);
    this.extrasByCounter.set(record.counter, record);
    if (flag !== WELL_FORMED) this.malformed += 1;
    return record;
  }

  find(created: number, counter: number): EventRecord | undefined {
    if (counter < this.created.length) {
      return this.created[counter] === created ? this.baseRecord(counter) : undefined;
    }
    const record = this.extrasByCounter.get(counter);
    return record?.created === created ? record : undefined;
  }

  query(query: StoreQuery): StoreResult {
    const minSec = query.minSec ?? 0;
    const maxSec = query.maxSec ?? 0xffffffff;
    const base = this.baseRange(query.types, minSec, maxSec);
    const extras = this.extrasIn(query.types, minSec, maxSec);
    const baseCount = base.hi - base.lo;
    const total = baseCount + extras.length;
    const baseAt = (p: number): EventRecord => {
      const position = base.hi - 1 - p;
      return this.baseRecord(base.list ? (base.list[position] as number) : position);
    };
    const offset = Math.min(query.offset, total);
    // How many extras precede `offset` in the merged order: the smallest i whose extra is not needed.
    let lo = Math.max(0, offset - baseCount);
    let hi = Math.min(offset, extras.length);
    while (lo < hi) {
      const i = (lo + hi) >>> 1;
      const j = offset - i;
      if (j > 0 && before(extras[i] as EventRecord, baseAt(j - 1))) lo = i + 1;
      else hi = i;
    }
    let i = lo;
    let j = offset - lo;
    const records: EventRecord[] = [];
    while (records.length < query.limit && (i < extras.length || j < baseCount)) {
      const extra = extras[i];
      const baseNext = j < baseCount ? baseAt(j) : undefined;
      if (extra && (!baseNext || before(extra, baseNext))) {
        records.push(extra);
        i += 1;
      } else if (baseNext) {
        records.push(baseNext);
        j += 1;
      }
    }
    return { total, records };
  }

  /** Positions [lo, hi) of matching generated events, in `list` when a type filter applies. */
  private baseRange(types: readonly number[] | undefined, minSec: number, maxSec: number): { list?: Uint32Array; lo: number; hi: number } {
    if (types === undefined) {
      const key = (p: number): number => this.created[p] as number;
      return { lo: lowerBound(this.created.length, key, minSec), hi: lowerBound(this.created.length, key, maxSec + 1) };
    }
    const list = this.listFor(types);
    const key = (p: number): number => this.created[list[p] as number] as number;
    return { list, lo: lowerBound(list.length, key, minSec), hi: lowerBound(list.length, key, maxSec + 1) };
  }

  private extrasIn(types: readonly number[] | undefined, minSec: number, maxSec: number): EventRecord[] {
    const key = (p: number): number => (this.extras[p] as EventRecord).created;
    const lo = lowerBound(this.extras.length, key, minSec);
    const hi = lowerBound(this.extras.length, key, maxSec + 1);
    const wanted = types === undefined ? undefined : new Set(types);
    const out: EventRecord[] = [];
    for (let p = hi - 1; p >= lo; p -= 1) {
      const record = this.extras[p] as EventRecord;
      if (!wanted || wanted.has(record.type)) out.push(record);
    }
    return out;
  }

  /** Ascending positions of the generated events of the given types. */
  private listFor(types: readonly number[]): Uint32Array {
    const lists = this.buildTypeLists();
    const unique = [...new Set(types)].sort((a, b) => a - b);
    if (unique.length === 1) return lists.get(unique[0] as number) ?? new Uint32Array(0);
    const cacheKey = unique.join(',');
    const cached = this.unionCache.get(cacheKey);
    if (cached) {
      this.unionCache.delete(cacheKey);
      this.unionCache.set(cacheKey, cached);
      return cached;
    }
    const wanted = new Set(unique);
    let count = 0;
    for (const type of unique) count += lists.get(type)?.length ?? 0;
    const union = new Uint32Array(count);
    let at = 0;
    for (let p = 0; p < this.types.length; p += 1) if (wanted.has(this.types[p] as number)) union[at++] = p;
    this.unionCache.set(cacheKey, union);
    if (this.unionCache.size > UNION_CACHE_SIZE) this.unionCache.delete(this.unionCache.keys().next().value as string);
    return union;
  }

  private buildTypeLists(): Map<number, Uint32Array> {
    if (this.typeLists) return this.typeLists;
    const counts = new Map<number, number>();
    for (const type of this.types) counts.set(type, (counts.get(type) ?? 0) + 1);
    const lists = new Map<number, Uint32Array>();
    for (const [type, count] of counts) lists.set(type, new Uint32Array(count));
    const fill = new Map<number, number>();
    for (let p = 0; p < this.types.length; p += 1) {
      const type = this.types[p] as number;
      const at = fill.get(type) ?? 0;
      (lists.get(type) as Uint32Array)[at] = p;
      fill.set(type, at + 1);
    }
    this.typeLists = lists;
    return lists;
  }
}
