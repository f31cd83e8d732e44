/** `scopes`: every scope the mirror knows, configured or discovered, with its name and history. */
import { sql, type Kysely, type Selectable } from 'kysely';
import type { Database, ScopeOrigin, ScopesTable } from './tables.js';

export interface KnownScope {
  readonly scope: string;
  readonly kind: 'org' | 'group';
  readonly scopeId: string;
  readonly name: string | null;
  readonly orgId: string | null;
  readonly origin: ScopeOrigin;
  readonly discoveredBy: string | null;
  readonly firstSeenAt: Date;
  readonly lastSeenAt: Date;
  readonly removedAt: Date | null;
}

export interface ScopeSighting {
  readonly kind: 'org' | 'group';
  readonly scopeId: string;
  readonly name?: string | null;
  readonly orgId?: string | null;
}

/** The configured scopes, seen now: added, or brought back if they had been removed. */
export async function recordConfiguredScopes(db: Kysely<Database>, scopes: readonly ScopeSighting[], now: Date): Promise<void> {
  if (scopes.length === 0) return;
  await db
    .insertInto('scopes')
    .values(scopes.map((s) => row(s, 'configured', null, now)))
    .onConflict((oc) =>
      oc.column('scope').doUpdateSet({
        origin: 'configured',
        name: sql`coalesce(excluded.name, scopes.name)`,
        org_id: sql`coalesce(excluded.org_id, scopes.org_id)`,
        last_seen_at: now,
        removed_at: null,
      }),
    )
    .execute();
}

/**
 * One organization's listing, as found now: its projects are recorded as discovered by it (a
 * configured project keeps origin `configured`, with its name filled in), and projects it found
 * before but no longer lists are marked removed. Returns how many were new and how many removed.
 */
export async function recordDiscoveredProjects(
  db: Kysely<Database>,
  orgKey: string,
  projects: readonly ScopeSighting[],
  now: Date,
): Promise<{ added: string[]; removed: string[] }> {
  return db.transaction().execute(async (trx) => {
    const before = new Set(await activeDiscoveredBy(trx, orgKey));
    if (projects.length > 0) {
      await trx
        .insertInto('scopes')
        .values(projects.map((p) => row(p, 'discovered', orgKey, now)))
        .onConflict((oc) =>
          oc.column('scope').doUpdateSet({
            name: sql`excluded.name`,
            org_id: sql`excluded.org_id`,
            discovered_by: sql`case when scopes.origin = 'discovered' then excluded.discovered_by else scopes.discovered_by end`,
            last_seen_at: now,
            removed_at: sql`case when scopes.origin = 'discovered' then null else scopes.removed_at end`,
          }),
        )
        .execute();
    }
    const listed = new Set(projects.map((p) => `${p.kind}:${p.scopeId}`));
    const removed = [...before].filter((key) => !listed.has(key));
    if (removed.length > 0) {
      await trx.updateTable('scopes').set({ removed_at: now }).where('scope', 'in', removed).where('origin', '=', 'discovered').execute();
    }
    return { added: [...listed].filter((key) => !before.has(key)), removed };
  });
}

/** The projects an organization's listing found and still lists (not removed). */
export async function activeDiscoveredBy(db: Kysely<Database>, orgKey: string): Promise<string[]> {
  const rows = await db
    .selectFrom('scopes')
    .select('scope')
    .where('discovered_by', '=', orgKey)
    .where('origin', '=', 'discovered')
    .where('removed_at', 'is', null)
    .orderBy('scope')
    .execute();
  return rows.map((r) => r.scope);
}

export async function listKnownScopes(db: Kysely<Database>): Promise<KnownScope[]> {
  const rows = await db.selectFrom('scopes').selectAll().orderBy('scope').execute();
  return rows.map(toKnownScope);
}

function row(s: ScopeSighting, origin: ScopeOrigin, discoveredBy: string | null, now: Date) {
  return {
    scope: `${s.kind}:${s.scopeId}`,
    kind: s.kind,
    scope_id: s.scopeId,
    name: s.name ?? null,
    org_id: s.orgId ?? (s.kind === 'org' ? s.scopeId : null),
    origin,
    discovered_by: discoveredBy,
    first_seen_at: now,
    last_seen_at: now,
    removed_at: null,
  };
}

function toKnownScope(r: Selectable<ScopesTable>): KnownScope {
  return {
    scope: r.scope,
    kind: r.kind,
    scopeId: r.scope_id,
    name: r.name,
    orgId: r.org_id,
    origin: r.origin,
    discoveredBy: r.discovered_by,
    firstSeenAt: r.first_seen_at,
    lastSeenAt: r.last_seen_at,
    removedAt: r.removed_at,
  };
}
