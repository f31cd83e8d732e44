/** Argument parsers for commander options: a bad value prints usage and exits 2. */
import { InvalidArgumentError } from 'commander';
import { SCOPE_FORM, tryParseScope, type Scope } from '../scope.js';
import { parseIsoDate } from '../time.js';

export function positiveInt(value: string): number {
  if (!/^\d+$/.test(value) || Number(value) < 1) throw new InvalidArgumentError('expected a whole number of 1 or more.');
  return Number(value);
}

export function isoDate(value: string): Date {
  const date = parseIsoDate(value);
  if (!date) throw new InvalidArgumentError('expected an ISO 8601 date or date-time such as 2026-11-01 or 2026-11-01T06:00:00Z.');
  return date;
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
