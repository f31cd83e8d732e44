/**
 * A scope named on the command line must be one the mirror knows: configured, or held by the
 * warehouse (discovered projects, scopes synced before). A typo would otherwise write an empty
 * report, print "no checkpoint" or read a feed nobody asked for, and exit 0.
 */
import type { Kysely } from 'kysely';
import type { Config } from '../config.js';
import { UsageError } from '../errors.js';
import type { Scope } from '../scope.js';
import type { Database } from '../warehouse/database.js';
import { listKnownScopes } from '../warehouse/scopes.repository.js';
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
