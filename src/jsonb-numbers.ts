/**
 * The numbers PostgreSQL's jsonb can hold. jsonb keeps a number as `numeric`, whose limits are
 * narrower than JSON's (JSON has none): at most 16,383 digits after the decimal point
 * (NUMERIC_DSCALE_MAX), a leading digit no higher than 10^131071 (NUMERIC_WEIGHT_MAX, 32,767
 * base-10000 digits), and an exponent under 2^30 − 1 as written. Past them PostgreSQL refuses the
 * whole document ("value overflows numeric format", SQLSTATE 22003): `1e-20000` and `1e131072` are
 * valid JSON it cannot store. The same limits hold on PostgreSQL 15 and on PGlite. Pure.
 */
import { QUOTE, skipString } from './json-text.js';

/** Digits after the decimal point numeric keeps (NUMERIC_DSCALE_MAX). */
export const NUMERIC_MAX_SCALE = 16_383;
/** The highest power of ten numeric's leading digit may stand for ((NUMERIC_WEIGHT_MAX + 1) × 4 − 1). */
export const NUMERIC_MAX_LEADING_POWER = 131_071;
/** numeric_in refuses an exponent this large as written, before anything else (INT_MAX / 2). */
const NUMERIC_MAX_EXPONENT = 1_073_741_822;

const NUMBER = /-?(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?/y;
// Only a number with an exponent or a long run of digits can be out of range: a text without either
// (nearly every event) is passed by one native scan.
const MAYBE_OUT_OF_RANGE = /[\d.][eE][+-]?\d|\d{16000}/;

/** Whether jsonb holds this JSON number token exactly as numeric (the text JSON.parse accepted). */
export function isJsonbNumber(token: string): boolean {
  NUMBER.lastIndex = 0;
  const match = NUMBER.exec(token);
  if (!match) return false;
  const [, whole = '', fraction = '', exponentText = '0'] = match;
  const exponent = Number(exponentText);
  if (Math.abs(exponent) > NUMERIC_MAX_EXPONENT) return false;
  if (fraction.length - exponent > NUMERIC_MAX_SCALE) return false;
  const digits = whole + fraction;
  const first = digits.search(/[1-9]/);
  if (first < 0) return true; // zero: only its scale counts
  const leadingPower = whole.length - 1 - first + exponent;
  return leadingPower <= NUMERIC_MAX_LEADING_POWER;
}

/** The first number of the JSON text jsonb cannot hold, or undefined when it holds them all. */
export function unstorableJsonbNumber(text: string): string | undefined {
  if (!MAYBE_OUT_OF_RANGE.test(text)) return undefined;
  for (let i = 0; i < text.length;) {
    const code = text.charCodeAt(i);
    if (code === QUOTE) {
      i = skipString(text, i);
      if (i < 0) return undefined;
      continue;
    }
    if (code === 0x2d || (code >= 0x30 && code <= 0x39)) {
      NUMBER.lastIndex = i;
      const match = NUMBER.exec(text);
      if (!match) {
        i += 1;
        continue;
      }
      const token = match[0];
      if (!isJsonbNumber(token)) return token;
      i += token.length;
      continue;
    }
    i += 1;
  }
  return undefined;
}
