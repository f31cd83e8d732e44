/**
 * The text of each element of a list body's top-level `results` array, exactly as received. The
 * warehouse stores an event's payload from this text instead of serialising the parsed object
 * again (about as costly as the parse itself). Runs on a body JSON.parse has accepted; anything
 * unexpected returns undefined and the caller serialises as before. Pure.
 */
import {
  CLOSE_ARRAY,
  CLOSE_OBJECT,
  COLON,
  COMMA,
  OPEN_ARRAY,
  OPEN_OBJECT,
  QUOTE,
  isKeyNamed,
  memberText,
  skipString,
  skipValue,
  skipWhitespace,
} from '../json-text.js';
import { wasmResultTexts } from './result-spans.js';

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
    const isResults = isKeyNamed(body, i, keyEnd, 'results');
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

/**
 * Whether `texts` are the texts of `results`, position by position: as many, and each text's `id`
 * member (its first) the parsed result's. A scan that found another array than the one JSON.parse
 * kept, or elements in another order, is caught here; the caller then serialises the parsed
 * results instead of storing texts that belong to other events.
 */
export function textsPairWith(results: readonly unknown[], texts: readonly string[]): boolean {
  if (texts.length !== results.length) return false;
  for (let i = 0; i < texts.length; i += 1) {
    const result = results[i];
    const id: unknown = typeof result === 'object' && result !== null ? (result as { id?: unknown }).id : undefined;
    const idText = memberText(texts[i]!, 'id', 'first');
    if (idText === undefined) {
      if (id !== undefined) return false;
    } else if (typeof id === 'string') {
      // Most ids hold no escape: their text is the id between quotes.
      if (!(idText.length === id.length + 2 && idText.startsWith(id, 1)) && !(idText.includes('\\') && JSON.parse(idText) === id))
        return false;
    } else if (typeof id === 'object' || !Object.is(JSON.parse(idText), id)) return false;
  }
  return true;
}
