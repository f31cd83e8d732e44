/**
 * Every SQL query of config/grafana/events.json, with Grafana's macros and variables substituted
 * as Grafana does, runs against a migrated PostgreSQL warehouse holding emulator data and returns
 * rows; the scope variable really filters.
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scopeSettings } from '../../src/config.js';
import { parseScope } from '../../src/scope.js';
import { syncScope } from '../../src/sync/sync-scope.js';
import type { SyncRuntime } from '../../src/sync/runtime.js';
import { dashboardQueries, readDashboard, sqlFor } from '../helpers/grafana-dashboard.js';
import { daysAgo, startSyncFixture, type SyncFixture } from '../helpers/sync-fixture.js';

const MISSING_GROUP = 'group:6a00000000000000000000ff';

describe('the events dashboard on a warehouse holding emulator data', () => {
  let fixture: SyncFixture;
  let runtime: SyncRuntime;
  let scopes: string[];

  beforeAll(async () => {
    fixture = await startSyncFixture(
      {
        seed: 151,
        orgs: ['5f0000000000000000000151'],
        groups: ['6a0000000000000000000151', '6a0000000000000000000152'],
        eventsPerScope: 600,
        days: 5,
        faults: { malformedRate: 0.02 },
      },
      { EVENTS_START_DATE: daysAgo(6).toISOString() },
    );
    runtime = await fixture.runtime();
    const config = fixture.config();
    scopes = fixture.emulator.dataset.scopes();
    // The emulator's scopes, and one it does not know (404): a failed run for "Recent failures".
    const results = await Promise.all(
      [...scopes, MISSING_GROUP].map((key) => syncScope(runtime.ctx, scopeSettings(config, parseScope(key)), { mode: 'sync' })),
    );
    for (const result of results) {
      expect(result.status, `${result.scope}: ${String(result.error)}`).toBe(result.scope === MISSING_GROUP ? 'failed' : 'succeeded');
    }
  });
  afterAll(async () => fixture?.close());

  const run = async (text: string) => (await sql.raw<Record<string, unknown>>(text).execute(runtime.warehouse.db)).rows;
  const range = () => ({ schema: 'events_mirror', from: daysAgo(7), to: new Date() });

  it('runs every query with every scope selected and gets rows from each', async () => {
    const queries = dashboardQueries(readDashboard('events.json'));
    expect(queries.length).toBeGreaterThanOrEqual(10);
    const allScopes = [...scopes, MISSING_GROUP];
    for (const query of queries) {
      const text = sqlFor(query.text, { ...range(), scopes: allScopes });
      const rows = await run(text).catch((error: unknown) => {
        throw new Error(`${query.where} failed: ${String(error)}\n${text}`);
      });
      expect(rows.length, `${query.where} returned no rows:\n${text}`).toBeGreaterThan(0);
    }
  });

  it('keeps to the scopes selected', async () => {
    const [one] = scopes;
    for (const query of dashboardQueries(readDashboard('events.json'))) {
      if (!query.text.includes('$scope')) continue;
      const text = sqlFor(query.text, { ...range(), scopes: [one!] });
      const rows = await run(text);
      for (const row of rows) {
        const scope = row.scope ?? (query.text.includes('scope as metric') ? row.metric : undefined);
        if (scope !== undefined) expect(scope, `${query.where}`).toBe(one);
      }
    }
    const failures = dashboardQueries(readDashboard('events.json')).find((q) => q.where.startsWith('panel "Recent failures"'))!;
    expect(await run(sqlFor(failures.text, { ...range(), scopes: [one!] }))).toEqual([]);
    const failed = await run(sqlFor(failures.text, { ...range(), scopes: [MISSING_GROUP] }));
    expect(failed.map((r) => r.scope)).toContain(MISSING_GROUP);
    expect(String(failed[0]!.error)).toMatch(/404/);
  });
});
