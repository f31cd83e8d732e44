/**
 * Discovery: every configured organization with `discoverProjects` also mirrors each project its
 * listing (`GET /orgs/{orgId}/groups`) shows, minus `excludeProjects`, with the organization's
 * settings. The `scopes` table keeps what was found: a project gone from the listing is marked
 * removed (its rows stay); a listing that fails (no Organization Member role, the API down, the
 * warehouse refusing the write) drops nothing: the projects found before are kept until a listing
 * succeeds, and the failure is an error, counted on the organization's row for `status` and the
 * metrics (`events_mirror_discovery_listing_failures`).
 */
import type { Kysely } from 'kysely';
import type { ListedProject } from '../api/client.js';
import type { ApiClients } from '../api/clients.js';
import type { ScopeSettings } from '../config.js';
import { errorMessage } from '../errors.js';
import type { Logger } from '../logger.js';
import { tryParseScope, type Scope } from '../scope.js';
import type { Database } from '../warehouse/database.js';
import {
  activeDiscoveredBy,
  recordConfiguredScopes,
  recordDiscoveredProjects,
  recordListingFailure,
} from '../warehouse/scopes.repository.js';
import { cleanListing } from './project-listing.js';

export interface DiscoveryDeps {
  readonly clients: ApiClients;
  readonly db: Kysely<Database>;
  readonly logger: Logger;
  readonly now: () => Date;
  readonly signal?: AbortSignal;
}

export interface OrgDiscovery {
  readonly org: string;
  readonly outcome: 'listed' | 'failed';
  /** Projects mirrored for this organization after this discovery. */
  readonly projects: number;
  readonly added: readonly string[];
  readonly removed: readonly string[];
  readonly excluded: number;
  /** Listed items that are no project a scope can hold (each logged with the reason). */
  readonly skipped: number;
  /** Projects listed more than once (offset paging of a changing organization), kept once. */
  readonly duplicates: number;
  readonly error?: string;
}

export interface Discovery {
  /** The configured scopes, then the discovered projects not configured themselves. */
  readonly scopes: ScopeSettings[];
  readonly orgs: OrgDiscovery[];
}

export async function discoverScopes(deps: DiscoveryDeps, configured: readonly ScopeSettings[]): Promise<Discovery> {
  const { db, logger } = deps;
  const now = deps.now();
  await recordConfiguredScopes(
    db,
    configured.map((s) => ({ kind: s.scope.kind, scopeId: s.scope.id })),
    now,
  );
  const scopes = [...configured];
  const seen = new Set(configured.map((s) => s.scope.key));
  const orgs: OrgDiscovery[] = [];
  for (const org of configured.filter((s) => s.discoverProjects)) {
    const found = await discoverOrg(deps, org, now);
    orgs.push(found.report);
    for (const key of found.projectKeys) {
      if (seen.has(key)) continue;
      seen.add(key);
      // A key recorded by an older version from a listed id no scope can hold: never polled.
      const scope = tryParseScope(key);
      if (!scope) {
        logger.warn({ scope: org.scope.key, project: key }, `${org.scope.key}: discovered project ${key} skipped: not a scope`);
        continue;
      }
      scopes.push(discoveredProjectSettings(org, scope));
    }
  }
  logger.debug({ scopes: scopes.length, orgs: orgs.length }, `discovery: ${scopes.length} scopes`);
  return { scopes, orgs };
}

/** A discovered project is read with its organization's settings: credential, event types, raw, start date. */
export function discoveredProjectSettings(org: ScopeSettings, scope: Scope): ScopeSettings {
  return {
    scope,
    eventTypes: org.eventTypes,
    includeRaw: org.includeRaw,
    startDate: org.startDate,
    ...(org.credential ? { credential: org.credential } : {}),
  };
}

async function discoverOrg(deps: DiscoveryDeps, org: ScopeSettings, now: Date): Promise<{ projectKeys: string[]; report: OrgDiscovery }> {
  const { db, logger } = deps;
  const orgKey = org.scope.key;
  try {
    const listing = await deps.clients.for(org.credential).listProjects(org.scope, deps.signal);
    const { projects, skipped, duplicates } = cleanListing(orgKey, listing.projects, listing.skipped);
    for (const reason of skipped) logger.warn({ scope: orgKey }, reason);
    if (duplicates > 0) logger.info({ scope: orgKey, duplicates }, `${orgKey}: ${duplicates} project(s) listed more than once, kept once`);
    const kept = projects.filter((p) => !isExcluded(p, org.excludeProjects ?? []));
    const { added, removed } = await recordDiscoveredProjects(
      db,
      orgKey,
      kept.map((p) => ({ kind: 'group', scopeId: p.id, name: p.name || null, orgId: p.orgId })),
      now,
    );
    if (added.length + removed.length > 0) {
      logger.info(
        { scope: orgKey, added, removed },
        `${orgKey}: ${added.length} new projects mirrored, ${removed.length} gone from the organization (no longer polled; their rows stay)`,
      );
    }
    const report = {
      org: orgKey,
      outcome: 'listed',
      projects: kept.length,
      added,
      removed,
      excluded: projects.length - kept.length,
      skipped: skipped.length,
      duplicates,
    } as const;
    return { projectKeys: kept.map((p) => `group:${p.id}`), report };
  } catch (error) {
    deps.signal?.throwIfAborted();
    const message = errorMessage(error);
    await recordListingFailure(db, orgKey, message, now);
    const projectKeys = await activeDiscoveredBy(db, orgKey);
    logger.error(
      { scope: orgKey, err: { message } },
      `${orgKey}: listing its projects failed (projects it added or removed since are not seen); still polling the ${projectKeys.length} found before: ${message}`,
    );
    return {
      projectKeys,
      report: {
        org: orgKey,
        outcome: 'failed',
        projects: projectKeys.length,
        added: [],
        removed: [],
        excluded: 0,
        skipped: 0,
        duplicates: 0,
        error: message,
      },
    };
  }
}

/** `patterns` hold project ids, or names where `*` matches anything (case-insensitive). */
export function isExcluded(project: ListedProject, patterns: readonly string[]): boolean {
  return patterns.some((pattern) => pattern === project.id || namePattern(pattern).test(project.name));
}

function namePattern(pattern: string): RegExp {
  const escaped = pattern.split('*').map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  return new RegExp(`^${escaped.join('.*')}$`, 'i');
}
