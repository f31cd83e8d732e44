/**
 * JSON text PostgreSQL accepts. jsonb and text refuse U+0000 and lone UTF-16 surrogates, which a
 * JSON body may legally carry; one such string must not fail a whole page, so each is replaced
 * by U+FFFD (the only change ever made to a payload). Pure; no I/O.
 */
import type { ValidEvent } from '../events/types.js';

// JSON.stringify writes NUL and lone surrogates as \uXXXX escapes (paired surrogates stay raw),
// so an escape preceded by an even number of backslashes is exactly such a character.
const UNSTORABLE_ESCAPE = /(?<!\\)((?:\\\\)*)\\u(?:0000|d[89a-f][0-9a-f]{2})/gi;

export function toStorableJson(value: unknown): string {
  const json = JSON.stringify(value) ?? 'null';
  return json.includes('\\u') ? json.replace(UNSTORABLE_ESCAPE, '$1\\ufffd') : json;
}

/**
 * An event's payload as JSON text PostgreSQL accepts: the text the API sent when the client kept it
 * (no second serialisation), else the parsed payload serialised. Sent text holding a \u escape is
 * serialised instead, as the escape may be one PostgreSQL refuses (NUL, a lone surrogate); a literal
 * NUL or lone surrogate cannot occur in it (JSON forbids raw control characters in strings, and
 * decoded UTF-8 has no lone surrogates).
 */
export function storablePayloadJson(event: ValidEvent): string {
  const json = event.json;
  return json !== undefined && !json.includes('\\u') ? json : toStorableJson(event.payload);
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
