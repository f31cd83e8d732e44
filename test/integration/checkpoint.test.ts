/**
 * A checkpoint covers the settings it was made with. Widening a scope's event types used to leave
 * the checkpoint where it was, so the newly included history was never read; now the next sync
 * reads it. And `events-mirror checkpoint` shows, moves back or resets a scope's checkpoint, each
 * change recorded in sync_runs.
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWarehouse, type Warehouse } from '../../src/warehouse/database.js';
import { getSyncState } from '../../src/warehouse/state.repository.js';
import { runCli } from '../helpers/cli.js';
import { expectMirrorEqualsEmulator, mirroredIds } from '../helpers/mirror.js';
import { daysAgo, startSyncFixture, type SyncFixture } from '../helpers/sync-fixture.js';

const GROUP = 'group:6a0000000000000000000201';
/** A scope no test syncs before the one about a scope without a checkpoint. */
const FRESH = 'group:6a0000000000000000000202';
const TYPES = ['OUTSIDE_METRIC_THRESHOLD', 'HOST_DOWN'];

describe('checkpoints and the settings they cover', () => {
  let fixture: SyncFixture;
  let warehouse: Warehouse;

  beforeAll(async () => {
    fixture = await startSyncFixture(
      { seed: 201, orgs: ['5f0000000000000000000201'], groups: [GROUP.slice(6), FRESH.slice(6)], eventsPerScope: 1_500, days: 3 },
      { EVENTS_START_DATE: daysAgo(4).toISOString(), EVENTS_SCOPES: GROUP },
    );
    warehouse = await createWarehouse({ url: fixture.database.url, schema: 'events_mirror', dataDir: 'unused' });
  });
  afterAll(async () => {
    await warehouse?.close();
    await fixture?.close();
  });

  const typesHeld = async () =>
    (await warehouse.db.selectFrom('events').select('event_type_name').distinct().where('scope', '=', GROUP).execute())
      .map((r) => r.event_type_name)
      .sort();

  it('reads the history newly included when a scope widens its event types', async () => {
    const narrow = await runCli(['sync', '--once'], {
      ...fixture.envWith({ scopes: [{ scope: GROUP, eventTypes: TYPES }] }),
      EVENTS_SCOPES: '',
    });
    expect(narrow.code, narrow.stderr).toBe(0);
    expect(await typesHeld()).toEqual([...TYPES].sort());
    expect((await getSyncState(warehouse.db, GROUP))?.settings).toEqual({
      eventTypes: [...TYPES].sort(),
      includeRaw: false,
      startDate: expect.any(String),
    });

    const wide = await runCli(['sync', '--once'], { ...fixture.envWith({}), LOG_LEVEL: 'info' });
    expect(wide.code, wide.stderr).toBe(0);
    expect(wide.stderr).toContain('every event type is now read (was only some) since its checkpoint was made');
    await expectMirrorEqualsEmulator(warehouse.db, fixture.emulator.dataset, [GROUP]);
    expect((await getSyncState(warehouse.db, GROUP))?.settings).toMatchObject({ eventTypes: [] });
  }, 120_000);

  it('shows, moves back and resets a checkpoint, refusing to move it forward, and records each change', async () => {
    const env = fixture.envWith({});
    const shown = await runCli(['checkpoint', '--scope', GROUP], env);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toMatch(
      new RegExp(
        `^${GROUP}: checkpoint \\S+Z\n  event types   all\n  raw           not included\n  start date    \\S+\n  last success  \\S+Z\n$`,
      ),
    );
    // Every line fits 80 columns (issue 44, item 7).
    for (const line of shown.stdout.split('\n')) expect(line.length, line).toBeLessThanOrEqual(80);

    const before = (await getSyncState(warehouse.db, GROUP))!.watermark!;
    const forward = await runCli(['checkpoint', '--scope', GROUP, '--set', new Date(before.getTime() + 3_600_000).toISOString()], env);
    expect(forward.code).toBe(2);
    expect(forward.stderr).toContain('moving it forward would skip events');

    const back = daysAgo(1);
    const moved = await runCli(['checkpoint', '--scope', GROUP, '--set', back.toISOString()], env);
    expect(moved.code, moved.stderr).toBe(0);
    expect(moved.stdout).toBe(
      `${GROUP}: checkpoint changed, recorded in sync_runs\n  was  ${toSecond(before)}\n  now  ${toSecond(back)}\n`,
    );
    expect((await getSyncState(warehouse.db, GROUP))!.watermark!.getTime()).toBe(back.getTime());
    // The next sync reads from the date set (minus the lookback), not from where it was.
    const since = new Date();
    expect((await runCli(['sync', '--once'], env)).code).toBe(0);
    const first = await warehouse.db
      .selectFrom('sync_runs')
      .select(sql<Date>`min(window_start)`.as('start'))
      .where('scope', '=', GROUP)
      .where('mode', '=', 'sync')
      .where('started_at', '>=', since)
      .executeTakeFirstOrThrow();
    expect(first.start.getTime()).toBeLessThanOrEqual(back.getTime());

    const reset = await runCli(['checkpoint', '--scope', GROUP, '--reset'], env);
    expect(reset.code, reset.stderr).toBe(0);
    expect(reset.stdout).toContain('none (the next sync starts from the start date)');
    expect((await getSyncState(warehouse.db, GROUP))?.watermark).toBeNull();

    const recorded = await warehouse.db
      .selectFrom('sync_runs')
      .select(['status'])
      .where('scope', '=', GROUP)
      .where('mode', '=', 'checkpoint')
      .execute();
    expect(recorded.map((r) => r.status)).toEqual(['succeeded', 'succeeded']);
  }, 120_000);

  it('refuses to set a scope without a checkpoint after where its first sync starts, and the sync then reads everything', async () => {
    const env = { ...fixture.envWith({}), EVENTS_SCOPES: FRESH };
    expect((await getSyncState(warehouse.db, FRESH))?.watermark ?? null).toBeNull();
    for (const to of ['2030-01-01T00:00:00Z', daysAgo(2).toISOString()]) {
      const forward = await runCli(['checkpoint', '--scope', FRESH, '--set', to], env);
      expect(forward.code, `--set ${to}: ${forward.stdout}${forward.stderr}`).toBe(2);
      expect(forward.stderr).toContain(`is after where ${FRESH}'s next sync starts`);
      expect(forward.stderr).toContain('moving it forward would skip events');
    }
    expect((await getSyncState(warehouse.db, FRESH))?.watermark ?? null).toBeNull();

    // Before the start date is a move back: accepted, and the sync reads the whole history.
    const back = await runCli(['checkpoint', '--scope', FRESH, '--set', daysAgo(5).toISOString()], env);
    expect(back.code, back.stderr).toBe(0);
    const synced = await runCli(['sync', '--once'], env);
    expect(synced.code, synced.stderr).toBe(0);
    expect(await mirroredIds(warehouse.db, FRESH)).toEqual([...fixture.emulator.dataset.validIds(FRESH)].sort());
  }, 120_000);
});

/** A time as the CLI prints it: to the second, in UTC. */
function toSecond(date: Date): string {
  return date.toISOString().replace(/\.\d{3}Z$/, 'Z');
}
