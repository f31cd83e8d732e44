/**
 * A project as `GET /orgs/{orgId}/groups` lists it, reduced to what discovery needs. Pure.
 */
import { z } from 'zod';
import { tryParseScope } from '../scope.js';

export interface ListedProject {
  readonly id: string;
  readonly name: string;
  readonly orgId: string;
}

const listedProject = z.looseObject({
  // Exactly the ids a `group:` scope holds (letters, digits, - and _, at most 64).
  id: z.string().refine((id) => tryParseScope(`group:${id}`)?.id === id, 'id is not a project id (1 to 64 letters, digits, - or _)'),
  name: z.string().optional().catch(undefined),
  orgId: z.string().optional().catch(undefined),
});

/** The project, or the reason it cannot be used (no id, or one no scope can hold). */
export function readListedProject(item: unknown, listedOrgId: string): ListedProject | string {
  const parsed = listedProject.safeParse(item);
  if (!parsed.success) {
    const what = typeof item === 'object' && item !== null && 'id' in item ? ` ${shownId(item.id)}` : '';
    return `project${what} of org:${listedOrgId} skipped: ${parsed.error.issues.map((issue) => issue.message).join('; ')}`;
  }
  return { id: parsed.data.id, name: parsed.data.name ?? '', orgId: parsed.data.orgId ?? listedOrgId };
}

const SHOWN_ID_CHARS = 80;

/** The listed id as a message shows it: quoted, and cut short when it is long. */
function shownId(id: unknown): string {
  const text = JSON.stringify(id) ?? String(id);
  return text.length > SHOWN_ID_CHARS ? `${text.slice(0, SHOWN_ID_CHARS)}… (${text.length} characters)` : text;
}
