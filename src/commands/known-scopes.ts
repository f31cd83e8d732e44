/**
 * A scope named on the command line must be one the mirror knows: configured, or held by the
 * warehouse (discovered projects, scopes synced before). A typo would otherwise write an empty
 * report, print "no checkpoint" or read a feed nobody asked for, and exit 0.
 */
import type { Kysely } from 'kysely';
import { scopeSettings, type Config, type ScopeSettings } from '../config.js';
import { UsageError } from '../errors.js';
import type { Scope } from '../scope.js';
import { discoveredProjectSettings } from '../sync/discovery.js';
import type { Database } from '../warehouse/database.js';
import { listKnownScopes, type KnownScope } from '../warehouse/scopes.repository.js';
import { listSyncStates } from '../warehouse/state.repository.js';

export async function requireKnownScopes(db: Kysely<Database>, config: Config, chosen: readonly Scope[]): Promise<void> {
  if (chosen.length === 0) return;
  const [known, states] = await Promise.all([listKnownScopes(db), listSyncStates(db)]);
  const all = new Set([...config.scopes.map((s) => s.scope.key), ...known.map((k) => k.scope), ...states.map((s) => s.scope)]);
  const unknown = chosen.filter((s) => !all.has(s.key));
  if (unknown.length === 0) return;
  const listed = [...all].sort();
  throw new UsageError(
    `--scope ${unknown.map((s) => s.key).join(', ')}: no such scope is configured or in the warehouse; ` +
      (listed.length > 0 ? `known: ${listed.join(', ')}` : 'none is known yet: set EVENTS_SCOPES and run npx events-mirror sync --once'),
  );
}

/**
 * The settings each named scope is read from the API with: a configured scope's own; a project
 * that a configured organization discovered, the organization's (its credential, so its base URL,
 * event types, raw and start date), as `sync` reads it. `otherKnown: 'defaults'` (backfill,
 * checkpoint) also takes any other scope the warehouse holds, with the default settings; `'refuse'`
 * (sync, reconcile) refuses it, naming the fix.
 */
export async function namedScopeSettings(
  db: Kysely<Database>,
  config: Config,
  chosen: readonly Scope[],
  otherKnown: 'defaults' | 'refuse',
): Promise<ScopeSettings[]> {
  if (otherKnown === 'defaults') await requireKnownScopes(db, config, chosen);
  const configured = new Map(config.scopes.map((s) => [s.scope.key, s]));
  if (chosen.every((s) => configured.has(s.key))) return chosen.map((s) => configured.get(s.key)!);
  const discovered = new Map((await listKnownScopes(db)).filter((k) => k.origin === 'discovered').map((k) => [k.scope, k]));
  const refused: string[] = [];
  const settings = chosen.map((scope) => {
    const own = configured.get(scope.key);
    if (own) return own;
    const org = configured.get(discovered.get(scope.key)?.discoveredBy ?? '');
    if (org) return discoveredProjectSettings(org, scope);
    if (otherKnown === 'refuse') refused.push(refusal(scope, discovered.get(scope.key), config));
    return scopeSettings(config, scope);
  });
  if (refused.length > 0) throw new UsageError(refused.join('; '));
  return settings;
}

function refusal(scope: Scope, discovered: KnownScope | undefined, config: Config): string {
  if (discovered?.discoveredBy) {
    return (
      `--scope ${scope.key} was discovered by ${discovered.discoveredBy}, which is no longer configured: ` +
      `add ${discovered.discoveredBy} (with discoverProjects) or ${scope.key} to EVENTS_SCOPES`
    );
  }
  const listed = config.scopes.map((s) => s.scope.key).sort();
  return (
    `--scope ${scope.key} is neither configured (configured: ${listed.join(', ') || 'none'}) nor a project a configured organization discovered: ` +
    `add it to EVENTS_SCOPES, or add its organization with discoverProjects and run npx events-mirror sync --once, or drop the flag`
  );
}
