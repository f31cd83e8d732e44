/**
 * AssemblyScript, compiled into src/api/result-spans-wasm.ts (`npm run build:wasm`): where each
 * element of a list body's top-level `results` array starts and ends, as offsets into the body's
 * JavaScript string, for src/api/result-texts.ts. It reads the body's UTF-8 bytes sixteen at a
 * time. It runs on a body JSON.parse accepted, and refuses anything unexpected, as
 * result-texts.ts's own scan does; and a body with an escape in a top-level key (the JavaScript
 * scan decodes such keys).
 */

import {
  BACKSLASH,
  CLOSE_ARRAY,
  CLOSE_OBJECT,
  COLON,
  COMMA,
  OPEN_ARRAY,
  OPEN_OBJECT,
  QUOTE,
  byteAt,
  clearBroken,
  isBroken,
  skipSpace,
  skipString,
  skipValue,
} from '../../wasm/json-scan';

export { heapBase } from '../../wasm/json-scan';

/** The body is not what the scan expects. */
const REFUSED: i32 = -1;

/** Whether no byte has its high bit set (a lane's sign, which bitmask gathers). */
function isAscii(p: usize, end: usize): bool {
  let any = i8x16.splat(0);
  for (; p + 16 <= end; p += 16) any = v128.or(any, v128.load(p));
  if (i8x16.bitmask(any) != 0) return false;
  const rest = <i32>(end - p);
  return rest == 0 || (i8x16.bitmask(v128.load(p)) & ((1 << rest) - 1)) == 0;
}

/**
 * The `count` offsets at `offsets` (i32, ascending), bytes from `input`, turned into UTF-16 units:
 * every byte but a UTF-8 continuation byte starts a character, and a four-byte one takes two units.
 */
function toUtf16Offsets(input: usize, offsets: usize, count: i32): void {
  const continuationBits = i8x16.splat(<i8>0xc0);
  const continuation = i8x16.splat(<i8>0x80);
  const fourByteLead = i8x16.splat(<i8>0xf0);
  let p = input;
  let units: i32 = 0;
  for (let k = 0; k < count; k++) {
    const target = input + <usize>load<i32>(offsets + ((<usize>k) << 2));
    while (p < target) {
      const v = v128.load(p);
      const starts = ~i8x16.bitmask(i8x16.eq(v128.and(v, continuationBits), continuation)) & 0xffff;
      const pairs = i8x16.bitmask(i8x16.ge_u(v, fourByteLead));
      const bytes = min<usize>(16, target - p);
      const within = bytes == 16 ? 0xffff : (1 << (<i32>bytes)) - 1;
      units += <i32>popcnt(starts & within) + <i32>popcnt(pairs & within);
      p += bytes;
    }
    store<i32>(offsets + ((<usize>k) << 2), units);
  }
}

/** Whether the key at `p` (a quote) is `"results"`, as written, with no escape. */
function isResultsKey(p: usize, keyEnd: usize): bool {
  // "results" is 9 bytes with its quotes: 0x22 r e s u l t s 0x22.
  return keyEnd - p == 9 && load<u64>(p) == 0x73746c7573657222 && byteAt(p + 8) == QUOTE;
}

/**
 * Whether the key spanning [p, keyEnd) holds a backslash: an escaped key (`"result\u0073"`) may
 * name `results` (JSON.parse decodes it), so the body is left to the JavaScript scan, which decodes.
 */
function holdsBackslash(p: usize, keyEnd: usize): bool {
  for (; p < keyEnd; p++) if (byteAt(p) == BACKSLASH) return true;
  return false;
}

/**
 * The body's UTF-8 bytes at `input`: writes the start and end (i32 pairs, UTF-16 offsets into the
 * body) of each element of the top-level object's `results` array (its last, as JSON.parse keeps)
 * from `out`, and returns how many; -1 when the body is not such an object or holds no such array.
 */
export function resultSpans(input: usize, length: i32, out: usize): i32 {
  const count = byteSpans(input, length, out);
  // An ASCII body's byte offsets are its UTF-16 offsets.
  if (count > 0 && !isAscii(input, input + length)) toUtf16Offsets(input, out, count * 2);
  return count;
}

function byteSpans(input: usize, length: i32, out: usize): i32 {
  const end = input + length;
  clearBroken();
  let count: i32 = REFUSED;
  let p = skipSpace(input, end);
  if (p >= end || byteAt(p) != OPEN_OBJECT) return REFUSED;
  p = skipSpace(p + 1, end);
  while (p < end && byteAt(p) == QUOTE) {
    const keyStart = p;
    p = skipString(p, end);
    if (holdsBackslash(keyStart, p)) return REFUSED;
    const isResults = isResultsKey(keyStart, p);
    p = skipSpace(p, end);
    if (p >= end || byteAt(p) != COLON) return REFUSED;
    p = skipSpace(p + 1, end);
    if (p >= end) return REFUSED;
    if (isResults && byteAt(p) == OPEN_ARRAY) {
      count = 0;
      p = skipSpace(p + 1, end);
      if (p < end && byteAt(p) == CLOSE_ARRAY) p++;
      else
        while (p < end) {
          const start = p;
          p = skipValue(p, end);
          if (isBroken() || p == start) return REFUSED;
          store<i32>(out + ((<usize>count) << 3), <i32>(start - input));
          store<i32>(out + ((<usize>count) << 3), <i32>(p - input), 4);
          count++;
          p = skipSpace(p, end);
          if (p >= end) return REFUSED;
          const c = byteAt(p);
          if (c == CLOSE_ARRAY) {
            p++;
            break;
          }
          if (c != COMMA) return REFUSED;
          p = skipSpace(p + 1, end);
        }
    } else {
      if (isResults) count = REFUSED;
      p = skipValue(p, end);
    }
    if (isBroken()) return REFUSED;
    p = skipSpace(p, end);
    if (p >= end) return REFUSED;
    const c = byteAt(p);
    if (c == CLOSE_OBJECT) return count;
    if (c != COMMA) return REFUSED;
    p = skipSpace(p + 1, end);
  }
  return REFUSED;
}
