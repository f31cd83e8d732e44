/**
 * AssemblyScript shared by the WebAssembly modules (src/<layer>/wasm): stepping over JSON the way
 * JSON.parse reads it, sixteen bytes at a time where it can. Every function runs on text JSON.parse
 * accepted; one that meets anything else marks the scan broken and returns the end.
 */

export const QUOTE: i32 = 0x22;
export const BACKSLASH: i32 = 0x5c;
export const OPEN_OBJECT: i32 = 0x7b;
export const CLOSE_OBJECT: i32 = 0x7d;
export const OPEN_ARRAY: i32 = 0x5b;
export const CLOSE_ARRAY: i32 = 0x5d;
export const COMMA: i32 = 0x2c;
export const COLON: i32 = 0x3a;

let scanBroken: bool = false;

/** Whether a scan since the last clearBroken met text that is not what JSON.parse accepted. */
export function isBroken(): bool {
  return scanBroken;
}

export function clearBroken(): void {
  scanBroken = false;
}

export function markBroken(): void {
  scanBroken = true;
}

/** The first byte of memory this module does not use. */
export function heapBase(): usize {
  return __heap_base;
}

export function byteAt(p: usize): i32 {
  return <i32>load<u8>(p);
}

export function isSpace(c: i32): bool {
  return c == 0x20 || c == 0x0a || c == 0x0d || c == 0x09;
}

export function skipSpace(p: usize, end: usize): usize {
  while (p < end && isSpace(byteAt(p))) p++;
  return p;
}

// Sixteen bytes at a time below: the input has room beyond its end for the last load, and a byte
// found there does not count.

/** `p` at a quote: the index after the closing one (escapes skipped). */
export function skipString(p: usize, end: usize): usize {
  const quotes = i8x16.splat(<i8>QUOTE);
  const backslashes = i8x16.splat(<i8>BACKSLASH);
  p++;
  while (p < end) {
    const v = v128.load(p);
    const mask = i8x16.bitmask(v128.or(i8x16.eq(v, quotes), i8x16.eq(v, backslashes)));
    if (mask == 0) {
      p += 16;
      continue;
    }
    p += ctz(mask);
    if (p >= end) break;
    if (byteAt(p) == QUOTE) return p + 1;
    p += 2; // a backslash and the character it escapes
  }
  scanBroken = true;
  return end;
}

/** `p` at `{` or `[`: the index after its matching bracket. */
export function skipContainer(p: usize, end: usize): usize {
  const quotes = i8x16.splat(<i8>QUOTE);
  const openObjects = i8x16.splat(<i8>OPEN_OBJECT);
  const closeObjects = i8x16.splat(<i8>CLOSE_OBJECT);
  const openArrays = i8x16.splat(<i8>OPEN_ARRAY);
  const closeArrays = i8x16.splat(<i8>CLOSE_ARRAY);
  let depth = 0;
  while (p < end) {
    const v = v128.load(p);
    const brackets = v128.or(
      v128.or(i8x16.eq(v, openObjects), i8x16.eq(v, closeObjects)),
      v128.or(i8x16.eq(v, openArrays), i8x16.eq(v, closeArrays)),
    );
    const mask = i8x16.bitmask(v128.or(brackets, i8x16.eq(v, quotes)));
    if (mask == 0) {
      p += 16;
      continue;
    }
    p += ctz(mask);
    if (p >= end) break;
    const c = byteAt(p);
    if (c == QUOTE) {
      p = skipString(p, end);
      continue;
    }
    if (c == OPEN_OBJECT || c == OPEN_ARRAY) depth++;
    else if (--depth == 0) return p + 1;
    p++;
  }
  scanBroken = true;
  return end;
}

/** `p` at a value: the index after it. */
export function skipValue(p: usize, end: usize): usize {
  const c = byteAt(p);
  if (c == OPEN_OBJECT || c == OPEN_ARRAY) return skipContainer(p, end);
  if (c == QUOTE) return skipString(p, end);
  // A number or a literal: it ends at its container's punctuation or at whitespace.
  while (p < end) {
    const d = byteAt(p);
    if (d == COMMA || d == CLOSE_OBJECT || d == CLOSE_ARRAY || isSpace(d)) break;
    p++;
  }
  return p;
}
