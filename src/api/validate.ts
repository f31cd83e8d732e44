/**
 * Response checking with zod: the list envelope and error bodies. Events themselves are checked by
 * the event model (../events/validate-event.ts). Pure.
 */
import { z } from 'zod';
import type { ApiLink } from '../events/types.js';

const link = z.object({ href: z.string(), rel: z.string() });

const listBody = z.looseObject({
  results: z.array(z.unknown(), { error: 'results is missing or not an array' }),
  // Required by the caller unless it asked for no count (Atlas v2's includeCount=false).
  totalCount: z.number({ error: 'totalCount is missing or not a number' }).optional(),
  // Links are only read for `next`; a malformed list is treated as no links.
  links: z.array(z.unknown()).optional().catch(undefined),
  status: z.unknown().optional(),
});

export interface ListBody {
  readonly results: readonly unknown[];
  /** Absent only when the count was not asked for (includeCount=false). */
  readonly totalCount: number | undefined;
  readonly links: readonly ApiLink[];
  /** Set in the envelope form (`envelope=true`). */
  readonly status: number | undefined;
}

/** Checks a list body's shape; returns the reason when it is not an events list. */
export function parseListBody(body: unknown, countRequired = true): { ok: true; list: ListBody } | { ok: false; reason: string } {
  const parsed = listBody.safeParse(body);
  if (!parsed.success) return { ok: false, reason: parsed.error.issues.map((issue) => issue.message).join('; ') };
  if (countRequired && parsed.data.totalCount === undefined) return { ok: false, reason: 'totalCount is missing or not a number' };
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
