/**
 * The commands as a person reads them in a terminal (issue 36): a first `sync --once` prints its
 * summary and nothing at warn level (no listener-leak warning either), `status` stays short with
 * schema changes in one line, long errors are cut in tables and whole in `status --scope`, dates
 * on the command line mean what the help says, and a scope the mirror does not know is an error.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/server.js';
import { runCli, spawnCli, waitForExit } from '../helpers/cli.js';
import { daysAgo, startSyncFixture, type SyncFixture } from '../helpers/sync-fixture.js';
import { emulatorEnv } from '../helpers/emulator.js';

describe('a first sync on a fresh embedded warehouse, at the default log level', () => {
  let emulator: RunningEmulator;
  let env: Record<string, string | undefined>;

  beforeAll(async () => {
    // The demo's world: one organization and three projects, a month of history.
    emulator = await startEmulator({ port: 0, seed: 36, eventsPerScope: 300, days: 30 });
    env = {
      ...emulatorEnv(emulator),
      EVENTS_START_DATE: daysAgo(31).toISOString(),
      EVENTS_MIRROR_DATA_DIR: path.join(mkdtempSync(path.join(tmpdir(), 'em-terminal-')), 'data'),
      // Unset, and no config/test.json (which sets "silent"): the command's own default, as a person gets it.
      LOG_LEVEL: undefined,
      NODE_ENV: undefined,
    };
  });
  afterAll(async () => {
    await emulator?.close();
  });

  it('prints the summary and the schema lines within 80 columns, and nothing on stderr', async () => {
    // A first load into a fresh embedded warehouse is slow on a busy machine: more than runCli's 2 minutes.
    const result = await waitForExit(spawnCli(['sync', '--once'], env), 280_000);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).not.toContain('MaxListenersExceededWarning');
    expect(result.stderr).toBe('');
    expect(result.stdout).toContain('4 scopes synced\n');
    expect(result.stdout).toMatch(
      /^schema: \d+ new event types, \d+ new fields \(kept as received\)\n {2}list them: npx events-mirror status --schema-changes$/m,
    );
    expect(result.stdout.trim().split('\n').length).toBeLessThanOrEqual(9);
    const schemaLines = result.stdout
      .slice(result.stdout.indexOf('\nschema: ') + 1)
      .trimEnd()
      .split('\n');
    for (const line of schemaLines) expect(line.length, line).toBeLessThanOrEqual(80);
  }, 300_000);

  it('status fits in a screen of 80 columns: the table and the schema lines; --schema-changes lists them', async () => {
    const status = await runCli(['status'], env);
    expect(status.code, status.stderr).toBe(0);
    expect(status.stderr).toBe('');
    const lines = status.stdout.trimEnd().split('\n');
    expect(lines.length).toBeLessThanOrEqual(40);
    expect(lines[0]).toBe('4 scopes: 4 ok, 0 failing, 0 lagging, 0 never synced');
    for (const line of lines) expect(line.length, line).toBeLessThanOrEqual(80);
    expect(status.stdout).toMatch(
      /^schema changes, last 7 days: \d+ new event types, \d+ new fields of known types\n {2}list them: npx events-mirror status --schema-changes$/m,
    );
    expect(status.stdout).not.toContain('new event type ');

    const listed = await runCli(['status', '--schema-changes'], env);
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toMatch(/new event type\s+OUTSIDE_METRIC_THRESHOLD\s/);
    // Each change's scope and first event under it, within 80 columns (issue 44, item 7).
    expect(listed.stdout).toMatch(/\n {4}in (org|group):[0-9a-f]{24}, first event [0-9a-f]{24}\n/);
    for (const line of listed.stdout.split('\n')) expect(line.length, line).toBeLessThanOrEqual(80);

    // reconcile: the shared range once, a line a scope, within 80 columns.
    const reconciled = await runCli(['reconcile'], env);
    expect(reconciled.code, reconciled.stderr).toBe(0);
    expect(reconciled.stdout).toMatch(/^range \S+Z\.\.\S+Z, [\d,]+ requests\n/);
    expect(reconciled.stdout.split('\n').filter((line) => / {2}consistent: \d+ windows/.test(line))).toHaveLength(4);
    expect(reconciled.stdout).toContain('4 scopes consistent with the API\n');
    for (const line of reconciled.stdout.split('\n')) expect(line.length, line).toBeLessThanOrEqual(80);
  }, 300_000);

  it('report without --html prints the summary the demo prints, for this data', async () => {
    const report = await runCli(['report', '--days', '40'], env);
    expect(report.code, report.stderr).toBe(0);
    expect(report.stdout).toMatch(/^[\d,]+ events mirrored from 4 scopes since \S+ \(\d+ malformed set aside in rejected_events\)$/m);
    for (const heading of ['Events per type (top 8)', 'Events per day (last 7 days)', 'Top actors', 'Sync lag']) {
      expect(report.stdout).toContain(heading);
    }
    expect(report.stdout).toContain('With charts: npx events-mirror report --html report.html');
  }, 180_000);
});

describe('migrate at the default log level', () => {
  it('names each migration it applied on stdout, once, and prints nothing on stderr', async () => {
    const dataDir = path.join(mkdtempSync(path.join(tmpdir(), 'em-terminal-migrate-')), 'data');
    const result = await runCli(['migrate'], { EVENTS_MIRROR_DATA_DIR: dataDir, LOG_LEVEL: undefined, NODE_ENV: undefined });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toBe('');
    const [summary, ...names] = result.stdout.trimEnd().split('\n');
    expect(summary).toBe(`applied ${names.length} migrations to embedded warehouse schema events_mirror:`);
    expect(names.length).toBeGreaterThan(10);
    for (const name of names) expect(name).toMatch(/^ {2}\d{4}_\d\d_\d\d_\d{6}_[a-z_]+$/);
  });
});

describe('command-line arguments on a PostgreSQL warehouse', () => {
  const GROUP = '60000000000000000000f036';
  const SCOPE = `group:${GROUP}`;
  const STRANGER = 'group:60000000000000000000dead';
  let fixture: SyncFixture;
  let env: Record<string, string>;
  let firstSync = '';

  beforeAll(async () => {
    fixture = await startSyncFixture(
      { seed: 361, orgs: ['5f000000000000000000f036'], groups: [GROUP], eventsPerScope: 1500, days: 6 },
      { EVENTS_SCOPES: SCOPE },
    );
    env = fixture.envWith({ sync: { initialDays: 7 } });
    const synced = await runCli(['sync', '--once'], env);
    expect(synced.code, synced.stderr).toBe(0);
    firstSync = synced.stdout;
  }, 240_000);
  afterAll(async () => {
    await fixture?.close();
  });

  it('a date-only --to takes in that whole day', async () => {
    const day = daysAgo(3).toISOString().slice(0, 10);
    const onThatDay = fixture.emulator.dataset.allEvents(SCOPE).filter((e) => String(e.created).startsWith(day)).length;
    expect(onThatDay).toBeGreaterThan(50);
    const result = await runCli(['backfill', '--scope', SCOPE, '--from', day, '--to', day], env);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain(`${SCOPE} ${day}T00:00:00Z..${day}T23:59:59Z:`);
    expect(result.stdout).toContain(`, ${onThatDay.toLocaleString('en-US')} events (`);
  }, 60_000);

  it('a time without seconds (or zone) is taken, as UTC', async () => {
    const day = daysAgo(2).toISOString().slice(0, 10);
    const result = await runCli(['backfill', '--scope', SCOPE, '--from', `${day}T06:00`, '--to', `${day}T12:00`], env);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain(`${SCOPE} ${day}T06:00:00Z..${day}T12:00:00Z:`);
  }, 60_000);

  it('a scope the mirror does not know is an error listing the known ones, for every command', async () => {
    for (const args of [
      ['report', '--scope', STRANGER],
      ['report', '--scope', STRANGER, '--html', path.join(tmpdir(), 'never.html')],
      ['checkpoint', '--scope', STRANGER],
      ['backfill', '--scope', STRANGER, '--from', daysAgo(1).toISOString().slice(0, 10)],
      ['reconcile', '--scope', STRANGER],
    ]) {
      const result = await runCli(args, env);
      expect(result.code, `${args.join(' ')}: ${result.stdout}${result.stderr}`).toBe(2);
      expect(result.stderr.split('\n')[0], args.join(' ')).toMatch(new RegExp(`--scope ${STRANGER}.*${SCOPE}`));
    }
  }, 300_000);

  it('one scope reads "1 scope"', async () => {
    expect(firstSync).toContain('1 scope synced\n');
    const result = await runCli(['reconcile'], env);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('1 scope consistent with the API\n');
  }, 60_000);

  it('a long error is a problem above the sync table, cut in the status table, and whole in status --scope', async () => {
    const failing = { ...env, EVENTS_SCOPES: `${SCOPE},${STRANGER}` };
    const sync = await runCli(['sync', '--once'], failing);
    expect(sync.code).toBe(1);
    const row = sync.stdout.split('\n').find((line) => line.startsWith(STRANGER))!;
    expect(row).toMatch(/ failed$/);
    // The problem above the table: the scope, the service's answer and the fix, once, without the request.
    const problems = sync.stdout.split('\n').filter((line) => line.startsWith('PROBLEM  '));
    expect(problems).toEqual([
      expect.stringMatching(new RegExp(`^PROBLEM  ${STRANGER}: 404 GROUP_NOT_FOUND: .* \\(no project has this id: `)),
    ]);
    expect(sync.stdout).toContain('1 of 2 scopes failed (1 problem, above)\n');

    const status = await runCli(['status'], failing);
    expect(status.code, status.stderr).toBe(1);
    expect(status.stdout.split('\n').find((line) => line.startsWith(STRANGER))).toMatch(/\sfailing\s/);
    expect(status.stdout).toContain('failing scopes with their errors: npx events-mirror status --failing\n');
    const failingRows = await runCli(['status', '--failing'], failing);
    expect(failingRows.code, failingRows.stderr).toBe(1);
    const statusRow = failingRows.stdout.split('\n').find((line) => line.startsWith(STRANGER))!;
    expect(statusRow).toContain('…');
    expect(statusRow.length).toBeLessThanOrEqual(80);
    expect(failingRows.stdout).toContain(`whole error: npx events-mirror status --scope ${STRANGER}`);

    const detail = await runCli(['status', '--scope', STRANGER], failing);
    expect(detail.code, detail.stderr).toBe(1);
    const lastError = /^last error:\s+(.*)$/m.exec(detail.stdout)?.[1] ?? '';
    expect(lastError.length).toBeGreaterThan(80);
    expect(lastError).not.toContain('…');
    expect(lastError).toContain('404');
  }, 90_000);
});
