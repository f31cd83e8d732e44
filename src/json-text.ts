/**
 * Steps through JSON text that JSON.parse has accepted, without parsing it: the bounds of strings,
 * containers and values, and an object's members by name. The API client finds each event's text
 * in a page with these, and the warehouse a member's text in an event's. Pure.
 */

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
export function skipValue(text: string, i: number): number {
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

/** Whether the key spanning [start, end) (quotes included) is `name`, escapes decoded. */
export function isKeyNamed(text: string, start: number, end: number, name: string): boolean {
  // A key holding no backslash is its name as written; one holding an escape (`"result\u0073"`)
  // is decoded, as JSON.parse does.
  const length = end - start - 2;
  if (length === name.length) return text.startsWith(name, start + 1);
  // An escape writes one character in 2 to 6 (`\n`, `\u0073`; a pair writes two in 12).
  if (length < name.length || length > name.length * 6) return false;
  const key = text.slice(start, end);
  return key.includes('\\') && JSON.parse(key) === name;
}

/**
 * The text of the top-level object's member `name` (its first or last occurrence; JSON.parse keeps
 * the last), or undefined when the object has none or the text is not an object.
 */
export function memberText(text: string, name: string, occurrence: 'first' | 'last' = 'last'): string | undefined {
  let i = skipWhitespace(text, 0);
  if (text.charCodeAt(i) !== OPEN_OBJECT) return undefined;
  i = skipWhitespace(text, i + 1);
  if (text.charCodeAt(i) === CLOSE_OBJECT) return undefined;
  let found: string | undefined;
  for (;;) {
    if (text.charCodeAt(i) !== QUOTE) return undefined;
    const keyEnd = skipString(text, i);
    if (keyEnd < 0) return undefined;
    const named = isKeyNamed(text, i, keyEnd, name);
    i = skipWhitespace(text, keyEnd);
    if (text.charCodeAt(i) !== COLON) return undefined;
    i = skipWhitespace(text, i + 1);
    const end = skipValue(text, i);
    if (end < 0) return undefined;
    if (named) {
      found = text.slice(i, end);
      if (occurrence === 'first') return found;
    }
    i = skipWhitespace(text, end);
    const code = text.charCodeAt(i);
    if (code === CLOSE_OBJECT) return found;
    if (code !== COMMA) return undefined;
    i = skipWhitespace(text, i + 1);
  }
}

/** How deeply the text's arrays and objects nest (0 for a string, number or literal). */
export function nestingDepth(text: string): number {
  let depth = 0;
  let deepest = 0;
  for (let i = 0; i < text.length;) {
    const code = text.charCodeAt(i);
    if (code === QUOTE) {
      i = skipString(text, i);
      if (i < 0) return deepest;
      continue;
    }
    if (code === OPEN_OBJECT || code === OPEN_ARRAY) {
      depth += 1;
      if (depth > deepest) deepest = depth;
    } else if (code === CLOSE_OBJECT || code === CLOSE_ARRAY) depth -= 1;
    i += 1;
  }
  return deepest;
}

/** One member of an object as written: its key's text (quotes included), the key decoded, its value's text. */
export interface MemberText {
  readonly keyText: string;
  readonly key: string;
  readonly valueText: string;
}

/**
 * Every member of the top-level object, in order and as written (a repeated key is listed each
 * time), or undefined when the text is not an object. Values are never parsed: numbers keep every
 * digit.
 */
export function objectMembers(text: string): MemberText[] | undefined {
  let i = skipWhitespace(text, 0);
  if (text.charCodeAt(i) !== OPEN_OBJECT) return undefined;
  i = skipWhitespace(text, i + 1);
  const members: MemberText[] = [];
  if (text.charCodeAt(i) === CLOSE_OBJECT) return members;
  for (;;) {
    if (text.charCodeAt(i) !== QUOTE) return undefined;
    const keyEnd = skipString(text, i);
    if (keyEnd < 0) return undefined;
    const keyText = text.slice(i, keyEnd);
    i = skipWhitespace(text, keyEnd);
    if (text.charCodeAt(i) !== COLON) return undefined;
    i = skipWhitespace(text, i + 1);
    const end = skipValue(text, i);
    if (end < 0) return undefined;
    members.push({ keyText, key: JSON.parse(keyText) as string, valueText: text.slice(i, end) });
    i = skipWhitespace(text, end);
    const code = text.charCodeAt(i);
    if (code === CLOSE_OBJECT) return members;
    if (code !== COMMA) return undefined;
    i = skipWhitespace(text, i + 1);
  }
}

/** The text of each element of the top-level array, as written, or undefined when the text is not an array. */
export function arrayElements(text: string): string[] | undefined {
  let i = skipWhitespace(text, 0);
  if (text.charCodeAt(i) !== OPEN_ARRAY) return undefined;
  i = skipWhitespace(text, i + 1);
  const elements: string[] = [];
  if (text.charCodeAt(i) === CLOSE_ARRAY) return elements;
  for (;;) {
    const end = skipValue(text, i);
    if (end < 0 || end === i) return undefined;
    elements.push(text.slice(i, end));
    i = skipWhitespace(text, end);
    const code = text.charCodeAt(i);
    if (code === CLOSE_ARRAY) return elements;
    if (code !== COMMA) return undefined;
    i = skipWhitespace(text, i + 1);
  }
}
