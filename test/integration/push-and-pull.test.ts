/**
 * Both paths end to end, over real HTTP on a real PostgreSQL: the emulator pushes its live events
 * as the service's export does (batches, duplicates) to the `receive` process, which lands every
 * event exactly once; then `sync --once` pulls the same events and each row takes the API's
 * representation, still one row per event, counted once by the views.
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWarehouse, type Warehouse } from '../../src/warehouse/database.js';
import { runCli, writeConfigFile } from '../helpers/cli.js';
import { createMigratedTestDatabase, type TestDatabase } from '../helpers/database.js';
import { emulatorEnv, startTestEmulator, type RunningEmulator } from '../helpers/emulator.js';
import { expectMirrorEqualsEmulator } from '../helpers/mirror.js';
import { freePort, startCli, waitFor, type CliProcess } from '../helpers/queue-processes.js';

const TOKEN = 'push-and-pull-token-0123456789';

describe('push then pull (PostgreSQL, the receive process, the emulator pushing)', () => {
  let database: TestDatabase;
  let warehouse: Warehouse;
  let emulator: RunningEmulator;
  let receiver: CliProcess;
  let port: number;

  beforeAll(async () => {
    database = await createMigratedTestDatabase();
    warehouse = await createWarehouse({ url: database.url, schema: 'events_mirror', dataDir: 'unused', poolSize: 2 });
    port = await freePort();
    receiver = startCli('receive', ['receive', '--metrics-host', '127.0.0.1'], {
      DATABASE_URL: database.url,
      RECEIVER_HOST: '127.0.0.1',
      RECEIVER_PORT: String(port),
      RECEIVER_METRICS_PORT: String(await freePort()),
      RECEIVER_TOKEN: TOKEN,
      LOG_LEVEL: 'info',
    });
    await waitFor('the receiver to listen', async () => receiver.output().includes('receiving the event export'), 60_000);
  });
  afterAll(async () => {
    await emulator?.close();
    await receiver?.stop();
    await warehouse?.close();
    await database?.drop();
  });

  it('lands every pushed event exactly once, and the pull leaves one row per event in the API representation', async () => {
    emulator = await startTestEmulator({
      eventsPerScope: 0,
      liveRatePerSecond: 4,
      push: { url: `http://127.0.0.1:${port}/v1/logs`, token: TOKEN, intervalMs: 250, dropRate: 0, duplicateRate: 0.3, maxAttempts: 8 },
    });
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    emulator.setLiveRate(0);
    await emulator.stopPush();
    const pushed = emulator.pushStats()!;
    expect(pushed.failedBatches).toBe(0);
    expect(pushed.duplicatedBatches).toBeGreaterThan(0);
    const scopes = emulator.dataset.scopes();
    // Every live event, once, provisional, under its own scope.
    await expectMirrorEqualsEmulator(warehouse.db, emulator.dataset, scopes);
    const total = scopes.reduce((sum, scope) => sum + emulator.dataset.validIds(scope).size, 0);
    expect(total).toBeGreaterThan(20);
    const bySource = await sql<{ source: string; n: number }>`select source, count(*)::int as n from events group by source`.execute(
      warehouse.db,
    );
    expect(bySource.rows).toEqual([{ source: 'push', n: total }]);
    // The duplicated batches were delivered twice and changed nothing the second time.
    expect(pushed.events).toBeGreaterThan(total);

    // settleSeconds 0: the pull reads up to now, the events of the last seconds included.
    const sync = await runCli(['sync', '--once'], {
      ...emulatorEnv(emulator),
      DATABASE_URL: database.url,
      EVENTS_START_DATE: new Date(Date.now() - 3_600_000).toISOString(),
      EVENTS_MIRROR_CONFIG: writeConfigFile({ sync: { settleSeconds: 0 } }),
    });
    expect(sync.code, sync.stderr).toBe(0);
    await expectMirrorEqualsEmulator(warehouse.db, emulator.dataset, scopes);
    const after = await sql<{ source: string; with_record: number; n: number }>`
      select source, count(pushed)::int as with_record, count(*)::int as n from events group by source`.execute(warehouse.db);
    expect(after.rows).toEqual([{ source: 'pull', with_record: total, n: total }]);
    // The row holds the API's own event, not the mapping.
    const [scope] = scopes;
    const api = emulator.dataset.allEvents(scope!)[0]!;
    const row = await warehouse.db
      .selectFrom('events')
      .select(['payload', 'provisional'])
      .where('id', '=', api.id!)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ payload: api, provisional: false });
    const perDay = await sql<{ n: number }>`select sum(events)::int as n from events_per_day`.execute(warehouse.db);
    expect(perDay.rows[0]?.n).toBe(total);
  }, 180_000);

  it('heals with reconcile every event of the batches the export lost, 5 % dropped and 5 % duplicated', async () => {
    await emulator.close();
    emulator = await startTestEmulator({
      seed: 7,
      eventsPerScope: 0,
      liveRatePerSecond: 3,
      push: { url: `http://127.0.0.1:${port}/v1/logs`, token: TOKEN, intervalMs: 40, dropRate: 0.05, duplicateRate: 0.05, maxAttempts: 8 },
    });
    const from = new Date(Date.now() - 60_000).toISOString();
    await waitFor(
      'a dropped and a duplicated batch',
      async () => {
        const stats = emulator.pushStats()!;
        return stats.droppedBatches >= 2 && stats.duplicatedBatches >= 2;
      },
      60_000,
      100,
    );
    emulator.setLiveRate(0);
    await emulator.stopPush();
    const pushed = emulator.pushStats()!;
    const scopes = emulator.dataset.scopes();
    const dropped = new Set(pushed.droppedIds);
    const held = async () =>
      new Set((await warehouse.db.selectFrom('events').select('id').where('scope', 'in', scopes).execute()).map((row) => row.id));
    const expected = new Set(scopes.flatMap((scope) => [...emulator.dataset.validIds(scope)]));
    const before = await held();
    // What the push delivered is there; exactly the dropped batches' events are missing.
    expect([...expected].filter((id) => !before.has(id)).sort()).toEqual([...dropped].sort());
    expect(dropped.size).toBeGreaterThan(0);

    const reconcile = await runCli(['reconcile', '--from', from, '--to', new Date().toISOString()], {
      ...emulatorEnv(emulator),
      DATABASE_URL: database.url,
      EVENTS_MIRROR_CONFIG: writeConfigFile({ sync: { settleSeconds: 0 } }),
    });
    expect(reconcile.stderr).not.toMatch(/error/i);
    const after = await held();
    expect([...after].sort()).toEqual([...expected].sort());
    // Each healed event is a pulled row the export never delivered: the holes, counted.
    const holes = await warehouse.db
      .selectFrom('events')
      .select('id')
      .where('scope', 'in', scopes)
      .where('source', '=', 'pull')
      .where('pushed', 'is', null)
      .execute();
    expect(holes.map((row) => row.id).sort()).toEqual([...dropped].sort());
  }, 180_000);
});
