/**
 * `events-mirror forget` (issue 37) against the real PostgreSQL and Redis: three scopes synced over
 * HTTP (an organization and a project listing one event both, the project a malformed one too, and
 * a third scope left alone), their job schedulers and a queued backfill in Redis. forget refuses
 * an unknown scope (listing the known ones), a configured one, and one held by a runner, touching
 * nothing; it removes the state, runs, scopes row, job schedulers and jobs of the scope, and with
 * --delete-events its events, memberships and rejected events, a shared event staying with the
 * other scope. The third scope is untouched throughout.
 */
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseScope } from '../../src/scope.js';
import { scopeLockFor } from '../../src/sync/lock.js';
import { createSyncQueue, type SyncQueue } from '../../src/queue/scheduler.js';
import { recordConfiguredScopes, recordDiscoveredProjects } from '../../src/warehouse/scopes.repository.js';
import { runCli } from '../helpers/cli.js';
import { obliterateSyncQueue } from '../helpers/queue-processes.js';
import { REDIS_URL } from '../helpers/services.js';
import { startStubFeedSync, syncThroughStub, type StubFeedSync } from '../helpers/stub-feed.js';

const ORG = 'org:5f0000000000000000000373';
const GROUP = 'group:6a0000000000000000000373';
const OTHER = 'group:6a0000000000000000000374';
/** A project the organization discovered (not configured). */
const FOUND = 'group:6a0000000000000000000376';
const SHARED = '64cc00000000000000000001';
const created = new Date(Math.floor(Date.now() / 1000 - 3600) * 1000).toISOString().replace('.000Z', 'Z');

function feed(path: string): unknown[] {
  if (path.includes('/orgs/')) {
    return [
      { id: '64cc000000000000000000aa', created, eventTypeName: 'ORG_EVENT', orgId: ORG.slice(4) },
      { id: SHARED, created, eventTypeName: 'JOINED_GROUP', orgId: ORG.slice(4) },
    ];
  }
  if (path.includes(OTHER.slice(6))) return [{ id: '64cc000000000000000000cc', created, eventTypeName: 'OTHER_EVENT' }];
  if (path.includes(FOUND.slice(6)))
    return [{ id: '64cc000000000000000000ee', created, eventTypeName: 'FOUND_EVENT', groupId: FOUND.slice(6) }];
  return [
    { id: '64cc000000000000000000bb', created, eventTypeName: 'GROUP_EVENT', groupId: GROUP.slice(6) },
    { id: SHARED, created, eventTypeName: 'JOINED_GROUP', groupId: GROUP.slice(6) },
    { id: '64cc000000000000000000dd', eventTypeName: 'NO_CREATED' },
  ];
}

describe('forget --scope', () => {
  let stub: StubFeedSync;
  let redis: Redis;
  let queue: SyncQueue;
  const prefix = `em-test-${randomUUID()}`;
  let env: Record<string, string>;

  beforeAll(async () => {
    stub = await startStubFeedSync('postgres', [ORG, GROUP, OTHER, FOUND], feed);
    // The organization first: the event types and fields it shares with the project are credited to it.
    for (const key of [ORG, GROUP, OTHER, FOUND]) {
      const result = await syncThroughStub(stub, key);
      expect(result.status).toBe('succeeded');
    }
    // As sync --once records its configured scopes.
    await recordConfiguredScopes(
      stub.runtime.warehouse.db,
      [ORG, GROUP, OTHER].map((key) => {
        const scope = parseScope(key);
        return { kind: scope.kind, scopeId: scope.id };
      }),
      new Date(),
    );
    await recordDiscoveredProjects(stub.runtime.warehouse.db, ORG, [{ kind: 'group', scopeId: FOUND.slice(6), name: 'found' }], new Date());
    env = { DATABASE_URL: stub.config.database.url!, REDIS_PREFIX: prefix };
    const scheduled = await runCli(['scheduler', '--once'], { ...env, EVENTS_SCOPES: [ORG, GROUP, OTHER].join(',') });
    expect(scheduled.stdout).toContain('job schedulers for 3 scopes');
    const from = new Date(Date.now() - 2 * 86_400_000).toISOString().slice(0, 10);
    const enqueued = await runCli(['backfill', '--scope', GROUP, '--from', from, '--enqueue'], { ...env, EVENTS_SCOPES: GROUP });
    expect(enqueued.code, enqueued.stderr).toBe(0);
    redis = new Redis(REDIS_URL, { maxRetriesPerRequest: null });
    queue = createSyncQueue(redis, prefix);
  });

  afterAll(async () => {
    await queue?.close();
    redis?.disconnect();
    await obliterateSyncQueue(REDIS_URL, prefix);
    await stub?.close();
  });

  const db = () => stub.runtime.warehouse.db;
  /** Only OTHER stays configured. */
  const forget = (...args: string[]) => runCli(['forget', ...args], { ...env, EVENTS_SCOPES: OTHER });
  const status = async () => {
    const result = await runCli(['status'], { ...env, EVENTS_SCOPES: OTHER });
    expect(result.code, result.stderr).toBe(0);
    return result.stdout;
  };
  const schedulerIds = async () => (await queue.getJobSchedulers(0, -1, true)).map((s) => s.key).sort();
  const jobsOf = async (key: string) =>
    (await queue.getJobs(['waiting', 'delayed', 'prioritized', 'completed', 'failed'], 0, -1, true)).filter((j) => j.data?.scope === key)
      .length;
  const stateOf = async (key: string) => ({
    syncState: (await db().selectFrom('sync_state').select('scope').where('scope', '=', key).execute()).length,
    scopes: (await db().selectFrom('scopes').select('scope').where('scope', '=', key).execute()).length,
    runs: (await db().selectFrom('sync_runs').select('id').where('scope', '=', key).execute()).length,
    events: (await db().selectFrom('event_scopes').select('event_id').where('scope', '=', key).execute()).length,
    rejected: (await db().selectFrom('rejected_events').select('id').where('scope', '=', key).execute()).length,
  });

  // About twenty CLI runs: well past the default minute on a loaded machine.
  it('refuses an unknown scope, a configured one and a held one, touching nothing; then forgets', async () => {
    const other = await stateOf(OTHER);
    expect(other).toMatchObject({ syncState: 1, events: 1 });
    expect(await stateOf(GROUP)).toMatchObject({ syncState: 1, scopes: 1, events: 2, rejected: 1 });
    expect(await jobsOf(GROUP)).toBeGreaterThanOrEqual(2);
    const allSchedulers = await schedulerIds();
    expect(allSchedulers).toHaveLength(6);

    const unknown = await forget('--scope', 'group:6a0000000000000000000379');
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain(
      `--scope group:6a0000000000000000000379: no such scope is configured or in the warehouse; known: ${GROUP}, ${OTHER}, ${FOUND}, ${ORG}`,
    );
    const configured = await forget('--scope', OTHER);
    expect(configured.code).toBe(2);
    expect(configured.stderr).toContain(`--scope ${OTHER} is configured (EVENTS_SCOPES or "scopes" in a config file)`);

    // A runner holds the organization: refused, and nothing is touched (neither Redis nor the warehouse).
    const release = await scopeLockFor(stub.runtime.warehouse).tryAcquire(ORG);
    expect(release).toBeDefined();
    let held;
    try {
      held = await forget('--scope', ORG, '--delete-events');
    } finally {
      await release!();
    }
    expect(held.code).toBe(2);
    expect(held.stderr).toContain(
      `${ORG} is being synced right now: stop its sync or worker (or wait for the poll to end) and run forget again`,
    );
    expect(await schedulerIds()).toEqual(allSchedulers);
    expect(await stateOf(ORG)).toMatchObject({ syncState: 1, scopes: 1, events: 2 });

    const schemaBefore = await runCli(['status', '--schema-changes'], { ...env, EVENTS_SCOPES: OTHER });
    expect(schemaBefore.stdout).toContain(ORG);
    expect(await status()).toContain(FOUND);

    // The organization, events and all: its own event goes, the shared one stays with the project,
    // and the project it discovered goes with it.
    const org = await forget('--scope', ORG, '--delete-events');
    expect(org.stderr).toBe('');
    expect(org.code).toBe(0);
    expect(org.stdout).toMatch(
      new RegExp(
        `^forgot ${FOUND} \\(discovered by ${ORG}\\): its checkpoint and state, [1-9]\\d* runs?, its scopes row; 0 job schedulers and 0 jobs in Redis; ` +
          '1 event deleted, 0 memberships, 0 rejected events\\n' +
          `forgot ${ORG}: its checkpoint and state, [1-9]\\d* runs?, its scopes row; 2 job schedulers and 0 jobs in Redis; ` +
          '1 event deleted \\(1 event kept: another scope lists them\\), 0 memberships, 0 rejected events\\n$',
      ),
    );
    expect(await stateOf(ORG)).toEqual({ syncState: 0, scopes: 0, runs: 0, events: 0, rejected: 0 });
    expect(await stateOf(FOUND)).toEqual({ syncState: 0, scopes: 0, runs: 0, events: 0, rejected: 0 });
    expect(await status()).not.toContain(FOUND);
    // The schema changes its events brought: the shared type passes to the project, its own types go.
    const seen = await db()
      .selectFrom('event_types_seen')
      .select(['event_type_name', 'scope', 'first_event_id'])
      .orderBy('event_type_name')
      .execute();
    expect(seen).toEqual([
      { event_type_name: 'GROUP_EVENT', scope: GROUP, first_event_id: '64cc000000000000000000bb' },
      { event_type_name: 'JOINED_GROUP', scope: GROUP, first_event_id: SHARED },
      { event_type_name: 'OTHER_EVENT', scope: OTHER, first_event_id: '64cc000000000000000000cc' },
    ]);
    const fieldScopes = await db().selectFrom('event_fields_seen').select('scope').distinct().orderBy('scope').execute();
    expect(fieldScopes.map((f) => f.scope)).toEqual([GROUP, OTHER]);
    const schemaAfter = await runCli(['status', '--schema-changes'], { ...env, EVENTS_SCOPES: OTHER });
    expect(schemaAfter.code, schemaAfter.stderr).toBe(0);
    expect(schemaAfter.stdout).not.toContain(ORG.slice(4));
    expect(schemaAfter.stdout).not.toContain(FOUND.slice(6));
    const shared = await db().selectFrom('events').select('scope').where('id', '=', SHARED).executeTakeFirstOrThrow();
    expect(shared.scope).toBe(GROUP);
    expect(await db().selectFrom('event_scopes').select('scope').where('event_id', '=', SHARED).execute()).toEqual([{ scope: GROUP }]);
    expect(await schedulerIds()).toEqual(allSchedulers.filter((id) => !id.endsWith(ORG.slice(4))));

    // The project, keeping its events: its state and queued backfill go.
    const group = await forget('--scope', GROUP);
    expect(group.code, group.stderr).toBe(0);
    expect(group.stdout).toMatch(
      new RegExp(
        `^forgot ${GROUP}: its checkpoint and state, [1-9]\\d* runs?, its scopes row; 2 job schedulers and [1-9]\\d* jobs in Redis; 2 events kept \\(delete them with --delete-events\\)\\n$`,
      ),
    );
    expect(await stateOf(GROUP)).toEqual({ syncState: 0, scopes: 0, runs: 0, events: 2, rejected: 1 });
    expect(await jobsOf(GROUP)).toBe(0);
    // Its events stay, but status lists it no more (it listed it as never synced).
    expect(await status()).not.toContain(GROUP);
    const json = await runCli(['status', '--json'], { ...env, EVENTS_SCOPES: OTHER });
    expect((JSON.parse(json.stdout) as { scopes: Array<{ scope: string }> }).scopes.map((s) => s.scope)).toEqual([OTHER]);

    // Its events still name it, so --delete-events can follow; then it is unknown.
    const events = await forget('--scope', GROUP, '--delete-events');
    expect(events.code, events.stderr).toBe(0);
    expect(events.stdout).toContain(
      'no checkpoint, 0 runs, no scopes row; 0 job schedulers and 0 jobs in Redis; 2 events deleted, 0 memberships, 1 rejected event',
    );
    expect(await stateOf(GROUP)).toEqual({ syncState: 0, scopes: 0, runs: 0, events: 0, rejected: 0 });
    const gone = await forget('--scope', GROUP);
    expect(gone.code).toBe(2);
    expect(gone.stderr).toContain(`--scope ${GROUP}: no such scope is configured or in the warehouse; known: ${OTHER}`);

    expect(await stateOf(OTHER)).toEqual(other);
    expect(await schedulerIds()).toEqual([`poll.group.${OTHER.slice(6)}`, `reconcile.group.${OTHER.slice(6)}`]);
  }, 180_000);
});
