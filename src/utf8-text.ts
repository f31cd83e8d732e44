/**
 * UTF-8 text as its reader means it: without a leading byte order mark (U+FEFF). Editors on
 * Windows and some proxies put one before a file's or a body's first character; JSON.parse refuses
 * it and Node's `.env` parser reads it as part of the first variable's name. Pure, except for
 * `readUtf8File`.
 */
import { readFileSync } from 'node:fs';

const BYTE_ORDER_MARK = '\uFEFF';

/** `text` without one leading byte order mark. */
export function withoutByteOrderMark(text: string): string {
  return text.startsWith(BYTE_ORDER_MARK) ? text.slice(1) : text;
}

/** The text of UTF-8 bytes (a response body), without a leading byte order mark. */
export function utf8Text(bytes: Uint8Array): string {
  return withoutByteOrderMark(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8'));
}

/** The text of a UTF-8 file, without a leading byte order mark (throws as readFileSync does). */
export function readUtf8File(file: string): string {
  return withoutByteOrderMark(readFileSync(file, 'utf8'));
}
