/**
 * Event validation, tolerant by design: an event needs only a non-empty string `id` and a `created`
 * that parses as ISO 8601; everything else (unknown fields, missing or wrong-typed optional fields,
 * new eventTypeNames) is kept as received. Pure.
 */
import { z } from 'zod';
import { parseIsoDate } from '../time.js';
import type { ApiEvent, RejectedEvent, ValidEvent } from './types.js';

const eventCore = z.looseObject({
  id: z.string({ error: 'id is missing or not a string' }).min(1, { error: 'id is empty' }),
  created: z
    .string({ error: 'created is missing or not a string' })
    .refine((text) => parseIsoDate(text) !== undefined, { error: 'created is not an ISO 8601 date-time' }),
});

export type EventCheck = { ok: true; event: ValidEvent } | { ok: false; rejected: RejectedEvent };

export function validateEvent(value: unknown): EventCheck {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return {
      ok: false,
      rejected: {
        reason: `event is not an object (${value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value})`,
        payload: value,
      },
    };
  }
  const parsed = eventCore.safeParse(value);
  if (!parsed.success) {
    return { ok: false, rejected: { reason: parsed.error.issues.map((issue) => issue.message).join('; '), payload: value } };
  }
  const created = parseIsoDate(parsed.data.created)!;
  return { ok: true, event: { id: parsed.data.id, created, payload: value as ApiEvent } };
}

/** Validates a page (newest first); each rejected event is placed between its valid neighbours. */
export function validateEvents(results: readonly unknown[]): { events: ValidEvent[]; rejected: RejectedEvent[] } {
  const checks = results.map(validateEvent);
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
