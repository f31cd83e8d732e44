/**
 * Event types and fields never seen before are reported the way loaders report schema changes:
 * a log line when the page lands, `status --schema-changes` lists them, and the worker's metric counts them.
 */
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scopeSettings } from '../../src/config.js';
import { createSyncMetrics } from '../../src/queue/metrics.js';
import { createWarehouse } from '../../src/warehouse/database.js';
import { recordSchema } from '../../src/warehouse/event-schema.repository.js';
import { parseScope } from '../../src/scope.js';
import { syncScope } from '../../src/sync/sync-scope.js';
import { runCli } from '../helpers/cli.js';
import { startSyncFixture, type SyncFixture } from '../helpers/sync-fixture.js';

const ORG = '5f00000000000000000000c1';
const GROUP = '60000000000000000000c0d1';
const SCOPE = `group:${GROUP}`;

function changeCounts(status: string): { eventTypes: number; fields: number } {
  const match = /schema changes, last 7 days: (\d+) new event types?,\s+(\d+) new fields?/.exec(status);
  if (!match) throw new Error(`no schema change line in:\n${status}`);
  return { eventTypes: Number(match[1]), fields: Number(match[2]) };
}

describe('schema changes', () => {
  let fixture: SyncFixture;
  let env: Record<string, string>;
  beforeAll(async () => {
    fixture = await startSyncFixture({ seed: 31, orgs: [ORG], groups: [GROUP], eventsPerScope: 400, days: 2 }, { EVENTS_SCOPES: SCOPE });
    env = { ...fixture.envWith({}), LOG_LEVEL: 'info', LOG_FORMAT: 'json' };
  });
  afterAll(async () => {
    await fixture?.close();
  });

  const sync = async () => {
    const result = await runCli(['sync', '--once'], env);
    expect(result.code, result.stderr).toBe(0);
    return `${result.stdout}\n${result.stderr}`;
  };
  const status = async () => {
    const result = await runCli(['status', '--schema-changes'], env);
    expect(result.code, result.stderr).toBe(0);
    return result.stdout;
  };

  it('a first sync reports every type it brings; a sync with nothing new reports none', async () => {
    const types = new Set(fixture.emulator.dataset.allEvents(SCOPE).map((e) => e.eventTypeName));
    const first = await sync();
    expect(first).toContain('schema change');
    expect(await status()).toContain(`schema changes, last 7 days: ${types.size} new event types`);

    // Known events read again (a forced backfill of the whole history) change no schema.
    const again = await runCli(
      ['backfill', '--scope', SCOPE, '--from', new Date(Date.now() - 3 * 86_400_000).toISOString(), '--force'],
      env,
    );
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toMatch(/[1-9][\d,]* events \(0 new/);
    expect(`${again.stdout}${again.stderr}`).not.toContain('schema change');
  });

  it('a new type and a new field of a known type: a log line naming them, status lists them, the metric counts them', async () => {
    const before = changeCounts(await status());
    const now = Date.now() - 30_000;
    fixture.emulator.dataset.addEvents(SCOPE, 2, { createdMs: now, eventTypeName: 'STREAM_PROCESSOR_STARTED' });
    const [widened] = fixture.emulator.dataset.addEvents(SCOPE, 1, {
      createdMs: now,
      eventTypeName: 'CLUSTER_READY',
      fields: { diskSizeGB: 80 },
    });

    const registry = new Registry();
    const metrics = createSyncMetrics(registry);
    const runtime = await fixture.runtime({}, { onPage: metrics.onPage });
    const config = fixture.config();
    const result = await syncScope(runtime.ctx, scopeSettings(config, parseScope(SCOPE)), { mode: 'sync' });
    expect(result.status).toBe('succeeded');
    // The emulator picks a CLUSTER_READY event's optional fields (actor kind, resource ids) from its
    // creation second, so one the history lacked may come with diskSizeGB: at least that one.
    const { newEventTypes, newFields } = result.totals;
    expect(newEventTypes).toBe(1);
    expect(newFields).toBeGreaterThanOrEqual(1);
    const text = await registry.metrics();
    expect(text).toContain('events_mirror_schema_changes_total{kind="event_type"} 1');
    expect(text).toContain(`events_mirror_schema_changes_total{kind="field"} ${newFields}`);

    const shown = await status();
    expect(changeCounts(shown)).toEqual({ eventTypes: before.eventTypes + 1, fields: before.fields + newFields });
    // Each change's scope and first event stand on the line under it (80 columns).
    expect(shown).toMatch(/new field\s+CLUSTER_READY\.diskSizeGB\n\s+in group:60000000000000000000c0d1, first event /);
    expect(shown).toContain(widened!.id);
    expect(shown).toMatch(/new event type\s+│?\s*STREAM_PROCESSOR_STARTED\s/);
  });

  it('the CLI log line names the new type, and the field a later event of it brings', async () => {
    fixture.emulator.dataset.addEvents(SCOPE, 1, { createdMs: Date.now() - 20_000, eventTypeName: 'SEARCH_INDEX_CREATED' });
    const typed = await sync();
    expect(typed).toContain(`${SCOPE}: schema change, 1 new event type(s): SEARCH_INDEX_CREATED`);
    fixture.emulator.dataset.addEvents(SCOPE, 1, {
      createdMs: Date.now() - 10_000,
      eventTypeName: 'SEARCH_INDEX_CREATED',
      fields: { indexName: 'default' },
    });
    const widened = await sync();
    // The emulator gives this generic type a user or an API key as actor at random, so the other
    // actor's fields may be new too: the field this event brought must be among them.
    expect(widened).toMatch(new RegExp(`${SCOPE}: schema change, \\d+ new field\\(s\\): [^(]*SEARCH_INDEX_CREATED\\.indexName`));
    expect(widened).not.toContain('new event type(s)');
  });

  it('pages of two scopes bringing the same new types at once, in any order, never deadlock and report each type once', async () => {
    const warehouse = await createWarehouse({ url: fixture.database.url, schema: 'events_mirror', dataDir: 'unused', poolSize: 4 });
    try {
      for (let round = 0; round < 10; round += 1) {
        const names = Array.from({ length: 60 }, (_, i) => `RACE_${round}_${String(i).padStart(2, '0')}`);
        const sightings = (order: string[]) =>
          order.flatMap((name) => ['id', 'eventTypeName'].map((field) => ({ eventTypeName: name, field, eventId: `${name}-1` })));
        const record = (scope: string, order: string[]) =>
          warehouse.db.transaction().execute((trx) => recordSchema(trx, scope, sightings(order), new Date()));
        const [a, b] = await Promise.all([record('group:a', names), record('group:b', [...names].reverse())]);
        expect([...a.eventTypes, ...b.eventTypes].sort()).toEqual(names);
      }
    } finally {
      await warehouse.close();
    }
  });
});
