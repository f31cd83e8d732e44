/** The repositories on the real PostgreSQL and on the embedded PGlite: same tests, same results. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import type { ApiEvent } from '../../src/events/types.js';
import { validateEvents } from '../../src/events/validate-event.js';
import type { Warehouse } from '../../src/warehouse/database.js';
import { countEventsByScope, upsertEvents } from '../../src/warehouse/events.repository.js';
import { recordRejected } from '../../src/warehouse/rejected.repository.js';
import { findSucceededWindows, finishRun, startRun } from '../../src/warehouse/runs.repository.js';
import {
  advanceWatermark,
  getSyncState,
  listSyncStates,
  recordAttempt,
  recordFailure,
  recordRunEnd,
} from '../../src/warehouse/state.repository.js';
import {
  ORG_FAMILY,
  PROJECT_FAMILY,
  apiKeyAction,
  automationAudit,
  dataExplorer,
  invoiceClosed,
  metricAlert,
  oddlyTyped,
  toValid,
  userTargetsUser,
  withRawAndUnknownFields,
} from '../fixtures/events.js';
import { openMigratedWarehouse, type TestWarehouse } from '../helpers/database.js';

const T0 = new Date('2026-11-22T00:00:00Z');
const T1 = new Date('2026-11-22T01:00:00Z');
let scopeCounter = 0;
/** A scope of its own per test: tests share one warehouse per kind. */
const freshGroup = () => `group:g${++scopeCounter}`;

/** The same event under a fresh id, so tests do not share rows. */
function rekey(events: readonly ApiEvent[], tag: string) {
  return events.map((event) => toValid({ ...event, id: `${tag}-${event.id}` }));
}

describe.each(['postgres', 'pglite'] as const)('warehouse repositories on %s', (kind) => {
  let opened: TestWarehouse;
  let warehouse: Warehouse;
  beforeAll(async () => {
    opened = await openMigratedWarehouse(kind);
    warehouse = opened.warehouse;
  });
  afterAll(async () => {
    await opened?.close();
  });

  const rowsOf = (scope: string) => warehouse.db.selectFrom('events').selectAll().where('scope', '=', scope).orderBy('id').execute();

  describe('upsertEvents', () => {
    it('counts a page inserted once, then unchanged when read again', async () => {
      const scope = freshGroup();
      const page = rekey(PROJECT_FAMILY, scope);
      expect(await upsertEvents(warehouse.db, scope, page, T0)).toEqual({ inserted: page.length, changed: 0, unchanged: 0 });
      expect(await upsertEvents(warehouse.db, scope, page, T1)).toEqual({ inserted: 0, changed: 0, unchanged: page.length });
      const rows = await rowsOf(scope);
      expect(rows).toHaveLength(page.length);
      for (const row of rows) expect(row.updated_at).toEqual(T0);
    });

    it('updates a row whose payload changed, and only that row', async () => {
      const scope = freshGroup();
      const page = rekey([metricAlert, dataExplorer], scope);
      await upsertEvents(warehouse.db, scope, page, T0);
      const changedAlert = toValid({ ...page[0]!.payload, currentValue: { number: 99, units: 'RAW' } });
      expect(await upsertEvents(warehouse.db, scope, [changedAlert, page[1]!], T1)).toEqual({ inserted: 0, changed: 1, unchanged: 1 });
      const [alert, explorer] = await rowsOf(scope);
      expect(alert).toMatchObject({ current_value_number: 99, ingested_at: T0, updated_at: T1 });
      expect(alert?.payload.currentValue).toEqual({ number: 99, units: 'RAW' });
      expect(explorer).toMatchObject({ ingested_at: T0, updated_at: T0 });
    });

    it('treats the same payload with keys in another order as unchanged', async () => {
      const scope = freshGroup();
      const [event] = rekey([dataExplorer], scope);
      await upsertEvents(warehouse.db, scope, [event!], T0);
      const reordered = Object.fromEntries(Object.entries(event!.payload).reverse()) as ApiEvent;
      expect(await upsertEvents(warehouse.db, scope, [{ ...event!, payload: reordered }], T1)).toEqual({
        inserted: 0,
        changed: 0,
        unchanged: 1,
      });
    });

    it('takes the last of duplicate ids within one page', async () => {
      const scope = freshGroup();
      const [first] = rekey([dataExplorer], scope);
      const last = { ...first!, payload: { ...first!.payload, opType: 'aggregate' } };
      expect(await upsertEvents(warehouse.db, scope, [first!, last], T0)).toEqual({ inserted: 1, changed: 0, unchanged: 1 });
      const [row] = await rowsOf(scope);
      expect(row?.op_type).toBe('aggregate');
    });

    it('fills the typed columns of every event family', async () => {
      const scope = freshGroup();
      await upsertEvents(warehouse.db, scope, rekey([...PROJECT_FAMILY, ...ORG_FAMILY], scope), T0);
      const byId = new Map((await rowsOf(scope)).map((row) => [row.id.slice(scope.length + 1), row]));
      expect(byId.get(metricAlert.id!)).toMatchObject({
        event_type_name: 'OUTSIDE_METRIC_THRESHOLD',
        created: new Date('2026-11-20T10:15:30Z'),
        alert_id: 'alert-1',
        alert_config_id: 'alert-config-1',
        metric_name: 'CONNECTIONS_PERCENT',
        current_value_number: 87.5,
        current_value_units: 'RAW',
        cluster_id: 'cluster-1',
        cluster_name: 'Cluster0',
        host_id: 'host-1',
        hostname: 'cluster0-shard-00-01.example.test',
        port: 27017,
        replica_set_name: 'atlas-rs0',
        shard_name: 'shard-00',
      });
      expect(byId.get(dataExplorer.id!)).toMatchObject({
        user_id: 'user-1',
        username: 'ada@example.test',
        remote_address: '203.0.113.7',
        is_global_admin: false,
        database: 'sales',
        collection: 'orders',
        op_type: 'find',
      });
      expect(byId.get(apiKeyAction.id!)).toMatchObject({
        api_key_id: 'api-key-1',
        public_key: 'abcdefgh',
        target_public_key: 'ijklmnop',
        access_list_entry: '192.0.2.0/24',
        team_id: 'team-1',
      });
      expect(byId.get(userTargetsUser.id!)).toMatchObject({ target_username: 'linus@example.test', org_id: userTargetsUser.orgId });
      expect(byId.get(invoiceClosed.id!)).toMatchObject({
        invoice_id: 'invoice-1',
        payment_id: 'payment-1',
        maintenance_window_id: 'maintenance-1',
      });
      expect(byId.get(automationAudit.id!)?.payload.diffs?.[1]?.priviileges?.[1]?.resource).toEqual({ cluster: true });
    });

    it('keeps unknown fields in payload and raw in its column', async () => {
      const scope = freshGroup();
      await upsertEvents(warehouse.db, scope, rekey([withRawAndUnknownFields], scope), T0);
      const [row] = await rowsOf(scope);
      expect(row?.payload.newFieldFromTheFuture).toEqual({ nested: [1, 'two', { three: 3 }] });
      expect(row?.payload.resourceType).toBe('cluster');
      expect(row?.raw).toEqual(withRawAndUnknownFields.raw);
    });

    it('lands fields of the wrong type as NULL columns, and text PostgreSQL refuses as U+FFFD', async () => {
      const scope = freshGroup();
      const odd = rekey([{ ...oddlyTyped, note: 'nul\u0000 lone\ud800' }], scope);
      expect(await upsertEvents(warehouse.db, scope, odd, T0)).toMatchObject({ inserted: 1 });
      const [row] = await rowsOf(scope);
      expect(row).toMatchObject({ port: null, is_global_admin: null, hostname: null, current_value_number: null, raw: null });
      expect(row?.payload).toMatchObject({ port: '27017', isGlobalAdmin: 'yes', note: 'nul\ufffd lone\ufffd' });
    });

    it('keeps text that COPY would misread exactly as received: tabs, newlines, backslashes, a literal \\N', async () => {
      const scope = freshGroup();
      const tricky = 'tab\there\nnew line\\back\\slash\rcr \\N é 🌍';
      const event = { ...dataExplorer, username: tricky, hostname: '\\N', note: { text: tricky, path: 'C:\\dir\\' } };
      expect(await upsertEvents(warehouse.db, scope, rekey([event], scope), T0)).toMatchObject({ inserted: 1 });
      const [row] = await rowsOf(scope);
      expect(row?.username).toBe(tricky);
      expect(row?.hostname).toBe('\\N');
      expect(row?.payload).toEqual({ ...event, id: `${scope}-${event.id}` });
      expect(await upsertEvents(warehouse.db, scope, rekey([event], scope), T1)).toEqual({ inserted: 0, changed: 0, unchanged: 1 });
    });

    it("stores the API's own text of an event, whitespace between its tokens included", async () => {
      const scope = freshGroup();
      const id = `${scope}-sent-as-text`;
      const sent = `{\n\t"id": "${id}",\r\n\t"created": "2026-11-20T10:00:00Z",\n\t"username": "plain é 🌍", "big": 12345678901234567890}`;
      const [event] = validateEvents([JSON.parse(sent)], [sent]).events;
      expect(await upsertEvents(warehouse.db, scope, [event!], T0)).toMatchObject({ inserted: 1 });
      const same = await sql<{ same: boolean; big: string }>`select payload = ${sent}::jsonb as same, payload->>'big' as big
        from events where id = ${id}`.execute(warehouse.db);
      expect(same.rows[0]).toEqual({ same: true, big: '12345678901234567890' });
      expect(await upsertEvents(warehouse.db, scope, [event!], T1)).toEqual({ inserted: 0, changed: 0, unchanged: 1 });
    });

    it('lands a page larger than the first COPY buffer, multi-byte text included', async () => {
      const scope = freshGroup();
      const long = `${'é😀'.repeat(40_000)}\t${'x'.repeat(100_000)}`;
      const events = rekey([{ ...dataExplorer, username: long }, metricAlert, { ...dataExplorer, id: 'second', note: long }], scope);
      expect(await upsertEvents(warehouse.db, scope, events, T0)).toMatchObject({ inserted: 3 });
      const rows = await rowsOf(scope);
      expect(rows.map((row) => row.username ?? null)).toContain(long);
      expect(rows.map((row) => (row.payload as { note?: string }).note).filter(Boolean)).toEqual([long]);
    });

    it('shares a transaction with the checkpoint: a rollback keeps neither', async () => {
      const scope = freshGroup();
      await expect(
        warehouse.db.transaction().execute(async (trx) => {
          await upsertEvents(trx, scope, rekey([dataExplorer], scope), T0);
          await advanceWatermark(trx, scope, T0, T0);
          throw new Error('crash before commit');
        }),
      ).rejects.toThrow('crash before commit');
      expect(await rowsOf(scope)).toHaveLength(0);
      expect(await getSyncState(warehouse.db, scope)).toBeUndefined();
    });

    it('counts events per scope', async () => {
      const a = freshGroup();
      const b = freshGroup();
      await upsertEvents(warehouse.db, a, rekey([dataExplorer, metricAlert], a), T0);
      await upsertEvents(warehouse.db, b, rekey([dataExplorer], b), T0);
      const counts = await countEventsByScope(warehouse.db);
      expect(counts.get(a)).toBe(2);
      expect(counts.get(b)).toBe(1);
    });
  });

  describe('recordRejected', () => {
    it('keeps the same bad event seen twice as one row, counted and last-seen bumped', async () => {
      const scope = freshGroup();
      const bad = { created: 'yesterday', eventTypeName: 'X' };
      const sameReordered = { eventTypeName: 'X', created: 'yesterday' };
      expect(
        await recordRejected(
          warehouse.db,
          scope,
          [
            { reason: 'no id', payload: bad },
            { reason: 'no id', payload: sameReordered },
          ],
          T0,
        ),
      ).toBe(1);
      expect(
        await recordRejected(
          warehouse.db,
          scope,
          [
            { reason: 'missing id', payload: bad },
            { reason: 'not an object', payload: null },
          ],
          T1,
        ),
      ).toBe(2);
      const rows = await warehouse.db.selectFrom('rejected_events').selectAll().where('scope', '=', scope).orderBy('id').execute();
      expect(rows).toHaveLength(2);
      expect(rows[0]).toMatchObject({ reason: 'missing id', payload: bad, seen_count: 3, first_seen_at: T0, last_seen_at: T1 });
      expect(rows[1]).toMatchObject({ reason: 'not an object', payload: null, seen_count: 1 });
      const other = freshGroup();
      await recordRejected(warehouse.db, other, [{ reason: 'no id', payload: bad }], T0);
      expect(await warehouse.db.selectFrom('rejected_events').select('id').where('scope', '=', other).execute()).toHaveLength(1);
    });
  });

  describe('sync_state', () => {
    it('never moves the watermark backwards and tracks failures', async () => {
      const scope = freshGroup();
      await recordAttempt(warehouse.db, scope, T0);
      await recordFailure(warehouse.db, scope, 'HTTP 500 from /groups/x/events', T0);
      await recordFailure(warehouse.db, scope, 'HTTP 503 from /groups/x/events', T1, 'API_503');
      expect(await getSyncState(warehouse.db, scope)).toEqual({
        scope,
        watermark: null,
        settings: null,
        lastSuccessAt: null,
        lastAttemptAt: T0,
        lastError: 'HTTP 503 from /groups/x/events',
        lastErrorCode: 'API_503',
        consecutiveFailures: 2,
        polls: 0,
        lastPolledAt: null,
        lastLandedAt: null,
      });
      const later = new Date('2026-11-21T12:00:00Z');
      await advanceWatermark(warehouse.db, scope, later, T1);
      await advanceWatermark(warehouse.db, scope, new Date('2026-11-20T00:00:00Z'), T1);
      expect(await getSyncState(warehouse.db, scope)).toEqual({
        scope,
        watermark: later,
        settings: null,
        lastSuccessAt: T1,
        lastAttemptAt: T0,
        lastError: null,
        lastErrorCode: null,
        consecutiveFailures: 0,
        polls: 0,
        lastPolledAt: null,
        lastLandedAt: null,
      });
      await recordRunEnd(warehouse.db, scope, { poll: true, landed: false }, T1);
      await recordRunEnd(warehouse.db, scope, { poll: true, landed: true }, T1);
      expect(await getSyncState(warehouse.db, scope)).toMatchObject({ polls: 2, lastPolledAt: T1, lastLandedAt: T1 });
      const states = await listSyncStates(warehouse.db);
      expect(states.map((s) => s.scope)).toContain(scope);
      expect(states.map((s) => s.scope)).toEqual([...states.map((s) => s.scope)].sort());
    });

    it('stores error text PostgreSQL would refuse', async () => {
      const scope = freshGroup();
      await recordFailure(warehouse.db, scope, 'bad\u0000byte', T0);
      expect((await getSyncState(warehouse.db, scope))?.lastError).toBe('bad\ufffdbyte');
    });
  });

  describe('sync_runs', () => {
    it('records a run from start to finish and finds succeeded windows', async () => {
      const scope = freshGroup();
      const day = (d: number) => new Date(Date.UTC(2026, 10, d));
      const ok = await startRun(warehouse.db, {
        scope,
        mode: 'backfill',
        windowStart: day(1),
        windowEnd: day(2),
        jobId: 'job-1',
        startedAt: T0,
      });
      const failed = await startRun(warehouse.db, { scope, mode: 'backfill', windowStart: day(2), windowEnd: day(3) });
      const otherMode = await startRun(warehouse.db, { scope, mode: 'sync', windowStart: day(3), windowEnd: day(4) });
      const totals = { pages: 3, requests: 4, eventsSeen: 1204, inserted: 1180, changed: 0, rejected: 2 };
      await finishRun(warehouse.db, ok, { ...totals, status: 'succeeded', durationMs: 812.4, finishedAt: T1 });
      await finishRun(warehouse.db, failed, { ...totals, status: 'failed', error: 'HTTP 500', durationMs: 10 });
      await finishRun(warehouse.db, otherMode, { ...totals, status: 'succeeded', durationMs: 10 });
      const row = await warehouse.db.selectFrom('sync_runs').selectAll().where('id', '=', ok).executeTakeFirstOrThrow();
      expect(row).toMatchObject({
        id: ok,
        scope,
        mode: 'backfill',
        job_id: 'job-1',
        status: 'succeeded',
        started_at: T0,
        finished_at: T1,
        pages: 3,
        requests: 4,
        events_seen: 1204,
        events_inserted: 1180,
        events_changed: 0,
        events_rejected: 2,
        duration_ms: 812,
        error: null,
      });
      expect(await findSucceededWindows(warehouse.db, scope, 'backfill', day(1), day(30))).toEqual([
        { windowStart: day(1), windowEnd: day(2) },
      ]);
      expect(await findSucceededWindows(warehouse.db, scope, 'backfill', new Date(day(1).getTime() + 500), day(1))).toEqual([
        { windowStart: day(1), windowEnd: day(2) },
      ]);
      expect(await findSucceededWindows(warehouse.db, scope, 'backfill', new Date(day(2).getTime() + 1), day(30))).toEqual([]);
      const running = await startRun(warehouse.db, { scope, mode: 'poll', windowStart: day(5), windowEnd: day(6) });
      expect(await warehouse.db.selectFrom('sync_runs').select('status').where('id', '=', running).executeTakeFirst()).toEqual({
        status: 'running',
      });
    });
  });

  describe('views', () => {
    it('events_per_day counts events per UTC day, scope and type', async () => {
      const scope = freshGroup();
      const late = { ...dataExplorer, id: 'late', created: '2026-11-20T23:59:59Z' };
      const next = { ...dataExplorer, id: 'next', created: '2026-11-21T00:00:00Z' };
      await upsertEvents(warehouse.db, scope, rekey([dataExplorer, late, next, metricAlert], scope), T0);
      const rows = await warehouse.db
        .selectFrom('events_per_day')
        .selectAll()
        .where('scope', '=', scope)
        .orderBy('day')
        .orderBy('event_type_name')
        .execute();
      expect(rows).toEqual([
        { day: '2026-11-20', scope, event_type_name: 'DATA_EXPLORER', events: 2 },
        { day: '2026-11-20', scope, event_type_name: 'OUTSIDE_METRIC_THRESHOLD', events: 1 },
        { day: '2026-11-21', scope, event_type_name: 'DATA_EXPLORER', events: 1 },
      ]);
    });

    it('automation_config_changes has one row per element of diffs', async () => {
      const scope = freshGroup();
      await upsertEvents(warehouse.db, scope, rekey([automationAudit, oddlyTyped, dataExplorer], scope), T0);
      const rows = await warehouse.db
        .selectFrom('automation_config_changes')
        .selectAll()
        .where('scope', '=', scope)
        .orderBy('diff_index')
        .execute();
      expect(rows).toHaveLength(2);
      expect(rows[0]).toMatchObject({
        event_id: `${scope}-${automationAudit.id}`,
        event_type_name: 'AUTOMATION_CONFIG_PUBLISHED_AUDIT',
        actor: 'grace@example.test',
        diff_index: 0,
        diff_id: 'reporting@admin',
        diff_type: 'USERS',
        diff_status: 'NEW',
        diff_name: null,
        param_names: ['roles', 'mechanisms'],
        privileges: null,
        roles: [{ db: 'sales', role: 'read' }],
      });
      expect(rows[0]?.params).toEqual(automationAudit.diffs![0]!.params);
      expect(rows[1]).toMatchObject({
        diff_index: 1,
        diff_type: 'ROLES',
        diff_status: 'MODIFIED',
        diff_name: 'auditRole',
        param_names: [],
      });
      expect(rows[1]?.privileges).toEqual(automationAudit.diffs![1]!.priviileges);
    });

    it('alerts lists metric threshold events with metric and value', async () => {
      const scope = freshGroup();
      await upsertEvents(warehouse.db, scope, rekey([metricAlert, dataExplorer], scope), T0);
      const rows = await warehouse.db.selectFrom('alerts').selectAll().where('scope', '=', scope).execute();
      expect(rows).toEqual([
        {
          event_id: `${scope}-${metricAlert.id}`,
          scope,
          org_id: null,
          group_id: metricAlert.groupId,
          created: new Date(metricAlert.created!),
          event_type_name: 'OUTSIDE_METRIC_THRESHOLD',
          alert_id: 'alert-1',
          alert_config_id: 'alert-config-1',
          metric_name: 'CONNECTIONS_PERCENT',
          current_value_number: 87.5,
          current_value_units: 'RAW',
          cluster_name: 'Cluster0',
          hostname: 'cluster0-shard-00-01.example.test',
          port: 27017,
          replica_set_name: 'atlas-rs0',
          shard_name: 'shard-00',
        },
      ]);
    });

    it('actor_activity says who did what: user or API key, target, remote address', async () => {
      const scope = freshGroup();
      await upsertEvents(warehouse.db, scope, rekey([dataExplorer, apiKeyAction, userTargetsUser, invoiceClosed], scope), T0);
      const rows = await warehouse.db.selectFrom('actor_activity').selectAll().where('scope', '=', scope).orderBy('created').execute();
      expect(rows.map((r) => [r.event_type_name, r.actor_kind, r.actor, r.target, r.remote_address])).toEqual([
        ['DATA_EXPLORER', 'user', 'ada@example.test', null, '203.0.113.7'],
        ['API_KEY_ACCESS_LIST_ENTRY_ADDED', 'api_key', 'abcdefgh', 'ijklmnop', null],
        ['JOINED_TEAM', 'user', 'ada@example.test', 'linus@example.test', '203.0.113.7'],
      ]);
    });

    it('sync_lag shows each scope behind now by its watermark', async () => {
      const scope = freshGroup();
      const watermark = new Date(Date.now() - 3_600_000);
      await advanceWatermark(warehouse.db, scope, watermark, T0);
      await recordFailure(warehouse.db, scope, 'HTTP 429', T1);
      const row = await warehouse.db.selectFrom('sync_lag').selectAll().where('scope', '=', scope).executeTakeFirstOrThrow();
      expect(row).toMatchObject({ scope, watermark, last_success_at: T0, last_error: 'HTTP 429', consecutive_failures: 1 });
      expect(row.lag_seconds).toBeGreaterThanOrEqual(3600);
      expect(row.lag_seconds).toBeLessThan(3600 + 600);
      expect(row.lag).toMatch(/^0?1:00:/);
      const { rows } = await sql<{ ok: boolean }>`select (lag = now() - watermark) as ok from sync_lag where scope = ${scope}`.execute(
        warehouse.db,
      );
      expect(rows[0]?.ok).toBe(true);
    });
  });
});
