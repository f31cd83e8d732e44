/**
 * The health of the scopes, read from the warehouse: what `status` shows and what every `--json`
 * document (status, sync --once, reconcile, checkpoint) holds for each scope.
 */
import type { Kysely } from 'kysely';
import type { Config } from '../config.js';
import { commandJson, printableJson, type CommandJson, type ScopeRunJson } from '../report/json-output.js';
import { scopeHealth, summarize, type FleetSummary, type ScopeHealth } from '../report/scope-health.js';
import { lastReconciles } from '../warehouse/reconcile.repository.js';
import { listKnownScopes, type KnownScope } from '../warehouse/scopes.repository.js';
import { countEventsByScope, listSyncStates } from '../warehouse/state.repository.js';
import type { Database } from '../warehouse/tables.js';

/**
 * A scope is lagging when its checkpoint is further behind than this: by default three poll
 * periods and the settle time, the threshold of the EventsMirrorScopeLagging alert (185 s at the
 * defaults), so status and the alert agree.
 */
export function lagThresholdMs(config: Config, seconds?: number): number {
  return (seconds ?? 3 * config.scheduler.pollIntervalSeconds + config.sync.settleSeconds) * 1000;
}

export interface Fleet {
  readonly health: ScopeHealth[];
  readonly summary: FleetSummary;
  readonly known: KnownScope[];
}

/** Every scope's health, worst first, and the summary over them all. */
export async function readFleet(
  db: Kysely<Database>,
  config: Config,
  options: { readonly now: Date; readonly lagThresholdMs: number; readonly countEvents: boolean },
): Promise<Fleet> {
  const [states, counts, reconciles, known] = await Promise.all([
    listSyncStates(db),
    options.countEvents ? countEventsByScope(db) : Promise.resolve(undefined),
    lastReconciles(db),
    listKnownScopes(db),
  ]);
  const health = scopeHealth(
    { states, ...(counts ? { counts } : {}), reconciles, known, configured: config.scopes.map((s) => s.scope.key), now: options.now },
    options.lagThresholdMs,
  );
  return { health, summary: summarize(health, options.lagThresholdMs), known };
}

/** The health of `scopes` only (the ones a command worked on), in that order, and their summary. */
export async function readScopes(
  db: Kysely<Database>,
  config: Config,
  scopes: readonly string[],
  options: { readonly now: Date; readonly lagThresholdMs: number },
): Promise<{ health: ScopeHealth[]; summary: FleetSummary }> {
  const fleet = await readFleet(db, config, { ...options, countEvents: false });
  const byScope = new Map(fleet.health.map((h) => [h.scope, h]));
  const health = scopes.map((s) => byScope.get(s)).filter((h): h is ScopeHealth => h !== undefined);
  return { health, summary: summarize(health, options.lagThresholdMs) };
}

/**
 * The `--json` document of a command that worked on some scopes (sync --once, reconcile,
 * checkpoint): each scope's health as the warehouse now has it, with what this run did to it.
 */
export async function scopesRunJson(
  db: Kysely<Database>,
  config: Config,
  command: CommandJson['command'],
  now: Date,
  runs: ReadonlyMap<string, ScopeRunJson>,
): Promise<string> {
  const { health, summary } = await readScopes(db, config, [...runs.keys()], { now, lagThresholdMs: lagThresholdMs(config) });
  return printableJson(commandJson(command, now, summary, health, runs));
}
