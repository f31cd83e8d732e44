/**
 * A scope is one feed: `org:<orgId>` (GET /orgs/{orgId}/events) or `group:<groupId>`
 * (GET /groups/{groupId}/events). Pure; no I/O.
 */
export type ScopeKind = 'org' | 'group';

export interface Scope {
  readonly kind: ScopeKind;
  readonly id: string;
  /** Canonical text form, `org:<id>` or `group:<id>`. */
  readonly key: string;
}

const SCOPE_PATTERN = /^(org|group):([A-Za-z0-9_-]{1,64})$/;

export const SCOPE_FORM = '`org:<orgId>` or `group:<groupId>` (ids of letters, digits, - and _)';

/** Parses `org:<id>` / `group:<id>`; returns undefined when the text is not of that form. */
export function tryParseScope(text: string): Scope | undefined {
  const match = SCOPE_PATTERN.exec(text.trim());
  if (!match) return undefined;
  const kind = match[1] as ScopeKind;
  const id = match[2] as string;
  return { kind, id, key: `${kind}:${id}` };
}

export function parseScope(text: string): Scope {
  const scope = tryParseScope(text);
  if (!scope) throw new Error(`"${text}" is not a scope: expected ${SCOPE_FORM}`);
  return scope;
}

/** The list endpoint's path below the base URL. */
export function eventsPath(scope: Scope): string {
  return scope.kind === 'org' ? `/orgs/${encodeURIComponent(scope.id)}/events` : `/groups/${encodeURIComponent(scope.id)}/events`;
}
