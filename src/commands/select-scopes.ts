/**
 * The scopes a command works on: every configured one, or those named with `--scope` (configured,
 * or projects a configured organization discovered).
 */
import type { Kysely } from 'kysely';
import { requireScopes, type Config, type ScopeSettings } from '../config.js';
import type { Scope } from '../scope.js';
import type { Database } from '../warehouse/database.js';
import { namedScopeSettings } from './known-scopes.js';

export async function selectScopes(db: Kysely<Database>, config: Config, chosen: Scope[] | undefined): Promise<ScopeSettings[]> {
  if (!chosen || chosen.length === 0) return [...requireScopes(config)];
  return namedScopeSettings(db, config, chosen, 'refuse');
}

/** Before the warehouse is opened: without `--scope`, the clear line when no scope is configured, so nothing is written. */
export function requireScopesUnlessNamed(config: Config, chosen: Scope[] | undefined): void {
  if (!chosen || chosen.length === 0) requireScopes(config);
}
