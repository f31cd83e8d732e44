/** `events-mirror status`'s work, loaded when the command runs: status.ts defines its flags. */
import type { Scope } from '../scope.js';
import { UsageError } from '../errors.js';
import { commandJson, printableJson } from '../report/json-output.js';
import { renderListings } from '../report/listings-status.js';
import { PROCESSES_WINDOW_MS, processesJson, renderProcesses } from '../report/processes-status.js';
import { listProcesses } from '../warehouse/processes.repository.js';
import { renderSchemaChanges, renderSchemaChangesLine } from '../report/schema-changes.js';
import { needsAttention } from '../report/scope-health.js';
import { renderScopeStatus, renderStatus } from '../report/status-report.js';
import { openWarehouse } from '../sync/open-warehouse.js';
import { schemaChangesSince } from '../warehouse/event-schema.repository.js';
import { catalogDifferences } from '../warehouse/event-type-catalog.repository.js';
import { EXIT_FAILURE, EXIT_OK, createContext } from './context.js';
import { lagThresholdMs, readFleet } from './fleet.js';
import { SCHEMA_CHANGES_DAYS } from '../report/schema-changes.js';

export interface StatusFlags {
  scope?: Scope;
  failing?: boolean;
  /** true: the default threshold; a number: seconds. */
  lagging?: boolean | number;
  all?: boolean;
  json?: boolean;
  schemaChanges?: boolean;
}

/**
 * The exit code of `status` (docs/commands.md, "status"): 1 when a scope it judged (the one of
 * --scope, else all) is failing or lagging past the threshold, whatever the flags show; else 0.
 */
function exitCodeFor(health: Parameters<typeof needsAttention>[0]): number {
  return needsAttention(health) ? EXIT_FAILURE : EXIT_OK;
}

/** `status --schema-changes` lists this many; the event_catalog view has them all. */
const SCHEMA_CHANGES_LISTED = 200;

export async function runStatus(flags: StatusFlags): Promise<number> {
  if (flags.failing && flags.lagging !== undefined) {
    throw new UsageError('--failing and --lagging both given: choose one (a failing scope is not counted as lagging)');
  }
  if (flags.schemaChanges && (flags.scope || flags.failing || flags.lagging !== undefined || flags.json)) {
    throw new UsageError('--schema-changes lists schema changes only: drop --scope, --failing, --lagging and --json');
  }
  const { config, logger } = createContext({ logFd: 2, interactive: true });
  const warehouse = await openWarehouse(config, logger);
  try {
    const now = new Date();
    const since = new Date(now.getTime() - SCHEMA_CHANGES_DAYS * 86_400_000);
    if (flags.schemaChanges) {
      const [changes, catalog] = await Promise.all([
        schemaChangesSince(warehouse.db, since, SCHEMA_CHANGES_LISTED),
        catalogDifferences(warehouse.db, since),
      ]);
      process.stdout.write(renderSchemaChanges({ ...changes, catalog }, SCHEMA_CHANGES_DAYS));
      return EXIT_OK;
    }
    const threshold = lagThresholdMs(config, typeof flags.lagging === 'number' ? flags.lagging : undefined);
    const [fleet, processes] = await Promise.all([
      readFleet(warehouse.db, config, { now, lagThresholdMs: threshold, countEvents: true }),
      listProcesses(warehouse.db, new Date(now.getTime() - PROCESSES_WINDOW_MS)),
    ]);
    if (flags.scope) {
      const key = flags.scope.key;
      const one = fleet.health.find((h) => h.scope === key);
      if (!one) {
        const all = fleet.health.map((h) => h.scope).sort();
        throw new UsageError(`--scope ${key} is neither configured nor in the warehouse; known: ${all.join(', ') || 'none'}`);
      }
      process.stdout.write(
        flags.json ? printableJson(commandJson('status', now, fleet.summary, [one])) : renderScopeStatus(one, threshold),
      );
      return exitCodeFor([one]);
    }
    const filter = flags.failing ? 'failing' : flags.lagging !== undefined ? 'lagging' : undefined;
    const rows = filter ? fleet.health.filter((h) => h.state === filter) : fleet.health;
    if (flags.json) {
      process.stdout.write(printableJson({ ...commandJson('status', now, fleet.summary, rows), processes: processesJson(processes, now) }));
      return exitCodeFor(fleet.health);
    }
    process.stdout.write(renderStatus(fleet.summary, { rows, filter, all: flags.all === true }, now));
    if (filter) return exitCodeFor(fleet.health);
    process.stdout.write(renderListings(fleet.known));
    process.stdout.write(renderProcesses(processes, now));
    const [schemaChanges, catalog] = await Promise.all([
      schemaChangesSince(warehouse.db, since, 0),
      catalogDifferences(warehouse.db, since),
    ]);
    process.stdout.write(renderSchemaChangesLine({ ...schemaChanges, catalog }, SCHEMA_CHANGES_DAYS));
    return exitCodeFor(fleet.health);
  } finally {
    await warehouse.close();
  }
}
