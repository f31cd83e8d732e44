/**
 * Event validation, tolerant by design: an event needs only a non-empty string `id` and a `created`
 * that parses as ISO 8601; everything else (unknown fields, missing or wrong-typed optional fields,
 * new eventTypeNames) is kept as received. Pure.
 */
import { nestingDepth } from '../json-text.js';
import { unstorableJsonbNumber } from '../jsonb-numbers.js';
import { parseIsoDate } from '../time.js';
import type { ApiEvent, RejectedEvent, ValidEvent } from './types.js';

/**
 * The deepest nesting of arrays and objects an event may have: PostgreSQL's jsonb parser runs out
 * of stack some thousands of levels deeper (SQLSTATE 54001; the embedded warehouse sooner, and
 * without saying so), and JavaScript's JSON.stringify too. A deeper event is set aside.
 */
export const MAX_EVENT_DEPTH = 1_000;

export type EventCheck = { ok: true; event: ValidEvent } | { ok: false; rejected: RejectedEvent };

// Two fields checked by hand, not by a schema library: this runs for every event of every page, and
// a schema parse that copies each object cost more than the JSON parse itself (docs/benchmarks.md, the write path).
export function validateEvent(value: unknown, json?: string): EventCheck {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return {
      ok: false,
      rejected: {
        reason: `event is not an object (${value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value})`,
        payload: value,
        ...(json === undefined ? {} : { json }),
      },
    };
  }
  const { id, created } = value as { id?: unknown; created?: unknown };
  const createdDate = typeof created === 'string' ? parseIsoDate(created) : undefined;
  // Nesting that deep needs two characters a level: most texts are too short to be scanned.
  const depth = json !== undefined && json.length > 2 * MAX_EVENT_DEPTH ? nestingDepth(json) : 0;
  if (depth > MAX_EVENT_DEPTH) {
    return {
      ok: false,
      rejected: { reason: `nested ${depth} levels deep, over the ${MAX_EVENT_DEPTH} the warehouse keeps`, payload: value, json },
    };
  }
  const number = json === undefined ? undefined : unstorableJsonbNumber(json);
  if (number !== undefined) {
    return { ok: false, rejected: { reason: unstorableNumberReason(number), payload: value, json } };
  }
  if (typeof id === 'string' && id.length > 0 && createdDate) {
    const event: ValidEvent =
      json === undefined
        ? { id, created: createdDate, payload: value as ApiEvent }
        : { id, created: createdDate, payload: value as ApiEvent, json };
    return { ok: true, event };
  }
  const problems = [
    typeof id !== 'string' ? 'id is missing or not a string' : id.length === 0 ? 'id is empty' : undefined,
    typeof created !== 'string' ? 'created is missing or not a string' : createdDate ? undefined : 'created is not an ISO 8601 date-time',
  ].filter((problem) => problem !== undefined);
  const reason = problems.join('; ');
  return { ok: false, rejected: json === undefined ? { reason, payload: value } : { reason, payload: value, json } };
}

/** Why an event holding `number` is set aside; a number of thousands of digits is shown by its ends. */
export function unstorableNumberReason(number: string): string {
  const shown = number.length > 40 ? `${number.slice(0, 20)}…${number.slice(-12)} (${number.length} characters)` : number;
  return `holds the number ${shown}, beyond what PostgreSQL's jsonb keeps (numeric: 16,383 digits after the point, a leading digit up to 10^131071)`;
}

/**
 * Validates a page (newest first); each rejected event is placed between its valid neighbours.
 * `texts`, when given, holds each result's JSON text as received, in the same order.
 */
export function validateEvents(
  results: readonly unknown[],
  texts?: readonly string[],
): { events: ValidEvent[]; rejected: RejectedEvent[] } {
  const checks = results.map((result, i) => validateEvent(result, texts?.[i]));
  // The created time of the nearest valid event after each position (older, on a newest-first page).
  const olderAfter: Array<Date | undefined> = new Array<Date | undefined>(checks.length);
  for (let i = checks.length - 1, older: Date | undefined; i >= 0; i -= 1) {
    olderAfter[i] = older;
    const check = checks[i]!;
    if (check.ok) older = check.event.created;
  }
  const events: ValidEvent[] = [];
  const rejected: RejectedEvent[] = [];
  let newer: Date | undefined;
  checks.forEach((check, position) => {
    if (check.ok) {
      events.push(check.event);
      newer = check.event.created;
      return;
    }
    const older = olderAfter[position];
    rejected.push(
      newer || older ? { ...check.rejected, listedBetween: { ...(newer ? { newer } : {}), ...(older ? { older } : {}) } } : check.rejected,
    );
  });
  return { events, rejected };
}
