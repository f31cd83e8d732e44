/** `events-mirror checkpoint --scope S [--set ISO | --reset]`: show or move a scope's checkpoint. */
import type { Command } from 'commander';
import { scopeSettings } from '../config.js';
import { UsageError } from '../errors.js';
import type { Scope } from '../scope.js';
import { changeCheckpoint } from '../sync/checkpoint.js';
import { scopeLockFor } from '../sync/lock.js';
import { openWarehouse, syncSettings } from '../sync/runtime.js';
import { formatTimestamp } from '../time.js';
import { getSyncState, type SyncState } from '../warehouse/state.repository.js';
import { EXIT_OK, action, createContext } from './context.js';
import { requireKnownScopes } from './known-scopes.js';
import { isoDate, scopeArg } from './options.js';

interface CheckpointOptions {
  scope: Scope;
  set?: Date;
  reset?: boolean;
}

export function registerCheckpointCommand(program: Command): void {
  program
    .command('checkpoint')
    .description("show a scope's checkpoint and the settings it covers; move it back with --set, or --reset it")
    .requiredOption('--scope <scope>', 'org:<orgId> or group:<groupId>', scopeArg)
    .option(
      '--set <iso>',
      'move the checkpoint back to this date (a date is its 00:00:00Z) or UTC date-time: the next sync reads from there (never forward)',
      isoDate,
    )
    .option('--reset', 'forget the checkpoint: the next sync reads from the start date (EVENTS_START_DATE, or 30 days back)')
    .action(action(async (options: CheckpointOptions) => runCheckpoint(options)));
}

async function runCheckpoint(options: CheckpointOptions): Promise<number> {
  if (options.set && options.reset) throw new UsageError('--set and --reset both given: choose one');
  const { config, logger } = createContext({ logFd: 2, interactive: true });
  const warehouse = await openWarehouse(config, logger);
  try {
    await requireKnownScopes(warehouse.db, config, [options.scope]);
    const key = options.scope.key;
    if (!options.set && !options.reset) {
      process.stdout.write(describe(key, await getSyncState(warehouse.db, key)));
      return EXIT_OK;
    }
    const { before, after } = await changeCheckpoint(
      { warehouse, lock: scopeLockFor(warehouse), settings: syncSettings(config), now: () => new Date() },
      scopeSettings(config, options.scope),
      options.set ? { kind: 'set', to: options.set } : { kind: 'reset' },
    );
    process.stdout.write(
      `${key}: checkpoint ${formatTimestamp(before?.watermark)} → ${after?.watermark ? formatTimestamp(after.watermark) : 'none (the next sync starts from the start date)'}; recorded in sync_runs\n`,
    );
    return EXIT_OK;
  } finally {
    await warehouse.close();
  }
}

function describe(key: string, state: SyncState | undefined): string {
  if (!state?.watermark) return `${key}: no checkpoint (the next sync starts from the start date)\n`;
  const s = state.settings;
  const settings = s
    ? `event types ${s.eventTypes.length > 0 ? s.eventTypes.join(', ') : 'all'}, raw ${s.includeRaw ? 'included' : 'not included'}, start date ${s.startDate ?? 'default'}`
    : 'settings not recorded';
  return `${key}: checkpoint ${formatTimestamp(state.watermark)} (${settings}); last success ${formatTimestamp(state.lastSuccessAt)}\n`;
}
