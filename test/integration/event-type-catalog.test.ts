/**
 * Atlas v2's event type catalogue, as a user meets it: `sync --once` on an Atlas v2 source reads
 * `GET /api/atlas/v2/eventTypes` (paged, over HTTP from the emulator) into event_type_catalog; the
 * event_catalog view and the HTML report show each type's description; a type the feed sends that
 * the catalogue lacks, and a type removed from the catalogue between two reads, are reported as
 * schema changes (the page's log line, `status --schema-changes`). Real PostgreSQL.
 */
import { readFileSync } from 'node:fs';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { describeEventType } from '../../src/emulator/event-type-catalog.js';
import { createWarehouse } from '../../src/warehouse/database.js';
import { runCli } from '../helpers/cli.js';
import { daysAgo, startSyncFixture } from '../helpers/sync-fixture.js';

const ORG = '5f0000000000000000000357';
const EMPTY_ORG = '5f0000000000000000000358';

const cleanups: Array<() => Promise<unknown>> = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

describe('the event type catalogue (Atlas v2)', () => {
  it('lands with descriptions, shows them in event_catalog and the report, and reports types it lacks or drops', async () => {
    const f = await startSyncFixture(
      {
        seed: 357,
        orgs: [ORG],
        projects: [{ id: '6a0000000000000000000357', orgId: ORG, name: 'atlas one' }],
        eventsPerScope: 600,
        days: 2,
      },
      { EVENTS_START_DATE: daysAgo(3).toISOString(), EVENTS_SCOPES: `org:${ORG}` },
    );
    cleanups.push(() => f.close());
    const env = { ...f.env, EVENTS_API_BASE_URL: f.emulator.atlasV2BaseUrl, LOG_LEVEL: 'info' };
    const catalogue = f.emulator.catalog;
    const sentTypes = [...new Set(f.emulator.dataset.allEvents(`org:${ORG}`).map((e) => e.eventTypeName as string))].sort();
    expect(sentTypes.length).toBeGreaterThan(4);
    // One type the feed sends is missing from the catalogue before the first read.
    const unlisted = sentTypes[0]!;
    catalogue.remove(unlisted);
    const listedCount = catalogue.all().length;

    const first = await runCli(['sync', '--once'], env);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stderr).toMatch(new RegExp(`event type catalogue read: ${listedCount} types`));
    expect(first.stderr).toMatch(new RegExp(`not in the event type catalogue: [^"]*${unlisted}`));

    const warehouse = await createWarehouse({ url: f.database.url, schema: 'events_mirror', dataDir: 'unused' });
    cleanups.push(() => warehouse.close());
    const rows = await warehouse.db.selectFrom('event_type_catalog').selectAll().orderBy('type').execute();
    expect(rows.map((r) => r.type)).toEqual(catalogue.all().map((e) => e.eventType));
    expect(rows.every((r) => r.gone_since === null && r.first_seen_in_catalog.getTime() === r.last_seen_in_catalog.getTime())).toBe(true);
    const host = rows.find((r) => r.type === 'HOST_DOWN');
    expect(host).toMatchObject({ description: 'Host down', alertable: true });

    const catalog = await warehouse.db.selectFrom('event_catalog').select(['event_type_name', 'description', 'in_catalog']).execute();
    expect(catalog.map((c) => c.event_type_name).sort()).toEqual(sentTypes);
    for (const c of catalog) {
      if (c.event_type_name === unlisted) expect(c).toMatchObject({ description: null, in_catalog: false });
      else expect(c).toMatchObject({ description: describeEventType(c.event_type_name), in_catalog: true });
    }

    // A type the feed sends leaves the catalogue between two reads.
    const dropped = sentTypes[1]!;
    expect(catalogue.remove(dropped)).toBe(true);
    const second = await runCli(['sync', '--once'], env);
    expect(second.code, second.stderr).toBe(0);
    expect(second.stderr).toMatch(new RegExp(`1 event type\\(s\\) left the event type catalogue: ${dropped}`));
    const droppedRow = await warehouse.db
      .selectFrom('event_type_catalog')
      .selectAll()
      .where('type', '=', dropped)
      .executeTakeFirstOrThrow();
    expect(droppedRow.gone_since).not.toBeNull();
    expect(droppedRow.last_seen_in_catalog.getTime()).toBeLessThan(droppedRow.gone_since!.getTime());

    const changes = await runCli(['status', '--schema-changes'], env);
    expect(changes.code, changes.stderr).toBe(0);
    expect(changes.stdout).toMatch(/1 event type left the event type catalogue,\s+2 event types sent by the feed not in the catalogue/);
    expect(changes.stdout).toMatch(new RegExp(`left the catalogue\\s*\\|?\\s*${dropped}`));
    expect(changes.stdout).toMatch(new RegExp(`not in the catalogue\\s*\\|?\\s*${unlisted}`));
    expect(changes.stdout).toMatch(new RegExp(`not in the catalogue\\s*\\|?\\s*${dropped}`));
    const status = await runCli(['status'], env);
    expect(status.stdout).toMatch(
      /left the event type catalogue[^\n]*(\n {2}[^\n]*)*\n {2}list them: npx events-mirror status --schema-changes\n/,
    );
    for (const line of status.stdout.split('\n')) expect(line.length, line).toBeLessThanOrEqual(80);

    const html = path.join(mkdtempSync(path.join(tmpdir(), 'em-catalog-')), 'report.html');
    const report = await runCli(['report', '--days', '7', '--html', html], env);
    expect(report.code, report.stderr).toBe(0);
    const page = readFileSync(html, 'utf8');
    expect(page).toContain('as the event type catalogue describes them');
    const described = sentTypes.filter((t) => t !== unlisted && t !== dropped);
    expect(described.some((t) => page.includes(`<td>${describeEventType(t)}</td>`))).toBe(true);
    expect(page).toContain('not in the event type catalogue');
  });

  it('takes a 200 answer listing no types as an incomplete read: every known type stays listed', async () => {
    const f = await startSyncFixture(
      { seed: 358, orgs: [EMPTY_ORG], eventsPerScope: 50, days: 1 },
      { EVENTS_START_DATE: daysAgo(2).toISOString(), EVENTS_SCOPES: `org:${EMPTY_ORG}` },
    );
    cleanups.push(() => f.close());
    const env = { ...f.env, EVENTS_API_BASE_URL: f.emulator.atlasV2BaseUrl, LOG_LEVEL: 'info' };
    const first = await runCli(['sync', '--once'], env);
    expect(first.code, first.stderr).toBe(0);
    const known = f.emulator.catalog.all().map((e) => e.eventType);
    expect(known.length).toBeGreaterThan(10);

    // The service answers 200 with `results: []` (and totalCount 0).
    for (const type of known) f.emulator.catalog.remove(type);
    const second = await runCli(['sync', '--once'], env);
    expect(second.code, second.stderr).toBe(0);
    const warnings = second.stderr.split('\n').filter((line) => line.includes('listed no event types'));
    expect(warnings, second.stderr).toHaveLength(1);
    expect(warnings[0]).toMatch(/could not be read .*an empty catalogue is not taken as complete/);
    expect(second.stderr).not.toMatch(/left the event type catalogue/);

    const warehouse = await createWarehouse({ url: f.database.url, schema: 'events_mirror', dataDir: 'unused' });
    cleanups.push(() => warehouse.close());
    const rows = await warehouse.db.selectFrom('event_type_catalog').select(['type', 'gone_since']).orderBy('type').execute();
    expect(rows.map((r) => r.type)).toEqual(known);
    expect(rows.filter((r) => r.gone_since !== null)).toEqual([]);
    const changes = await runCli(['status', '--schema-changes'], env);
    expect(changes.stdout).not.toMatch(/left the event type catalogue/);
  });
});
