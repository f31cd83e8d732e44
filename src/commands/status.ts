/** `events-mirror status`: per scope watermark, lag, last run, last error, events held. */
import type { Command } from 'commander';
import { renderStatus } from '../report/status-report.js';
import { openWarehouse } from '../sync/runtime.js';
import { lastReconciles } from '../warehouse/reconcile.repository.js';
import { listKnownScopes } from '../warehouse/scopes.repository.js';
import { countEventsByScope, listSyncStates } from '../warehouse/state.repository.js';
import { EXIT_OK, action, createContext } from './context.js';

export function registerStatusCommand(program: Command): void {
  program
    .command('status')
    .description('per scope: watermark, lag, last success, last error, events held, last reconcile')
    .action(
      action(async () => {
        const { config, logger } = createContext({ logFd: 2 });
        const warehouse = await openWarehouse(config, logger);
        try {
          const [states, counts, reconciles, known] = await Promise.all([
            listSyncStates(warehouse.db),
            countEventsByScope(warehouse.db),
            lastReconciles(warehouse.db),
            listKnownScopes(warehouse.db),
          ]);
          const configured = config.scopes.map((s) => s.scope.key);
          process.stdout.write(renderStatus({ states, counts, reconciles, configured, known, now: new Date() }));
          return EXIT_OK;
        } finally {
          await warehouse.close();
        }
      }),
    );
}
