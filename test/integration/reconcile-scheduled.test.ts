/**
 * Nobody runs a command: a scheduler and a worker process, with reconcile scheduled every few
 * seconds, heal a hole that continuous polling cannot (events published hours after their created
 * time), and the worker's /metrics says so.
 */
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSyncQueue } from '../../src/queue/scheduler.js';
import { createWarehouse, type Warehouse } from '../../src/warehouse/database.js';
import { expectMirrorEqualsEmulator, mirroredIds } from '../helpers/mirror.js';
import { freePort, startCli, waitFor, watermarks, type CliProcess } from '../helpers/queue-processes.js';
import { REDIS_URL } from '../helpers/services.js';
import { daysAgo, startSyncFixture, type SyncFixture } from '../helpers/sync-fixture.js';

const HOUR = 3_600_000;

describe('scheduled reconcile', () => {
  let fixture: SyncFixture;
  let warehouse: Warehouse;
  const processes: CliProcess[] = [];
  const prefix = `em-test-${randomUUID()}`;

  beforeAll(async () => {
    fixture = await startSyncFixture(
      { seed: 141, orgs: ['5f0000000000000000000141'], groups: ['6a0000000000000000000141'], eventsPerScope: 3000, days: 2 },
      { EVENTS_START_DATE: daysAgo(2.5).toISOString() },
    );
    warehouse = await createWarehouse({ url: fixture.database.url, schema: 'events_mirror', dataDir: 'unused' });
  });
  afterAll(async () => {
    await Promise.all(processes.map((p) => p.stop('SIGKILL').catch(() => undefined)));
    const connection = new Redis(REDIS_URL, { maxRetriesPerRequest: null });
    try {
      await createSyncQueue(connection, prefix).obliterate({ force: true });
    } finally {
      await connection.quit();
    }
    await warehouse?.close();
    await fixture?.close();
  });

  it('heals a hole continuous polling cannot see, with no command run', async () => {
    const { dataset } = fixture.emulator;
    const scopes = dataset.scopes();
    const metricsPort = await freePort();
    const env = {
      ...fixture.envWith({ sync: { lookbackSeconds: 30, settleSeconds: 1 }, reconcile: { days: 3 } }),
      REDIS_PREFIX: prefix,
      EVENTS_POLL_INTERVAL_SECONDS: '2',
      EVENTS_RECONCILE_INTERVAL_SECONDS: '6',
      METRICS_PORT: String(metricsPort),
    };
    processes.push(startCli('scheduler', ['scheduler'], env), startCli('worker', ['worker'], env));
    await waitFor('every scope caught up', async () => {
      const marks = await watermarks(warehouse.db);
      return scopes.every((scope) => (marks.get(scope)?.getTime() ?? 0) > Date.now() - 60_000);
    });

    // Published now, created hours ago: behind every poll's 30-second lookback.
    const late = scopes.flatMap((scope) =>
      [3, 20, 40].flatMap((hoursAgo) =>
        dataset.addEvents(scope, 2, { createdMs: Date.now() - hoursAgo * HOUR }).map((e) => ({ scope, id: e.id! })),
      ),
    );
    await waitFor(
      'the late events mirrored by a scheduled reconcile',
      async () => {
        for (const { scope, id } of late) if (!(await mirroredIds(warehouse.db, scope)).includes(id)) return false;
        return true;
      },
      120_000,
    );
    await expectMirrorEqualsEmulator(warehouse.db, dataset, scopes);
    // Every late event was written by a reconcile. Counted over every finished run, whatever its
    // result: a run already reading when the late events appeared can recover some of them and still
    // end 'differs' (the listing changed under it). And the run that wrote the last of them may still
    // be checking its other windows: its count lands when it finishes.
    const finishedRuns = () =>
      warehouse.db
        .selectFrom('reconcile_runs')
        .select(['scope', 'events_recovered', 'events_missing', 'result'])
        .where('result', '!=', 'running')
        .execute();
    const recoveredBy = (runs: Awaited<ReturnType<typeof finishedRuns>>) => runs.reduce((sum, run) => sum + run.events_recovered, 0);
    await waitFor('the runs that recovered them to finish', async () => recoveredBy(await finishedRuns()) >= late.length, 60_000).catch(
      () => undefined,
    );
    const runs = await finishedRuns();
    expect(recoveredBy(runs), JSON.stringify(runs.filter((run) => run.result !== 'consistent'))).toBe(late.length);

    const metrics = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
    for (const scope of scopes) {
      expect(metrics).toMatch(new RegExp(`events_mirror_reconcile_events_recovered_total\\{scope="${scope}"\\} [1-9]`));
      expect(metrics).toMatch(new RegExp(`events_mirror_reconcile_windows_checked_total\\{scope="${scope}"\\} [1-9]`));
      expect(metrics).toMatch(new RegExp(`events_mirror_reconcile_last_success_timestamp_seconds\\{scope="${scope}"\\} \\d`));
    }
    for (const process of processes.splice(0)) expect((await process.stop('SIGTERM')).code, process.output()).toBe(0);
  }, 240_000);
});
