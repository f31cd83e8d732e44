/**
 * The text of each element of a list body's top-level `results` array, exactly as received. The
 * warehouse stores an event's payload from this text instead of serialising the parsed object
 * again (about as costly as the parse itself). Runs on a body JSON.parse has accepted; anything
 * unexpected returns undefined and the caller serialises as before. Pure.
 */
import { wasmResultTexts } from './result-spans.js';

export const QUOTE = 0x22;
export const BACKSLASH = 0x5c;
export const COMMA = 0x2c;
export const COLON = 0x3a;
export const OPEN_OBJECT = 0x7b;
export const CLOSE_OBJECT = 0x7d;
export const OPEN_ARRAY = 0x5b;
export const CLOSE_ARRAY = 0x5d;

function isWhitespace(code: number): boolean {
  return code === 0x20 || code === 0x0a || code === 0x0d || code === 0x09;
}

export function skipWhitespace(text: string, i: number): number {
  while (isWhitespace(text.charCodeAt(i))) i += 1;
  return i;
}

/** `i` is at an opening quote; returns the index after the closing one, or -1. */
export function skipString(text: string, i: number): number {
  for (let from = i + 1; ;) {
    const quote = text.indexOf('"', from);
    if (quote < 0) return -1;
    let backslashes = 0;
    while (text.charCodeAt(quote - 1 - backslashes) === BACKSLASH) backslashes += 1;
    if (backslashes % 2 === 0) return quote + 1;
    from = quote + 1;
  }
}

// Everything inside a container up to its next bracket or brace, strings included (written in the
// "unrolled loop" form, so it never backtracks on input JSON.parse accepted). One native match per
// bracket instead of one `indexOf` per string and a JavaScript step per character between strings.
// Its repetitions are bounded, as each one takes room on the regular expression's backtracking
// stack: a million strings in one array overflowed it.
const UP_TO_BRACKET = /[^"{}[\]]*(?:"[^"\\]*(?:\\[^][^"\\]*){0,256}"[^"{}[\]]*){0,256}/y;

/** `i` is at `{` or `[`; returns the index after the matching `}` or `]`, or -1. */
export function skipContainer(text: string, i: number): number {
  let depth = 0;
  for (;;) {
    const code = text.charCodeAt(i);
    let from = i + 1;
    if (code === OPEN_OBJECT || code === OPEN_ARRAY) depth += 1;
    else if (code === CLOSE_OBJECT || code === CLOSE_ARRAY) {
      depth -= 1;
      if (depth === 0) return i + 1;
    } else if (code === QUOTE) {
      // The match stopped at its bounds (256 strings, or 256 escapes in one): this string by hand.
      from = skipString(text, i);
      if (from < 0) return -1;
    } else return -1; // the end of the text
    UP_TO_BRACKET.lastIndex = from;
    UP_TO_BRACKET.test(text);
    i = UP_TO_BRACKET.lastIndex;
  }
}

/** `i` is at the start of a value; returns the index after it, or -1. */
function skipValue(text: string, i: number): number {
  const code = text.charCodeAt(i);
  if (code === OPEN_OBJECT || code === OPEN_ARRAY) return skipContainer(text, i);
  if (code === QUOTE) return skipString(text, i);
  // A number or a literal: it ends where its container's punctuation or whitespace begins.
  for (;;) {
    const next = text.charCodeAt(i);
    if (next === COMMA || next === CLOSE_OBJECT || next === CLOSE_ARRAY || isWhitespace(next) || Number.isNaN(next)) return i;
    i += 1;
  }
}

/** `i` is at `[`; the text of each element, or undefined. */
function elementTexts(text: string, i: number): { texts: string[]; end: number } | undefined {
  const texts: string[] = [];
  i = skipWhitespace(text, i + 1);
  if (text.charCodeAt(i) === CLOSE_ARRAY) return { texts, end: i + 1 };
  for (;;) {
    const end = skipValue(text, i);
    if (end < 0) return undefined;
    texts.push(text.slice(i, end));
    i = skipWhitespace(text, end);
    const code = text.charCodeAt(i);
    if (code === CLOSE_ARRAY) return { texts, end: i + 1 };
    if (code !== COMMA) return undefined;
    i = skipWhitespace(text, i + 1);
  }
}

/**
 * The elements of the top-level object's `results` array (its last, as JSON.parse keeps), or
 * undefined: found by the WebAssembly scan (result-spans.ts), or by the JavaScript one below when
 * that one refuses the body.
 */
export function resultTexts(body: string): string[] | undefined {
  return wasmResultTexts(body) ?? scanResultTexts(body);
}

/** resultTexts in JavaScript. */
export function scanResultTexts(body: string): string[] | undefined {
  let i = skipWhitespace(body, 0);
  if (body.charCodeAt(i) !== OPEN_OBJECT) return undefined;
  i = skipWhitespace(body, i + 1);
  if (body.charCodeAt(i) === CLOSE_OBJECT) return undefined;
  let results: string[] | undefined;
  for (;;) {
    if (body.charCodeAt(i) !== QUOTE) return undefined;
    const keyEnd = skipString(body, i);
    if (keyEnd < 0) return undefined;
    const isResults = keyEnd - i === 9 && body.startsWith('"results"', i);
    i = skipWhitespace(body, keyEnd);
    if (body.charCodeAt(i) !== COLON) return undefined;
    i = skipWhitespace(body, i + 1);
    if (isResults && body.charCodeAt(i) === OPEN_ARRAY) {
      const elements = elementTexts(body, i);
      if (!elements) return undefined;
      results = elements.texts;
      i = elements.end;
    } else {
      results = isResults ? undefined : results;
      i = skipValue(body, i);
      if (i < 0) return undefined;
    }
    i = skipWhitespace(body, i);
    const code = body.charCodeAt(i);
    if (code === CLOSE_OBJECT) return results;
    if (code !== COMMA) return undefined;
    i = skipWhitespace(body, i + 1);
  }
}
