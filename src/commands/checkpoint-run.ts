/** `events-mirror checkpoint`'s work, loaded when the command runs: checkpoint.ts defines its flags. */
import type { Scope } from '../scope.js';
import type { Kysely } from 'kysely';
import type { Config } from '../config.js';
import { UsageError } from '../errors.js';
import { changeCheckpoint } from '../sync/checkpoint.js';
import { scopeLockFor } from '../sync/lock.js';
import { openWarehouse, syncSettings } from '../sync/open-warehouse.js';
import type { ScopeRunJson } from '../report/json-output.js';
import { wrapList } from '../report/wrap-list.js';
import { formatTimestamp, isoTimestamp } from '../time.js';
import { getSyncState, type SyncState } from '../warehouse/state.repository.js';
import type { Database } from '../warehouse/tables.js';
import { EXIT_OK, createContext } from './context.js';
import { scopesRunJson } from './fleet.js';
import { namedScopeSettings } from './known-scopes.js';

export interface CheckpointOptions {
  scope: Scope;
  set?: Date;
  reset?: boolean;
  json?: boolean;
}

export async function runCheckpoint(options: CheckpointOptions): Promise<number> {
  if (options.set && options.reset) throw new UsageError('--set and --reset both given: choose one');
  const { config, logger } = createContext({ logFd: 2, interactive: true });
  const warehouse = await openWarehouse(config, logger);
  try {
    const [settings] = await namedScopeSettings(warehouse.db, config, [options.scope], 'defaults');
    const key = options.scope.key;
    if (!options.set && !options.reset) {
      const state = await getSyncState(warehouse.db, key);
      process.stdout.write(
        options.json
          ? await checkpointJson(warehouse.db, config, key, { before: state, after: state, action: 'show' })
          : describe(key, state),
      );
      return EXIT_OK;
    }
    const { before, after } = await changeCheckpoint(
      { warehouse, lock: scopeLockFor(warehouse), settings: syncSettings(config), now: () => new Date() },
      settings!,
      options.set ? { kind: 'set', to: options.set } : { kind: 'reset' },
    );
    if (options.json) {
      process.stdout.write(await checkpointJson(warehouse.db, config, key, { before, after, action: options.set ? 'set' : 'reset' }));
      return EXIT_OK;
    }
    // One field a line, within 80 columns for a 30-character scope key.
    process.stdout.write(
      `${key}: checkpoint changed, recorded in sync_runs\n` +
        `  was  ${formatTimestamp(before?.watermark)}\n` +
        `  now  ${after?.watermark ? formatTimestamp(after.watermark) : 'none (the next sync starts from the start date)'}\n`,
    );
    return EXIT_OK;
  } finally {
    await warehouse.close();
  }
}

/** The JSON document: the scope as status shows it, the checkpoint before and after under `run`. */
async function checkpointJson(
  db: Kysely<Database>,
  config: Config,
  key: string,
  change: { before: SyncState | undefined; after: SyncState | undefined; action: 'show' | 'set' | 'reset' },
): Promise<string> {
  const at = (s: SyncState | undefined) => (s?.watermark ? isoTimestamp(s.watermark) : null);
  const settings = change.after?.settings ?? null;
  const run: ScopeRunJson = {
    kind: 'checkpoint',
    action: change.action,
    before: at(change.before),
    after: at(change.after),
    settings: settings && {
      eventTypes: [...settings.eventTypes],
      includeRaw: settings.includeRaw,
      startDate: settings.startDate,
      excludeEventTypes: settings.excludeEventTypes ? [...settings.excludeEventTypes] : null,
      clusterNames: settings.clusterNames ? [...settings.clusterNames] : null,
    },
  };
  return scopesRunJson(db, config, 'checkpoint', new Date(), new Map([[key, run]]));
}

function describe(key: string, state: SyncState | undefined): string {
  if (!state?.watermark) return `${key}: no checkpoint (the next sync starts from the start date)\n`;
  const s = state.settings;
  // One field a line, within 80 columns for a 30-character scope key; the event types wrap under themselves.
  const settings = s
    ? [
        ...wrapList('  event types   ', s.eventTypes.length > 0 ? s.eventTypes : ['all'], ' '.repeat(16)),
        `  raw           ${s.includeRaw ? 'included' : 'not included'}`,
        `  start date    ${s.startDate ?? 'default'}`,
      ]
    : ['  settings      not recorded'];
  return [
    `${key}: checkpoint ${formatTimestamp(state.watermark)}`,
    ...settings,
    `  last success  ${formatTimestamp(state.lastSuccessAt)}`,
    '',
  ].join('\n');
}
