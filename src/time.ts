/**
 * Date handling shared by the client, the emulator and the CLI. The API takes and gives ISO 8601
 * UTC timestamps with one-second resolution; we always send `YYYY-MM-DDTHH:MM:SSZ`.
 */

/** `YYYY-MM-DDTHH:MM:SSZ`, whole seconds (fractions are truncated, never rounded up). */
export function formatApiDate(date: Date | number): string {
  return formatUtc(typeof date === 'number' ? date : date.getTime(), false);
}

/**
 * Exactly `date.toISOString()`, about four times cheaper: V8 formats that through a C++ runtime
 * call (about 0.6 µs), and the warehouse writes one for every event. Throws as toISOString does
 * for an invalid date.
 */
export function isoTimestamp(date: Date | number): string {
  return formatUtc(typeof date === 'number' ? date : date.getTime(), true);
}

const MS_PER_DAY = 86_400_000;
const TWO_DIGITS = Array.from({ length: 100 }, (_, n) => String(n).padStart(2, '0'));
const THREE_DIGITS = Array.from({ length: 1000 }, (_, n) => String(n).padStart(3, '0'));
// Years 0000–9999: outside them toISOString writes six-digit signed years, left to it.
const FIRST_FOUR_DIGIT_MS = -62_167_219_200_000;
const AFTER_FOUR_DIGIT_MS = 253_402_300_800_000;

function formatUtc(ms: number, withMillis: boolean): string {
  if (!(ms >= FIRST_FOUR_DIGIT_MS && ms < AFTER_FOUR_DIGIT_MS)) {
    const text = new Date(ms).toISOString();
    return withMillis ? text : text.replace(/\.\d{3}Z$/, 'Z');
  }
  const days = Math.floor(ms / MS_PER_DAY);
  let rest = ms - days * MS_PER_DAY;
  const { year, month, day } = civilFromDays(days);
  const hour = Math.floor(rest / 3_600_000);
  rest -= hour * 3_600_000;
  const minute = Math.floor(rest / 60_000);
  rest -= minute * 60_000;
  const second = Math.floor(rest / 1000);
  const date = `${TWO_DIGITS[Math.floor(year / 100)]}${TWO_DIGITS[year % 100]}-${TWO_DIGITS[month]}-${TWO_DIGITS[day]}`;
  const time = `${TWO_DIGITS[hour]}:${TWO_DIGITS[minute]}:${TWO_DIGITS[second]}`;
  return withMillis ? `${date}T${time}.${THREE_DIGITS[rest - second * 1000]}Z` : `${date}T${time}Z`;
}

// Days since 1970-01-01 to and from a proleptic Gregorian date, in integer arithmetic
// (H. Hinnant's chrono-compatible algorithms; eras of 400 years start on March 1st).
function civilFromDays(days: number): { year: number; month: number; day: number } {
  const z = days + 719_468;
  const era = Math.floor(z / 146_097);
  const dayOfEra = z - era * 146_097;
  const yearOfEra = Math.floor(
    (dayOfEra - Math.floor(dayOfEra / 1460) + Math.floor(dayOfEra / 36_524) - Math.floor(dayOfEra / 146_096)) / 365,
  );
  const dayOfYear = dayOfEra - (365 * yearOfEra + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100));
  const shiftedMonth = Math.floor((5 * dayOfYear + 2) / 153);
  const month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9;
  return { year: yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day: dayOfYear - Math.floor((153 * shiftedMonth + 2) / 5) + 1 };
}

function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yearOfEra = y - era * 400;
  const dayOfYear = Math.floor((153 * (month > 2 ? month - 3 : month + 9) + 2) / 5) + day - 1;
  return era * 146_097 + yearOfEra * 365 + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100) + dayOfYear - 719_468;
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
  return new Date(daysFromCivil(year, month, day) * MS_PER_DAY + ((hour * 60 + minute) * 60 + second) * 1000 + ms);
}

/** The two-digit number at `at` (the caller matched the digits). */
function digits(text: string, at: number): number {
  return 10 * (text.charCodeAt(at) - 48) + text.charCodeAt(at + 1) - 48;
}

/**
 * A date typed on the command line: what parseIsoDate takes, and also a time without a zone (UTC)
 * or without seconds (`2026-11-26T12:00`). `dateOnly` tells the caller a whole day was named.
 */
export function parseCommandLineDate(text: string): { date: Date; dateOnly: boolean } | undefined {
  const trimmed = text.trim();
  if (/^\d{4}-\d{2}-\d{2}$/.test(trimmed)) {
    const date = parseIsoDate(trimmed);
    return date ? { date, dateOnly: true } : undefined;
  }
  // A time without a zone is UTC, as everything the mirror prints.
  const zoned = /(?:Z|[+-]\d{2}:?\d{2})$/i.test(trimmed) ? trimmed : `${trimmed}Z`;
  const date = parseIsoDate(zoned.replace(/z$/, 'Z'));
  return date ? { date, dateOnly: false } : undefined;
}

/** The last second of the UTC day that `date` starts. */
export function endOfUtcDay(date: Date): Date {
  return new Date(Math.floor(date.getTime() / MS_PER_DAY) * MS_PER_DAY + MS_PER_DAY - 1000);
}

/** A timestamp for people: ISO 8601 UTC without milliseconds, `-` when there is none. */
export function formatTimestamp(date: Date | null | undefined): string {
  return date ? formatApiDate(date) : '-';
}

export function secondsToMs(seconds: number): number {
  return seconds * 1000;
}
