/**
 * `--json` on `status`, `sync --once`, `reconcile` and `checkpoint`: one document whose schema
 * docs/commands.md ("JSON output") describes, held here to the zod schema in src for each command,
 * with the CLI run as a child against the emulator and PostgreSQL. One configured project the
 * emulator does not know fails with 404 GROUP_NOT_FOUND, so failures are in the documents too.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commandJsonSchema, type CommandJson } from '../../src/report/json-output.js';
import { runCli } from '../helpers/cli.js';
import { daysAgo, startSyncFixture, type SyncFixture } from '../helpers/sync-fixture.js';

const GROUP = 'group:6a0000000000000000000343';
const STRANGER = 'group:6a00000000000000000003ff';

describe('--json documents', () => {
  let fixture: SyncFixture;
  let env: Record<string, string>;

  beforeAll(async () => {
    fixture = await startSyncFixture(
      { seed: 343, orgs: ['5f0000000000000000000343'], groups: [GROUP.slice(6)], eventsPerScope: 200, days: 2 },
      { EVENTS_START_DATE: daysAgo(3).toISOString() },
    );
    env = { ...fixture.env, EVENTS_SCOPES: `${GROUP},${STRANGER}` };
  });
  afterAll(async () => {
    await fixture?.close();
  });

  const run = async (args: string[], code: number): Promise<CommandJson> => {
    const result = await runCli(args, env);
    expect(result.code, `${args.join(' ')}: ${result.stderr}`).toBe(code);
    const parsed = commandJsonSchema.safeParse(JSON.parse(result.stdout));
    expect(parsed.error?.issues ?? [], result.stdout).toEqual([]);
    return parsed.data!;
  };

  it('sync --once --json: each scope synced, its run and its state; exit 1 for the failing one', async () => {
    const doc = await run(['sync', '--once', '--json'], 1);
    expect(doc.command).toBe('sync');
    expect(doc.scopes.map((s) => s.scope).sort()).toEqual([GROUP, STRANGER].sort());
    const good = doc.scopes.find((s) => s.scope === GROUP)!;
    const held = fixture.emulator.dataset.validIds(GROUP).size;
    expect(good).toMatchObject({ state: 'ok', consecutiveFailures: 0, lastError: null, events: null });
    expect(good.run).toMatchObject({ kind: 'sync', status: 'succeeded', inserted: held, error: null });
    const bad = doc.scopes.find((s) => s.scope === STRANGER)!;
    expect(bad).toMatchObject({ state: 'failing', consecutiveFailures: 1, lastError: { code: 'API_GROUP_NOT_FOUND' } });
    expect(bad.run).toMatchObject({ kind: 'sync', status: 'failed', error: { code: 'API_GROUP_NOT_FOUND' } });
    expect(doc.summary).toMatchObject({
      scopes: 2,
      byState: { ok: 1, failing: 1 },
      failingByCode: [{ code: 'API_GROUP_NOT_FOUND', scopes: 1 }],
    });
  }, 120_000);

  it('--json needs --once on sync', async () => {
    const result = await runCli(['sync', '--json'], env);
    expect(result.code).toBe(2);
    expect(result.stderr.split('\n')[0]).toBe('events-mirror: --json needs --once: a continuous sync prints one table per pass');
  });

  it('status --json: every scope, events held, the failing one with its code (exit 1: a scope is failing)', async () => {
    const doc = await run(['status', '--json'], 1);
    expect(doc.command).toBe('status');
    expect(doc.scopes.map((s) => s.scope)).toEqual([STRANGER, GROUP]);
    expect(doc.scopes[1]).toMatchObject({ events: fixture.emulator.dataset.validIds(GROUP).size, origin: 'configured', run: null });
    const one = await run(['status', '--scope', STRANGER, '--json'], 1);
    expect(one.scopes).toHaveLength(1);
    expect(one.scopes[0]!.lastError!.message).toContain('404');
  }, 60_000);

  it('reconcile --json: the reconcile under run, with its range', async () => {
    const doc = await run(['reconcile', '--scope', GROUP, '--json'], 0);
    expect(doc.command).toBe('reconcile');
    expect(doc.scopes).toHaveLength(1);
    expect(doc.scopes[0]!.run).toMatchObject({ kind: 'reconcile', outcome: 'consistent', consistent: true, eventsMissing: 0, error: null });
    expect(doc.scopes[0]!.lastReconcile).toMatchObject({ result: 'consistent' });
  }, 60_000);

  it('checkpoint --json: shown, then moved back', async () => {
    const shown = await run(['checkpoint', '--scope', GROUP, '--json'], 0);
    expect(shown.command).toBe('checkpoint');
    const watermark = shown.scopes[0]!.watermark;
    expect(shown.scopes[0]!.run).toMatchObject({ kind: 'checkpoint', action: 'show', before: watermark, after: watermark });
    const to = daysAgo(1);
    to.setUTCMilliseconds(0);
    const moved = await run(['checkpoint', '--scope', GROUP, '--set', to.toISOString().replace('.000Z', 'Z'), '--json'], 0);
    expect(moved.scopes[0]!.run).toMatchObject({ kind: 'checkpoint', action: 'set', before: watermark, after: to.toISOString() });
    expect(moved.scopes[0]!.watermark).toBe(to.toISOString());
  }, 60_000);
});
