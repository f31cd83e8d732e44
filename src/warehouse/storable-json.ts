/**
 * JSON text PostgreSQL accepts. jsonb and text refuse U+0000 and lone UTF-16 surrogates, which a
 * JSON body may legally carry; one such string must not fail a whole page, so each is replaced
 * by U+FFFD (the only change ever made to a payload). Pure; no I/O.
 */
import type { ValidEvent } from '../events/types.js';
import { memberText } from '../json-text.js';

// An escape, read from the left so `\\u0000` is a backslash then `u0000`: \u0000, a surrogate pair,
// a lone surrogate, or any other escape (kept). JSON.stringify writes NUL and lone surrogates so;
// and JSON text decoded from UTF-8 holds them no other way (JSON forbids raw control characters in
// strings, and decoded UTF-8 has no lone surrogates).
const ESCAPE = /\\(?:u(?:0000|[dD][89abAB][0-9a-fA-F]{2}\\u[dD][c-fC-F][0-9a-fA-F]{2}|[dD][89a-fA-F][0-9a-fA-F]{2})|[^])/g;
const PAIR_LENGTH = 12;

function storableEscape(escape: string): string {
  return escape.length === 2 || escape.length === PAIR_LENGTH ? escape : '\\ufffd';
}

/**
 * The JSON text with each \u0000 and lone surrogate escape replaced by \ufffd, and nothing else
 * changed: numbers keep every digit, whitespace and key order stay as written.
 */
export function storableJsonText(json: string): string {
  return json.includes('\\u') ? json.replace(ESCAPE, storableEscape) : json;
}

export function toStorableJson(value: unknown): string {
  return storableJsonText(JSON.stringify(value) ?? 'null');
}

/**
 * An event's payload as JSON text PostgreSQL accepts: the text the API sent when the client kept it
 * (no second serialisation, only the escapes PostgreSQL refuses rewritten), else the parsed payload
 * serialised.
 */
export function storablePayloadJson(event: ValidEvent): string {
  const json = event.json;
  return json !== undefined ? storableJsonText(json) : toStorableJson(event.payload);
}

/**
 * The event's `raw` document as JSON text PostgreSQL accepts, taken from its text as sent when the
 * client kept it (numbers keep every digit), else serialised; undefined when it has none.
 */
export function storableRawJson(event: ValidEvent): string | undefined {
  const raw = event.payload.raw;
  // JSON null and absence both mean "no raw document".
  if (raw === null || raw === undefined) return undefined;
  const text = event.json === undefined ? undefined : memberText(event.json, 'raw');
  return text !== undefined ? storableJsonText(text) : toStorableJson(raw);
}

// eslint-disable-next-line no-control-regex -- NUL is exactly what PostgreSQL text refuses
const MAYBE_UNSTORABLE = /[\u0000\ud800-\udfff]/;

/** Text PostgreSQL accepts in a text column (used for error messages). */
export function toStorableText(value: string): string {
  // Almost every string has neither: one scan to say so, the replacements only when needed.
  if (!MAYBE_UNSTORABLE.test(value)) return value;
  // eslint-disable-next-line no-control-regex -- NUL is exactly what PostgreSQL text refuses
  return value.replace(/\u0000/g, '\ufffd').replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '\ufffd');
}
