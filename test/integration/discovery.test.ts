/**
 * Point it at an organization: with discovery on, `sync --once` mirrors the organization and each
 * of its projects (minus the excluded ones), a project the key cannot read fails alone, and
 * `status` shows every scope with its name and origin; the scheduler and a worker pick up a
 * project created mid-run and stop polling one that was removed, keeping its rows.
 */
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import type { ApiKeyGrant } from '../../src/emulator/server.js';
import { createSyncQueue } from '../../src/queue/scheduler.js';
import { silentLogger } from '../../src/logger.js';
import { discoverScopes } from '../../src/sync/discovery.js';
import { createWarehouse } from '../../src/warehouse/database.js';
import { listKnownScopes } from '../../src/warehouse/scopes.repository.js';
import { runCli } from '../helpers/cli.js';
import { expectMirrorEqualsEmulator, mirroredIds } from '../helpers/mirror.js';
import {
  failWhenAnyExits,
  freePort,
  obliterateSyncQueue,
  pollMark,
  pollRunsSince,
  startCli,
  waitFor,
  type CliProcess,
} from '../helpers/queue-processes.js';
import { REDIS_URL } from '../helpers/services.js';
import { daysAgo, startSyncFixture, type SyncFixture } from '../helpers/sync-fixture.js';

const ORG = '5f0000000000000000000141';
const [PAYMENTS, STOREFRONT, HIDDEN, MOBILE] = [
  '6a0000000000000000000141',
  '6a0000000000000000000142',
  '6a0000000000000000000143',
  '6a0000000000000000000144',
];

const fixtures: SyncFixture[] = [];
afterAll(async () => {
  for (const fixture of fixtures) await fixture.close();
});

describe('discovering the projects of an organization', () => {
  it('sync --once mirrors the organization and each project, excludes by name, fails alone on a project the key cannot read', async () => {
    const key: ApiKeyGrant = {
      publicKey: 'orgmember',
      privateKey: 'org-member-secret',
      roles: [
        { orgId: ORG, roleName: 'ORG_MEMBER' },
        { groupId: PAYMENTS, roleName: 'GROUP_READ_ONLY' },
        { groupId: STOREFRONT, roleName: 'GROUP_READ_ONLY' },
        { groupId: MOBILE, roleName: 'GROUP_READ_ONLY' },
      ],
    };
    const fixture = await startSyncFixture(
      {
        seed: 141,
        orgs: [ORG],
        projects: [
          { id: PAYMENTS, orgId: ORG, name: 'Payments' },
          { id: STOREFRONT, orgId: ORG, name: 'Storefront EU' },
          { id: HIDDEN, orgId: ORG, name: 'Hidden' },
          { id: MOBILE, orgId: ORG, name: 'Mobile Backend' },
        ],
        eventsPerScope: 300,
        days: 2,
        keys: [key],
      },
      { EVENTS_START_DATE: daysAgo(3).toISOString() },
    );
    fixtures.push(fixture);
    const env = fixture.envWith({ scopes: [{ scope: `org:${ORG}`, discoverProjects: true, excludeProjects: ['storefront*'] }] });
    const result = await runCli(['sync', '--once'], { ...env, EVENTS_SCOPES: undefined });
    expect(result.code, result.stderr).toBe(1);
    // The refusal is said once, above the summary, naming the project and the service's answer.
    const problem = result.stdout.split('\n').find((line) => line.startsWith('PROBLEM'));
    expect(problem, result.stdout).toContain(`group:${HIDDEN}`);
    expect(problem).toContain('USER_CANNOT_ACCESS_GROUP');

    const warehouse = await createWarehouse({ url: fixture.database.url, schema: 'events_mirror', dataDir: 'unused' });
    try {
      await expectMirrorEqualsEmulator(warehouse.db, fixture.emulator.dataset, [`org:${ORG}`, `group:${PAYMENTS}`, `group:${MOBILE}`]);
      expect(await mirroredIds(warehouse.db, `group:${STOREFRONT}`), 'an excluded project is not mirrored').toEqual([]);
      const known = await listKnownScopes(warehouse.db);
      expect(known.map((k) => [k.scope, k.origin, k.name])).toEqual([
        [`group:${PAYMENTS}`, 'discovered', 'Payments'],
        [`group:${HIDDEN}`, 'discovered', 'Hidden'],
        [`group:${MOBILE}`, 'discovered', 'Mobile Backend'],
        [`org:${ORG}`, 'configured', null],
      ]);
    } finally {
      await warehouse.close();
    }

    const status = await runCli(['status'], { ...env, EVENTS_SCOPES: undefined });
    expect(status.code, 'the project the key cannot read is failing').toBe(1);
    const line = (text: string, scope: string) => text.split('\n').find((l) => l.trimStart().startsWith(`${scope} `)) ?? '';
    expect(line(status.stdout, `group:${PAYMENTS}`)).toMatch(/Payments\s+ok\s/);
    expect(line(status.stdout, `group:${HIDDEN}`)).toMatch(/Hidden\s+failing\s/);
    expect(status.stdout).toContain('failing by error code: API_USER_CANNOT_ACCESS_GROUP 1\n');
    const failing = await runCli(['status', '--failing'], { ...env, EVENTS_SCOPES: undefined });
    expect(line(failing.stdout, `group:${HIDDEN}`)).toMatch(/Hidden.*USER_CANNOT_ACCESS_GROUP/);
    expect(line(failing.stdout, `group:${PAYMENTS}`)).toBe('');
    const detail = await runCli(['status', '--scope', `group:${PAYMENTS}`], { ...env, EVENTS_SCOPES: undefined });
    expect(detail.stdout).toMatch(new RegExp(`^origin: +discovered \\(org:${ORG}\\)$`, 'm'));
    const org = await runCli(['status', '--scope', `org:${ORG}`], { ...env, EVENTS_SCOPES: undefined });
    expect(org.stdout).toMatch(/^origin: +configured$/m);
  });

  it('scheduler and worker: a project created mid-run is polled within a discovery interval; a removed one stops being polled and keeps its rows', async () => {
    const first = '6a0000000000000000000151';
    const created = '6a0000000000000000000152';
    const locked = '6a0000000000000000000153';
    // The key reads the organization and two projects (one not created yet), not the locked one.
    const key: ApiKeyGrant = {
      publicKey: 'schedkey',
      privateKey: 'sched-key-secret',
      roles: [
        { orgId: '5f0000000000000000000151', roleName: 'ORG_MEMBER' },
        { groupId: first, roleName: 'GROUP_READ_ONLY' },
        { groupId: created, roleName: 'GROUP_READ_ONLY' },
      ],
    };
    const fixture = await startSyncFixture(
      {
        seed: 151,
        orgs: ['5f0000000000000000000151'],
        projects: [
          { id: first, orgId: '5f0000000000000000000151', name: 'First' },
          { id: locked, orgId: '5f0000000000000000000151', name: 'Locked' },
        ],
        eventsPerScope: 200,
        days: 1,
        keys: [key],
      },
      { EVENTS_START_DATE: daysAgo(2).toISOString() },
    );
    fixtures.push(fixture);
    const org = '5f0000000000000000000151';
    const prefix = `em-test-${randomUUID()}`;
    const metricsPort = await freePort();
    const DISCOVERY_SECONDS = 3;
    const POLL_SECONDS = 2;
    const env = {
      ...fixture.env,
      EVENTS_SCOPES: `org:${org}`,
      EVENTS_DISCOVER_PROJECTS: 'true',
      EVENTS_DISCOVERY_INTERVAL_SECONDS: String(DISCOVERY_SECONDS),
      EVENTS_POLL_INTERVAL_SECONDS: String(POLL_SECONDS),
      REDIS_PREFIX: prefix,
      METRICS_PORT: String(metricsPort),
    };
    const warehouse = await createWarehouse({ url: fixture.database.url, schema: 'events_mirror', dataDir: 'unused' });
    const processes: CliProcess[] = [];
    try {
      processes.push(startCli('scheduler', ['scheduler'], env), startCli('worker', ['worker'], env));
      const died = failWhenAnyExits(processes);
      const waitUp = <T>(what: string, check: () => Promise<T | undefined | false>, ms = 60_000) =>
        Promise.race([waitFor(what, check, ms), died]);
      const started = await pollMark(warehouse.db);
      await waitUp('the organization and its first project polled', async () => {
        const runs = await pollRunsSince(warehouse.db, started);
        return (runs.get(`org:${org}`) ?? 0) >= 1 && (runs.get(`group:${first}`) ?? 0) >= 1;
      });

      // The project the key cannot read fails alone, permanently, and the worker's metrics say so.
      await waitUp('the locked project reported as a permanent failure in /metrics', async () => {
        const text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
        return new RegExp(`events_mirror_scope_failures_total\\{[^}]*scope="group:${locked}"[^}]*kind="permanent"[^}]*\\} [1-9]`).test(
          text,
        );
      });

      fixture.emulator.addProject(created, { orgId: org, name: 'Created Mid-Run' });
      const createdAt = Date.now();
      const beforeCreated = await pollMark(warehouse.db);
      await waitUp('the created project mirrored', async () => {
        const runs = await pollRunsSince(warehouse.db, beforeCreated);
        return (runs.get(`group:${created}`) ?? 0) >= 1;
      });
      const pickedUpMs = Date.now() - createdAt;
      console.log(
        `a project created mid-run was polled ${(pickedUpMs / 1000).toFixed(1)} s later (discovery every ${DISCOVERY_SECONDS} s, poll every ${POLL_SECONDS} s)`,
      );
      expect(pickedUpMs, 'within one discovery interval plus one poll, with room for a busy machine').toBeLessThan(
        (DISCOVERY_SECONDS + POLL_SECONDS) * 1000 + 15_000,
      );

      const heldBefore = (await mirroredIds(warehouse.db, `group:${first}`)).length;
      expect(heldBefore).toBeGreaterThan(0);
      fixture.emulator.removeProject(first);
      const removed = await waitUp('the removed project marked removed', async () =>
        (await listKnownScopes(warehouse.db)).find((k) => k.scope === `group:${first}` && k.removedAt !== null),
      );
      // A poll already queued may still run; after that, none.
      await new Promise((resolve) => setTimeout(resolve, 3 * POLL_SECONDS * 1000));
      const quietSince = await pollMark(warehouse.db);
      const quietAt = new Date();
      await new Promise((resolve) => setTimeout(resolve, 3 * POLL_SECONDS * 1000));
      const { rows } = await sql<{
        n: number;
      }>`select count(*)::int as n from events_mirror.sync_runs where scope = ${`group:${first}`} and started_at > ${quietAt}`.execute(
        warehouse.db,
      );
      expect(rows[0]?.n, 'no poll of the removed project').toBe(0);
      expect(
        (await pollRunsSince(warehouse.db, quietSince)).get(`group:${first}`),
        'no poll of the removed project, idle ones included',
      ).toBe(undefined);
      expect((await pollRunsSince(warehouse.db, quietSince)).get(`group:${created}`) ?? 0, 'the others are still polled').toBeGreaterThan(
        0,
      );
      expect((await mirroredIds(warehouse.db, `group:${first}`)).length, 'its rows stay').toBe(heldBefore);
      expect(removed.removedAt).not.toBeNull();

      const connection = new Redis(REDIS_URL, { maxRetriesPerRequest: null });
      try {
        const schedulers = await createSyncQueue(connection, prefix).getJobSchedulers();
        const keys = schedulers.map((s) => s.key);
        expect(keys.some((k) => k.includes(created))).toBe(true);
        expect(keys.some((k) => k.includes(first))).toBe(false);
      } finally {
        connection.disconnect();
      }
      for (const p of processes) expect((await p.stop('SIGTERM')).code, p.output()).toBe(0);
    } catch (error) {
      throw new Error(`${String(error)}\n${processes.map((p) => p.output()).join('\n')}`, { cause: error });
    } finally {
      await Promise.all(processes.map((p) => p.stop('SIGKILL').catch(() => undefined)));
      await warehouse.close();
      await obliterateSyncQueue(REDIS_URL, prefix);
    }
  }, 180_000);

  it('a listing that fails removes nothing: the projects found before are kept until a listing succeeds', async () => {
    const org = '5f0000000000000000000171';
    const projects = ['6a0000000000000000000171', '6a0000000000000000000172'];
    const fixture = await startSyncFixture({ seed: 171, orgs: [org], groups: projects, eventsPerScope: 20, days: 1 });
    fixtures.push(fixture);
    const runtime = await fixture.runtime({ api: { maxAttempts: 1 }, scopes: [{ scope: `org:${org}`, discoverProjects: true }] });
    const configured = fixture.config({ scopes: [{ scope: `org:${org}`, discoverProjects: true }] }).scopes;
    const deps = { clients: runtime.clients, db: runtime.warehouse.db, logger: silentLogger(), now: () => new Date() };
    const expected = [`org:${org}`, ...projects.map((id) => `group:${id}`)];

    const listed = await discoverScopes(deps, configured);
    expect(listed.scopes.map((s) => s.scope.key)).toEqual(expected);

    fixture.emulator.setFaults({ rate5xx: 1 });
    const failed = await discoverScopes(deps, configured);
    expect(failed.orgs[0]).toMatchObject({ outcome: 'failed', projects: 2 });
    expect(failed.scopes.map((s) => s.scope.key)).toEqual(expected);
    expect((await listKnownScopes(runtime.warehouse.db)).filter((k) => k.removedAt !== null)).toEqual([]);

    fixture.emulator.setFaults({ rate5xx: 0 });
    fixture.emulator.removeProject(projects[1]!);
    const after = await discoverScopes(deps, configured);
    expect(after.orgs[0]).toMatchObject({ outcome: 'listed', removed: [`group:${projects[1]}`] });
    expect(after.scopes.map((s) => s.scope.key)).toEqual(expected.slice(0, 2));
  });
});
