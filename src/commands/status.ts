/** `events-mirror status`: per scope watermark, lag, last run, last error, events held. */
import type { Command } from 'commander';
import { renderListings } from '../report/listings-status.js';
import { renderSchemaChanges } from '../report/schema-changes.js';
import { renderStatus } from '../report/status-report.js';
import { openWarehouse } from '../sync/runtime.js';
import { schemaChangesSince } from '../warehouse/event-schema.repository.js';
import { lastReconciles } from '../warehouse/reconcile.repository.js';
import { listKnownScopes } from '../warehouse/scopes.repository.js';
import { countEventsByScope, listSyncStates } from '../warehouse/state.repository.js';
import { EXIT_OK, action, createContext } from './context.js';

const SCHEMA_CHANGES_DAYS = 7;
const SCHEMA_CHANGES_SHOWN = 20;

export function registerStatusCommand(program: Command): void {
  program
    .command('status')
    .description('per scope: watermark, lag, last success, last error, events held, last reconcile; then new event types and fields')
    .action(
      action(async () => {
        const { config, logger } = createContext({ logFd: 2 });
        const warehouse = await openWarehouse(config, logger);
        try {
          const now = new Date();
          const [states, counts, reconciles, known, schemaChanges] = await Promise.all([
            listSyncStates(warehouse.db),
            countEventsByScope(warehouse.db),
            lastReconciles(warehouse.db),
            listKnownScopes(warehouse.db),
            schemaChangesSince(warehouse.db, new Date(now.getTime() - SCHEMA_CHANGES_DAYS * 86_400_000), SCHEMA_CHANGES_SHOWN),
          ]);
          const configured = config.scopes.map((s) => s.scope.key);
          process.stdout.write(renderStatus({ states, counts, reconciles, configured, known, now }));
          process.stdout.write(renderListings(known));
          process.stdout.write(renderSchemaChanges(schemaChanges, SCHEMA_CHANGES_DAYS));
          return EXIT_OK;
        } finally {
          await warehouse.close();
        }
      }),
    );
}
