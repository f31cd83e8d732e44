/** `scopes`: every scope the mirror knows, configured or discovered, with its name and history. */
import { sql, type Kysely, type Selectable } from 'kysely';
import { toStorableText } from './storable-json.js';
import { MAX_ERROR_LENGTH } from './state.repository.js';
import type { Database, ScopeOrigin, ScopesTable } from './tables.js';

/**
 * Rows per INSERT or UPDATE of a listing: 10 parameters a row stays far below PostgreSQL's 65,535
 * bind parameters per statement, whatever the size of the organization.
 */
export const SCOPES_BATCH = 1000;

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
  /** An organization that discovers its projects: its listing's health. */
  readonly listing: ListingHealth;
}

export interface ListingHealth {
  readonly listedAt: Date | null;
  /** Listings failed since the last that succeeded. */
  readonly failures: number;
  readonly failedAt: Date | null;
  readonly error: string | null;
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
    for (const batch of batches(projects, SCOPES_BATCH)) {
      await trx
        .insertInto('scopes')
        .values(batch.map((p) => row(p, 'discovered', orgKey, now)))
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
    for (const batch of batches(removed, SCOPES_BATCH)) {
      await trx.updateTable('scopes').set({ removed_at: now }).where('scope', 'in', batch).where('origin', '=', 'discovered').execute();
    }
    await trx
      .updateTable('scopes')
      .set({ listed_at: now, listing_failures: 0, listing_failed_at: null, listing_error: null })
      .where('scope', '=', orgKey)
      .execute();
    return { added: [...listed].filter((key) => !before.has(key)), removed };
  });
}

/**
 * An organization's listing could not be read or written: counted on its row (the projects found
 * before stay mirrored), for `status` and the metrics to show.
 */
export async function recordListingFailure(db: Kysely<Database>, orgKey: string, error: string, now: Date): Promise<void> {
  await db
    .updateTable('scopes')
    .set({
      listing_failures: sql`listing_failures + 1`,
      listing_failed_at: now,
      listing_error: toStorableText(error.slice(0, MAX_ERROR_LENGTH)),
    })
    .where('scope', '=', orgKey)
    .execute();
}

/** The organizations whose projects are listed (once listed, or failed), with the listing's health. */
export async function listingHealth(db: Kysely<Database>): Promise<Array<{ scope: string } & ListingHealth>> {
  const rows = await db
    .selectFrom('scopes')
    .select(['scope', 'listed_at', 'listing_failures', 'listing_failed_at', 'listing_error'])
    .where((eb) => eb.or([eb('listed_at', 'is not', null), eb('listing_failures', '>', 0)]))
    .orderBy('scope')
    .execute();
  return rows.map((r) => ({ scope: r.scope, ...listingOf(r) }));
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

function* batches<T>(items: readonly T[], size: number): Generator<readonly T[]> {
  for (let start = 0; start < items.length; start += size) yield items.slice(start, start + size);
}

function listingOf(
  r: Pick<Selectable<ScopesTable>, 'listed_at' | 'listing_failures' | 'listing_failed_at' | 'listing_error'>,
): ListingHealth {
  return { listedAt: r.listed_at, failures: Number(r.listing_failures), failedAt: r.listing_failed_at, error: r.listing_error };
}

function row(s: ScopeSighting, origin: ScopeOrigin, discoveredBy: string | null, now: Date) {
  return {
    scope: `${s.kind}:${s.scopeId}`,
    kind: s.kind,
    scope_id: s.scopeId,
    // Listed names are the service's text: NUL and lone surrogates stored as U+FFFD.
    name: s.name == null ? null : toStorableText(s.name),
    org_id: s.orgId == null ? (s.kind === 'org' ? s.scopeId : null) : toStorableText(s.orgId),
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
    listing: listingOf(r),
  };
}
