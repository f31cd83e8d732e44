/**
 * `events-mirror reconcile`, run as a user runs it, against the emulator over HTTP and a real
 * PostgreSQL: events published later than the lookback are missed by continuous sync and recovered
 * by reconcile (under faults) for fewer requests than a full re-read; a second reconcile finds
 * nothing for one request per window; an API that lists fewer events than the warehouse holds is
 * reported, nothing deleted, exit 1.
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWarehouse, type Warehouse } from '../../src/warehouse/database.js';
import { commandJsonSchema } from '../../src/report/json-output.js';
import { runCli } from '../helpers/cli.js';
import { expectMirrorEqualsEmulator, mirroredIds } from '../helpers/mirror.js';
import { daysAgo, startSyncFixture, type SyncFixture } from '../helpers/sync-fixture.js';

const HOUR = 3_600_000;
const ITEMS_PER_PAGE = 500;

describe('reconcile', () => {
  let fixture: SyncFixture;
  let warehouse: Warehouse;
  let env: Record<string, string>;
  const settings = { sync: { lookbackSeconds: 60, windowSeconds: 86_400, maxPagesPerWindow: 40 }, reconcile: { days: 4 } };

  beforeAll(async () => {
    fixture = await startSyncFixture(
      {
        seed: 131,
        orgs: ['5f0000000000000000000131'],
        groups: ['6a0000000000000000000131'],
        eventsPerScope: 40_000,
        days: 3,
        faults: { malformedRate: 0.005 },
      },
      { EVENTS_START_DATE: daysAgo(3.5).toISOString() },
    );
    env = fixture.envWith(settings);
    warehouse = await createWarehouse({ url: fixture.database.url, schema: 'events_mirror', dataDir: 'unused' });
  });
  afterAll(async () => {
    await warehouse?.close();
    await fixture?.close();
  });

  const sync = async () => {
    const result = await runCli(['sync', '--once'], env);
    expect(result.code, result.stderr).toBe(0);
  };
  const totalHeld = async () =>
    (
      await warehouse.db
        .selectFrom('events')
        .select(sql<number>`count(*)::int`.as('n'))
        .executeTakeFirstOrThrow()
    ).n;
  const lastRun = async (scope: string) =>
    warehouse.db
      .selectFrom('reconcile_runs')
      .selectAll()
      .where('scope', '=', scope)
      .orderBy('id', 'desc')
      .limit(1)
      .executeTakeFirstOrThrow();

  /** The pages a full re-read of the range needs: every aligned window paged in full (at least one page each). */
  const fullRereadPages = (scope: string, from: Date, to: Date) => {
    let pages = 0;
    for (let start = from.getTime(); start < to.getTime(); start = Math.floor(start / 86_400_000) * 86_400_000 + 86_400_000) {
      const end = Math.min(Math.floor(start / 86_400_000) * 86_400_000 + 86_400_000, to.getTime());
      const { totalCount } = fixture.emulator.dataset.query(scope, {
        minSec: Math.floor(start / 1000),
        maxSec: Math.floor(end / 1000),
        offset: 0,
        limit: 1,
        includeRaw: false,
      });
      pages += Math.max(1, Math.ceil(totalCount / ITEMS_PER_PAGE));
    }
    return pages;
  };

  it('recovers every event continuous sync missed, under faults, for less than a full re-read', async () => {
    const { dataset } = fixture.emulator;
    const scopes = dataset.scopes();
    await sync();
    await expectMirrorEqualsEmulator(warehouse.db, dataset, scopes);

    // Published now, created hours ago: far behind the 60-second lookback.
    const now = Date.now();
    const late = new Map<string, string[]>();
    for (const scope of scopes) {
      const ids: string[] = [];
      for (const hoursAgo of [1.5, 7, 30, 55]) {
        ids.push(...dataset.addEvents(scope, 3, { createdMs: now - hoursAgo * HOUR }).map((e) => e.id!));
      }
      dataset.addEvents(scope, 1, { createdMs: now - 20 * HOUR, malformed: 'no-id' });
      late.set(scope, ids);
    }
    await sync();
    for (const scope of scopes) {
      const held = new Set(await mirroredIds(warehouse.db, scope));
      expect(
        late.get(scope)!.filter((id) => held.has(id)),
        'continuous sync misses events published later than the lookback',
      ).toEqual([]);
    }
    const status = await runCli(['status'], env);
    expect(status.code).toBe(0);

    fixture.emulator.setFaults({ rate429: 0.05, rate5xx: 0.05, latencyMs: 5 });
    const before = fixture.emulator.stats();
    const result = await runCli(['reconcile'], env);
    const faultsSeen = fixture.emulator.stats();
    fixture.emulator.setFaults({ rate429: 0, rate5xx: 0, latencyMs: 0 });
    expect(result.code, `${result.stdout}\n${result.stderr}`).toBe(0);
    expect(faultsSeen.byStatus[429] ?? 0, 'a 429 was answered during the reconcile').toBeGreaterThan(before.byStatus[429] ?? 0);
    // The shared range once, then a line a scope (80 columns; --json has every count).
    expect(result.stdout).toMatch(/^range \S+Z\.\.\S+Z/m);
    expect(result.stdout).toContain('2 scopes consistent with the API');
    await expectMirrorEqualsEmulator(warehouse.db, dataset, scopes);

    for (const scope of scopes) {
      const run = await lastRun(scope);
      expect(run.result).toBe('recovered');
      expect(run.events_recovered).toBe(late.get(scope)!.length);
      expect(run.windows_differing).toBeGreaterThanOrEqual(3);
      const full = fullRereadPages(scope, run.range_from, run.range_to);
      expect(run.requests, `${scope}: ${run.requests} requests against ${full} pages of a full re-read`).toBeLessThan(full);
      console.log(`${scope}: reconcile used ${run.requests} requests; a full re-read of the range needs ${full} pages`);
      const rereads = await warehouse.db
        .selectFrom('sync_runs')
        .select(sql<number>`count(*)::int`.as('n'))
        .where('scope', '=', scope)
        .where('mode', '=', 'reconcile')
        .where('status', '=', 'succeeded')
        .executeTakeFirstOrThrow();
      expect(rereads.n).toBeGreaterThanOrEqual(run.windows_reread);
    }
    // status --json and --scope show each scope's last reconcile.
    const after = commandJsonSchema.parse(JSON.parse((await runCli(['status', '--json'], env)).stdout));
    const recovered = after.scopes.find((s) => s.lastReconcile?.result === 'recovered');
    expect(recovered?.lastReconcile?.eventsRecovered).toBeGreaterThan(0);
    const detail = await runCli(['status', '--scope', recovered!.scope], env);
    expect(detail.stdout).toMatch(/^last reconcile: +recovered \d+ at /m);
  }, 240_000);

  it('a second reconcile right after finds nothing and spends one request per window', async () => {
    const before = fixture.emulator.stats();
    const result = await runCli(['reconcile'], env);
    const after = fixture.emulator.stats();
    expect(result.code, `${result.stdout}\n${result.stderr}`).toBe(0);
    let windows = 0;
    for (const scope of fixture.emulator.dataset.scopes()) {
      const run = await lastRun(scope);
      expect(run.result).toBe('consistent');
      expect(run.windows_differing).toBe(0);
      expect(run.windows_reread).toBe(0);
      windows += run.windows_checked;
    }
    expect(windows).toBeGreaterThan(0);
    // Answered requests (200s): exactly one count per window; Digest challenges are 401s.
    expect((after.byStatus[200] ?? 0) - (before.byStatus[200] ?? 0)).toBe(windows);
  }, 120_000);

  it('refuses bad arguments with one line and the usage, touching nothing', async () => {
    const swapped = await runCli(['reconcile', '--from', '2026-11-02', '--to', '2026-11-01'], env);
    expect(swapped.code).toBe(2);
    expect(swapped.stderr).toMatch(/--from 2026-11-02T00:00:00Z is after --to 2026-11-01T23:59:59Z: swap them/);
    const badScope = await runCli(['reconcile', '--scope', 'cluster:x'], env);
    expect(badScope.code).toBe(2);
    expect(badScope.stderr).toMatch(/--scope/);
  });

  it('reports a warehouse holding more than the API lists, deletes nothing, and exits 1', async () => {
    const held = await totalHeld();
    fixture.emulator.dataset.setRetentionDays(1.5);
    try {
      const result = await runCli(['reconcile', '--from', daysAgo(3.2).toISOString()], env);
      expect(result.code, `${result.stdout}\n${result.stderr}`).toBe(1);
      expect(result.stdout).toContain('the warehouse holds events the API no longer lists (nothing deleted)');
      expect(result.stdout).toMatch(/2 of 2 scopes not consistent/);
      for (const scope of fixture.emulator.dataset.scopes()) {
        const run = await lastRun(scope);
        expect(run.result).toBe('differs');
        expect(run.events_extra).toBeGreaterThan(0);
        expect(run.events_missing).toBe(0);
      }
      expect(await totalHeld(), 'nothing deleted').toBe(held);
    } finally {
      fixture.emulator.dataset.setRetentionDays(undefined);
    }
  }, 120_000);
});
