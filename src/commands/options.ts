/** Argument parsers for commander options: a bad value prints usage and exits 2. */
import { InvalidArgumentError } from 'commander';
import { SCOPE_FORM, tryParseScope, type Scope } from '../scope.js';
import { endOfUtcDay, parseCommandLineDate } from '../time.js';

export function positiveInt(value: string): number {
  if (!/^\d+$/.test(value) || Number(value) < 1) throw new InvalidArgumentError('expected a whole number of 1 or more.');
  return Number(value);
}

const DATE_FORMS = 'expected a date or a UTC date-time such as 2026-11-01, 2026-11-01T06:00 or 2026-11-01T06:00:00Z.';

/** A point in time, or the start of a range: a bare date is that day's first second (00:00:00Z). */
export function isoDate(value: string): Date {
  const parsed = parseCommandLineDate(value);
  if (!parsed) throw new InvalidArgumentError(DATE_FORMS);
  return parsed.date;
}

/** The end of a range, included: a bare date is that whole day, to its last second (23:59:59Z). */
export function isoDateEnd(value: string): Date {
  const parsed = parseCommandLineDate(value);
  if (!parsed) throw new InvalidArgumentError(DATE_FORMS);
  return parsed.dateOnly ? endOfUtcDay(parsed.date) : parsed.date;
}

const DURATION_UNITS: Readonly<Record<string, number>> = { s: 1, m: 60, h: 3600, d: 86_400 };

/** A duration in seconds: `90` or `90s`, `15m`, `2h`, `1d`. */
export function durationSeconds(value: string): number {
  const match = /^(\d+)([smhd]?)$/.exec(value.trim());
  if (!match) throw new InvalidArgumentError('expected a duration such as 90s, 15m, 2h or 1d (a bare number is seconds).');
  return Number(match[1]) * DURATION_UNITS[match[2] || 's']!;
}

export function scopeArg(value: string): Scope {
  const scope = tryParseScope(value);
  if (!scope) throw new InvalidArgumentError(`expected ${SCOPE_FORM}.`);
  return scope;
}

export function collectScopes(value: string, previous: Scope[] = []): Scope[] {
  return [
    ...previous,
    ...value
      .split(',')
      .filter((v) => v.trim() !== '')
      .map(scopeArg),
  ];
}

export function portArg(value: string): number {
  if (!/^\d+$/.test(value) || Number(value) > 65_535)
    throw new InvalidArgumentError('expected a port number from 0 to 65535 (0 picks a free one).');
  return Number(value);
}
