/** The scopes a command works on: every configured one, or those named with `--scope`. */
import { requireScopes, scopeSettings, type Config, type ScopeSettings } from '../config.js';
import { UsageError } from '../errors.js';
import type { Scope } from '../scope.js';

export function selectScopes(config: Config, chosen: Scope[] | undefined): ScopeSettings[] {
  if (!chosen || chosen.length === 0) return [...requireScopes(config)];
  const known = new Set(config.scopes.map((s) => s.scope.key));
  const unknown = chosen.filter((s) => !known.has(s.key));
  if (unknown.length > 0 && config.scopes.length > 0) {
    throw new UsageError(
      `--scope ${unknown.map((s) => s.key).join(', ')} is not configured (configured: ${[...known].sort().join(', ')}): add it to EVENTS_SCOPES or drop the flag`,
    );
  }
  return chosen.map((scope) => scopeSettings(config, scope));
}
