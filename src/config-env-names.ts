/**
 * Environment variables that look like ours but are not read: `EVENTS_SYNC_CONCURENCY=3` would
 * otherwise be ignored in silence. A variable with a prefix the project owns (`EVENTS_`, which
 * `EVENTS_MIRROR_` is part of, and `WAREHOUSE_`) that no setting reads gets a warning naming the
 * closest name that is read. `DATABASE_`, `REDIS_`, `WORKER_` and the like are shared with other
 * software on the same host and are left alone.
 */
import { ENV_BINDINGS, SECRET_FILE_BINDINGS } from './config.js';

export const OWNED_PREFIXES: readonly string[] = ['EVENTS_', 'WAREHOUSE_'];

/** Read outside the bindings: the config file's path. */
const OTHER_NAMES: readonly string[] = ['EVENTS_MIRROR_CONFIG'];

export interface UnknownVariable {
  readonly name: string;
  /** The variable read whose name is nearest, when one is near enough to be the one meant. */
  readonly closest: string | undefined;
}

/** `alsoRead`: names a config file makes ours (a credential's `publicKeyEnv`, `privateKeyEnv`, …). */
export function unknownVariables(env: NodeJS.ProcessEnv, alsoRead: Iterable<string> = []): UnknownVariable[] {
  const read = new Set([
    ...ENV_BINDINGS.map((b) => b.name),
    ...SECRET_FILE_BINDINGS.map((b) => `${b.name}_FILE`),
    ...OTHER_NAMES,
    ...[...alsoRead].flatMap((name) => [name, `${name}_FILE`]),
  ]);
  const owned = [...read].filter((name) => OWNED_PREFIXES.some((prefix) => name.startsWith(prefix)));
  return Object.keys(env)
    .filter((name) => OWNED_PREFIXES.some((prefix) => name.startsWith(prefix)) && !read.has(name))
    .sort()
    .map((name) => ({ name, closest: closestName(name, owned) }));
}

/** `EVENTS_SYNC_CONCURENCY is not a variable events-mirror reads (…)`: the warning's words. */
export function describeUnknownVariable(unknown: UnknownVariable): string {
  const meant = unknown.closest ? `did you mean ${unknown.closest}? ` : '';
  return `${unknown.name} is not a variable events-mirror reads: it is ignored (${meant}the variables are listed in docs/configuration.md)`;
}

/** The candidate fewest single-character edits away, if within a third of the name's length. */
function closestName(name: string, candidates: readonly string[]): string | undefined {
  let best: { name: string; distance: number } | undefined;
  for (const candidate of candidates) {
    const distance = editDistance(name, candidate);
    if (!best || distance < best.distance) best = { name: candidate, distance };
  }
  return best && best.distance <= Math.max(2, Math.floor(name.length / 3)) ? best.name : undefined;
}

/** Levenshtein distance, one row at a time (see docs/architecture.md, dependency notes). */
function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      row[j] = Math.min(previous[j]! + 1, row[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = row;
  }
  return previous[b.length]!;
}

/** The variables the settings' credentials name (`publicKeyEnv`, `clientSecretEnv`, …): those are read too. */
export function credentialVariables(settings: Readonly<Record<string, unknown>>): string[] {
  const credentials = settings.credentials;
  if (typeof credentials !== 'object' || credentials === null) return [];
  return Object.values(credentials as Record<string, unknown>).flatMap((credential) =>
    typeof credential === 'object' && credential !== null
      ? Object.entries(credential as Record<string, unknown>).flatMap(([key, value]) =>
          key.endsWith('Env') && typeof value === 'string' ? [value] : [],
        )
      : [],
  );
}
