/**
 * Response checking with zod, tolerant by design: an event needs only a non-empty string `id` and
 * a `created` that parses as ISO 8601; everything else (unknown fields, missing or wrong-typed
 * optional fields, new eventTypeNames) is kept as received. Pure.
 */
import { z } from 'zod';
import { parseIsoDate } from '../time.js';
import type { ApiEvent, ApiLink, RejectedEvent, ValidEvent } from './types.js';

const eventCore = z.looseObject({
  id: z.string({ error: 'id is missing or not a string' }).min(1, { error: 'id is empty' }),
  created: z
    .string({ error: 'created is missing or not a string' })
    .refine((text) => parseIsoDate(text) !== undefined, { error: 'created is not an ISO 8601 date-time' }),
});

const link = z.object({ href: z.string(), rel: z.string() });

const listBody = z.looseObject({
  results: z.array(z.unknown(), { error: 'results is missing or not an array' }),
  totalCount: z.number({ error: 'totalCount is missing or not a number' }),
  // Links are only read for `next`; a malformed list is treated as no links.
  links: z.array(z.unknown()).optional().catch(undefined),
  status: z.unknown().optional(),
});

export type EventCheck = { ok: true; event: ValidEvent } | { ok: false; rejected: RejectedEvent };

export function validateEvent(value: unknown): EventCheck {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { ok: false, rejected: { reason: `event is not an object (${value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value})`, payload: value } };
  }
  const parsed = eventCore.safeParse(value);
  if (!parsed.success) {
    return { ok: false, rejected: { reason: parsed.error.issues.map((issue) => issue.message).join('; '), payload: value } };
  }
  const created = parseIsoDate(parsed.data.created)!;
  return { ok: true, event: { id: parsed.data.id, created, payload: value as ApiEvent } };
}

export function validateEvents(results: readonly unknown[]): { events: ValidEvent[]; rejected: RejectedEvent[] } {
  const events: ValidEvent[] = [];
  const rejected: RejectedEvent[] = [];
  for (const item of results) {
    const check = validateEvent(item);
    if (check.ok) events.push(check.event);
    else rejected.push(check.rejected);
  }
  return { events, rejected };
}

export interface ListBody {
  readonly results: readonly unknown[];
  readonly totalCount: number;
  readonly links: readonly ApiLink[];
  /** Set in the envelope form (`envelope=true`). */
  readonly status: number | undefined;
}

/** Checks a list body's shape; returns the reason when it is not an events list. */
export function parseListBody(body: unknown): { ok: true; list: ListBody } | { ok: false; reason: string } {
  const parsed = listBody.safeParse(body);
  if (!parsed.success) return { ok: false, reason: parsed.error.issues.map((issue) => issue.message).join('; ') };
  const links = (parsed.data.links ?? []).flatMap((item) => {
    const checked = link.safeParse(item);
    return checked.success ? [checked.data] : [];
  });
  const status = typeof parsed.data.status === 'number' ? parsed.data.status : undefined;
  return { ok: true, list: { results: parsed.data.results, totalCount: parsed.data.totalCount, links, status } };
}

export interface ErrorFields {
  readonly status: number | undefined;
  readonly errorCode: string | undefined;
  readonly detail: string | undefined;
}

/**
 * Reads an error body, plain (`{detail, error, errorCode, reason}`) or enveloped
 * (`{status, content: {...}}`); fields of the wrong type are ignored.
 */
export function readErrorFields(body: unknown): ErrorFields {
  if (typeof body !== 'object' || body === null) return { status: undefined, errorCode: undefined, detail: undefined };
  const outer = body as Record<string, unknown>;
  const inner = typeof outer.content === 'object' && outer.content !== null ? (outer.content as Record<string, unknown>) : outer;
  const status = typeof outer.status === 'number' ? outer.status : typeof inner.error === 'number' ? inner.error : undefined;
  const text = (value: unknown): string | undefined => (typeof value === 'string' && value !== '' ? value : undefined);
  return { status, errorCode: text(inner.errorCode), detail: text(inner.detail) ?? text(inner.reason) };
}

/** An enveloped error arrives as HTTP 200 with `{status: 4xx/5xx, content}`; this spots it. */
export function envelopedErrorStatus(body: unknown): number | undefined {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return undefined;
  const { status, results } = body as Record<string, unknown>;
  if (typeof status === 'number' && status >= 400 && !Array.isArray(results)) return status;
  return undefined;
}
