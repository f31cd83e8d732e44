/**
 * Seeded, deterministic randomness for the emulator. Events are never stored as objects: each
 * one is rebuilt from a seed derived from (dataset seed, scope, counter), so the same seed always
 * gives the same bytes. Pure; no I/O.
 */

/** Mixes integers into a well-spread unsigned 32-bit hash (murmur3 finalizer over a running state). */
export function hash32(...values: number[]): number {
  let h = 0x9e3779b9;
  for (const value of values) {
    let k = Math.imul(value | 0, 0xcc9e2d51);
    k = (k << 15) | (k >>> 17);
    k = Math.imul(k, 0x1b873593);
    h ^= k;
    h = (h << 13) | (h >>> 19);
    h = (Math.imul(h, 5) + 0xe6546b64) | 0;
    // Values above 2^32 (counters, seconds) keep their high bits too.
    h ^= Math.floor(value / 0x100000000) | 0;
  }
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** Hash of a string, for turning scope keys into seeds. */
export function hashString(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i += 1) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return hash32(h);
}

/** A small fast generator (mulberry32) with the helpers the generator needs. */
export class Rng {
  private state: number;

  constructor(seed: number) {
    this.state = seed >>> 0;
  }

  /** Uniform in [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) | 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** Integer in [min, max], both inclusive. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  chance(probability: number): boolean {
    return this.next() < probability;
  }

  pick<T>(items: readonly T[]): T {
    const item = items[Math.floor(this.next() * items.length)];
    if (item === undefined) throw new Error('pick from an empty list');
    return item;
  }

  /** `length` lowercase hex digits. */
  hex(length: number): string {
    let out = '';
    while (out.length < length) out += (Math.floor(this.next() * 0x10000) + 0x10000).toString(16).slice(1);
    return out.slice(0, length);
  }

  /** A MongoDB-ObjectId-shaped id (24 lowercase hex) whose first 8 hex are `seconds`. */
  objectId(seconds: number): string {
    return hex8(seconds) + this.hex(16);
  }
}

export function hex8(value: number): string {
  return (value >>> 0).toString(16).padStart(8, '0');
}
