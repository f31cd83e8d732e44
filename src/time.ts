/**
 * Date handling shared by the client, the emulator and the CLI. The API takes and gives ISO 8601
 * UTC timestamps with one-second resolution; we always send `YYYY-MM-DDTHH:MM:SSZ`.
 */

/** `YYYY-MM-DDTHH:MM:SSZ`, whole seconds (fractions are truncated, never rounded up). */
export function formatApiDate(date: Date | number): string {
  const ms = typeof date === 'number' ? date : date.getTime();
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');
}

// Date, optional time with optional fraction, and a zone (Z or ±HH:MM) when a time is given.
const ISO_8601 = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2}))?$/;

/**
 * Parses an ISO 8601 date or date-time strictly. A bare date means midnight UTC. Returns
 * undefined for anything else, including impossible dates such as 2026-02-30, so a malformed
 * date is an error for the caller to report rather than silently ignored.
 */
export function parseIsoDate(text: string): Date | undefined {
  if (CANONICAL_UTC.test(text)) return parseCanonicalUtc(text);
  const match = ISO_8601.exec(text.trim());
  if (!match) return undefined;
  const [, y, mo, d, h, mi, s] = match;
  const date = new Date(match[4] === undefined ? `${y}-${mo}-${d}T00:00:00Z` : text.trim().replace(' ', 'T'));
  if (Number.isNaN(date.getTime())) return undefined;
  // Reject overflowed fields (Date silently rolls 2026-02-30 to March).
  if (Number(mo) < 1 || Number(mo) > 12 || Number(d) < 1 || Number(d) > 31) return undefined;
  if (h !== undefined && (Number(h) > 23 || Number(mi) > 59 || Number(s ?? 0) > 59)) return undefined;
  const daysInMonth = new Date(Date.UTC(Number(y), Number(mo), 0)).getUTCDate();
  if (Number(d) > daysInMonth) return undefined;
  return date;
}

// The form the API sends, taken on a fast path (it runs for every event of every page).
const CANONICAL_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,3})?Z$/;

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

function parseCanonicalUtc(text: string): Date | undefined {
  const year = 100 * digits(text, 0) + digits(text, 2);
  const month = digits(text, 5);
  const day = digits(text, 8);
  const hour = digits(text, 11);
  const minute = digits(text, 14);
  const second = digits(text, 17);
  // Every field must be in range: Date would roll 2026-02-30 over to March 2, and 24:00 to the next day.
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  const monthDays = month === 2 && leap ? 29 : DAYS_IN_MONTH[month - 1];
  if (monthDays === undefined || day < 1 || day > monthDays || hour > 23 || minute > 59 || second > 59) return undefined;
  // `.d`, `.dd` or `.ddd` between the seconds and the Z.
  const ms = text.length > 20 ? Number(text.slice(20, -1).padEnd(3, '0')) : 0;
  const date = new Date(Date.UTC(year, month - 1, day, hour, minute, second, ms));
  // Date.UTC reads years 0–99 as 1900–1999.
  if (year < 100) date.setUTCFullYear(year);
  return date;
}

/** The two-digit number at `at` (the caller matched the digits). */
function digits(text: string, at: number): number {
  return 10 * (text.charCodeAt(at) - 48) + text.charCodeAt(at + 1) - 48;
}

/** A timestamp for people: ISO 8601 UTC without milliseconds, `-` when there is none. */
export function formatTimestamp(date: Date | null | undefined): string {
  return date ? date.toISOString().replace(/\.\d{3}Z$/, 'Z') : '-';
}

export function secondsToMs(seconds: number): number {
  return seconds * 1000;
}
