/**
 * Housekeeping of `sync_runs`: runs older than the retention are deleted, and runs left `running`
 * by a process that died are marked `abandoned` — only for scopes no runner holds right now (the
 * scope lock says so), so a long run in progress is never marked.
 */
import type { Logger } from '../logger.js';
import { markAbandoned, pruneRuns, scopesWithStaleRunning } from '../warehouse/housekeeping.repository.js';
import type { SyncContext } from './run-window.js';

export interface HousekeepingSettings {
  readonly runRetentionDays: number;
  /** A run still `running` after this long, with nobody holding its scope, was cut off. */
  readonly abandonAfterSeconds: number;
}

export interface HousekeepingResult {
  readonly pruned: number;
  readonly abandoned: number;
}

export async function keepHouse(
  ctx: Pick<SyncContext, 'warehouse' | 'lock' | 'now'>,
  settings: HousekeepingSettings,
  logger: Logger,
): Promise<HousekeepingResult> {
  const db = ctx.warehouse.db;
  const now = ctx.now().getTime();
  const pruned = await pruneRuns(db, new Date(now - settings.runRetentionDays * 86_400_000));
  const staleBefore = new Date(now - settings.abandonAfterSeconds * 1000);
  let abandoned = 0;
  for (const scope of await scopesWithStaleRunning(db, staleBefore)) {
    const release = await ctx.lock.tryAcquire(scope);
    if (!release) continue; // a runner has it: its runs are alive
    try {
      abandoned += await markAbandoned(db, scope, staleBefore);
    } finally {
      await release();
    }
  }
  if (pruned + abandoned > 0) {
    logger.info(
      { pruned, abandoned },
      `sync_runs housekeeping: ${pruned} runs past the retention deleted, ${abandoned} cut-off runs marked abandoned`,
    );
  }
  return { pruned, abandoned };
}
