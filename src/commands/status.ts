/** `events-mirror status`: per scope watermark, lag, last run, last error, events held; schema changes in one line. */
import type { Command } from 'commander';
import { renderListings } from '../report/listings-status.js';
import { UsageError } from '../errors.js';
import { renderSchemaChanges, renderSchemaChangesLine } from '../report/schema-changes.js';
import { renderScopeStatus, renderStatus } from '../report/status-report.js';
import type { Scope } from '../scope.js';
import { openWarehouse } from '../sync/runtime.js';
import { schemaChangesSince } from '../warehouse/event-schema.repository.js';
import { catalogDifferences } from '../warehouse/event-type-catalog.repository.js';
import { lastReconciles } from '../warehouse/reconcile.repository.js';
import { listKnownScopes } from '../warehouse/scopes.repository.js';
import { countEventsByScope, listSyncStates } from '../warehouse/state.repository.js';
import { EXIT_OK, action, createContext } from './context.js';
import { scopeArg } from './options.js';

const SCHEMA_CHANGES_DAYS = 7;
/** `status --schema-changes` lists this many; the event_catalog view has them all. */
const SCHEMA_CHANGES_LISTED = 200;

interface StatusFlags {
  scope?: Scope;
  schemaChanges?: boolean;
}

export function registerStatusCommand(program: Command): void {
  program
    .command('status')
    .description(
      `per scope: watermark, lag, last success, last error (cut; whole with --scope), events held, last reconcile; then the schema changes of the last ${SCHEMA_CHANGES_DAYS} days in one line`,
    )
    .option('--scope <scope>', 'only this scope, one line per field, its last error whole', scopeArg)
    .option(
      '--schema-changes',
      `list the event types and fields first seen in the last ${SCHEMA_CHANGES_DAYS} days instead (and, with an Atlas v2 source, the types the event type catalogue lacks or dropped)`,
    )
    .action(
      action(async (flags: StatusFlags) => {
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
          const [states, counts, reconciles, known, schemaChanges, catalog] = await Promise.all([
            listSyncStates(warehouse.db),
            countEventsByScope(warehouse.db),
            lastReconciles(warehouse.db),
            listKnownScopes(warehouse.db),
            schemaChangesSince(warehouse.db, since, 0),
            catalogDifferences(warehouse.db, since),
          ]);
          const configured = config.scopes.map((s) => s.scope.key);
          const input = { states, counts, reconciles, configured, known, now };
          if (flags.scope) {
            const all = [...new Set([...configured, ...known.map((k) => k.scope), ...states.map((s) => s.scope)])].sort();
            if (!all.includes(flags.scope.key)) {
              throw new UsageError(
                `--scope ${flags.scope.key} is neither configured nor in the warehouse; known: ${all.join(', ') || 'none'}`,
              );
            }
            process.stdout.write(renderScopeStatus(flags.scope.key, input));
            return EXIT_OK;
          }
          process.stdout.write(renderStatus(input));
          process.stdout.write(renderListings(known));
          process.stdout.write(renderSchemaChangesLine({ ...schemaChanges, catalog }, SCHEMA_CHANGES_DAYS));
          return EXIT_OK;
        } finally {
          await warehouse.close();
        }
      }),
    );
}
