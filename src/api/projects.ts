/**
 * A project as `GET /orgs/{orgId}/groups` lists it, reduced to what discovery needs. Pure.
 */
import { z } from 'zod';

export interface ListedProject {
  readonly id: string;
  readonly name: string;
  readonly orgId: string;
}

const listedProject = z.looseObject({
  id: z.string().regex(/^[A-Za-z0-9_-]+$/, 'id is not a project id'),
  name: z.string().optional().catch(undefined),
  orgId: z.string().optional().catch(undefined),
});

/** The project, or the reason it cannot be used (no id, or one no scope can hold). */
export function readListedProject(item: unknown, listedOrgId: string): ListedProject | string {
  const parsed = listedProject.safeParse(item);
  if (!parsed.success) {
    const what = typeof item === 'object' && item !== null && 'id' in item ? ` ${JSON.stringify(item.id)}` : '';
    return `project${what} of org:${listedOrgId} skipped: ${parsed.error.issues.map((issue) => issue.message).join('; ')}`;
  }
  return { id: parsed.data.id, name: parsed.data.name ?? '', orgId: parsed.data.orgId ?? listedOrgId };
}
