/**
 * What a person sees in an 80-column terminal (test/helpers/terminal.ts replays the CLI's output
 * into a headless xterm.js): the demo's first run fits without a wrapped line, shows its bar once
 * and no warnings, and its hints work when pasted; warnings logged while a bar is drawn print whole
 * above it instead of through it.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/server.js';
import { cliEnv, cliNodeArgs } from '../helpers/cli.js';
import { emulatorEnv } from '../helpers/emulator.js';
import { daysAgo } from '../helpers/sync-fixture.js';
import { runCliInTerminal, screenLines, type TerminalRun } from '../helpers/terminal.js';

/** As a person runs it: no LOG_LEVEL, no NODE_ENV (config/test.json would make it silent). */
const AS_A_PERSON = { LOG_LEVEL: undefined, NODE_ENV: undefined };
const WARNING = /^\[\d\d:\d\d:\d\d\.\d{3}\] WARN: /;

/** The run's screen lines, once it exited 0 with no row continuing a line wider than the terminal. */
function succeededWithoutWrapping(run: TerminalRun): string[] {
  const lines = screenLines(run.rows);
  expect(run.code, lines.join('\n')).toBe(0);
  expect(
    run.rows.filter((row) => row.wrapped),
    'rows that continue a line wider than 80 columns',
  ).toEqual([]);
  return lines;
}

describe('the demo in an 80-column terminal', () => {
  it('fits without wrapping, draws its bar once, prints no warning, and its look-around lines work when pasted', async () => {
    const cwd = mkdtempSync(path.join(tmpdir(), 'em-screen-demo-'));
    const run = await runCliInTerminal(['demo', '--events-per-scope', '400', '--days', '7'], AS_A_PERSON, { cwd });
    const lines = succeededWithoutWrapping(run);
    // The emulator's deliberate malformed events are counted in the summary, not warned about a page at a time.
    expect(lines.filter((line) => line.includes('WARN'))).toEqual([]);
    const malformed = /\((\d+) malformed set aside in rejected_events\)/.exec(lines.join('\n'));
    expect(Number(malformed?.[1])).toBeGreaterThan(0);
    const bars = lines.filter((line) => line.startsWith('mirroring ['));
    expect(bars).toHaveLength(1);
    expect(bars[0]).toMatch(/ (\d+)\/\1 events$/);

    // The look-around lines, pasted into a shell in the same folder (the test's build for `npx events-mirror`).
    const start = lines.indexOf("Look around the demo's warehouse with the ordinary commands:");
    const pasted = lines
      .slice(start + 1, lines.indexOf('', start))
      .join('\n')
      .replaceAll('npx events-mirror', [process.execPath, ...cliNodeArgs()].join(' '));
    expect(pasted.split('\n')).toHaveLength(4);
    const { stdout } = await promisify(execFile)('sh', ['-c', pasted], { cwd, env: cliEnv(AS_A_PERSON) });
    expect(stdout).toMatch(/^4 scopes: 4 ok, 0 failing/m);
    const rejectedRows = stdout.split('\n').filter((line) => /^(group|org):[0-9a-f]{24} +\S/.test(line) && line.includes(' is '));
    expect(rejectedRows).toHaveLength(Number(malformed?.[1]));
  }, 120_000);
});

describe('sync --once in an 80-column terminal, warnings on', () => {
  let emulator: RunningEmulator;
  let cwd: string;
  let env: Record<string, string | undefined>;

  beforeAll(async () => {
    emulator = await startEmulator({ port: 0, seed: 7, eventsPerScope: 1500, days: 7, faults: { malformedRate: 0.005 } });
    cwd = mkdtempSync(path.join(tmpdir(), 'em-screen-sync-'));
    env = { ...AS_A_PERSON, ...emulatorEnv(emulator), EVENTS_START_DATE: daysAgo(8).toISOString(), LOG_LEVEL: 'warn' };
  });
  afterAll(async () => {
    await emulator?.close();
  });

  it('check wraps each line under itself within 80 columns', async () => {
    const run = await runCliInTerminal(['check'], env, { cwd });
    const lines = succeededWithoutWrapping(run);
    // Each scope, the credential, the warehouse and the suite's Redis; the credential's line, with its URL, wraps.
    const oks = lines.filter((line) => line.startsWith('ok       '));
    expect(oks).toHaveLength(emulator.dataset.scopes().length + 3);
    expect(lines).toContain(`all ${oks.length} checks passed`);
    expect(lines.some((line) => /^ {9}\S/.test(line))).toBe(true);
  }, 120_000);

  it('prints each warning whole above the bar, the bar once below them, then a summary within 80 columns', async () => {
    const run = await runCliInTerminal(['sync', '--once'], env, { cwd });
    const lines = screenLines(run.rows);
    expect(run.code, lines.join('\n')).toBe(0);
    const warnings = lines.filter((line) => line.includes('WARN'));
    expect(warnings.length).toBeGreaterThan(0);
    for (const warning of warnings) {
      // Starts the line (not after a bar drawn on the same row) and is not cut at the terminal's width.
      expect(warning).toMatch(WARNING);
      expect(warning).toMatch(/set aside in rejected_events \(.+\); the rest of the page landed$/);
    }
    const bars = lines.map((line, i) => [line, i] as const).filter(([line]) => line.startsWith('sync ['));
    expect(bars.map(([line]) => line)).toEqual([expect.stringMatching(/\] 4\/4 scopes \| [\d,]+ events$/)]);
    const lastWarning = lines.findLastIndex((line) => WARNING.test(line));
    expect(bars[0]![1]).toBeGreaterThan(lastWarning);
    // The summary below the bar fits in 80 columns.
    const summary = lines.slice(bars[0]![1] + 1);
    expect(summary).toContain('4 scopes synced');
    for (const line of summary) expect(line.length, line).toBeLessThanOrEqual(80);
  }, 120_000);

  it('backfill draws its bar with the counts and the eta within 80 columns', async () => {
    const scope = emulator.dataset.scopes()[0]!;
    const run = await runCliInTerminal(['backfill', '--scope', scope, '--from', daysAgo(7).toISOString()], env, { cwd });
    const lines = screenLines(run.rows);
    expect(run.code, lines.join('\n')).toBe(0);
    const bars = lines.filter((line) => line.startsWith('backfill ['));
    expect(bars).toEqual([expect.stringMatching(/\] (\d+)\/\1 windows \| [\d,]+ events \| eta \S+$/)]);
    expect(bars[0]!.length).toBeLessThanOrEqual(80);
    expect(lines.some((line) => line.startsWith(`backfilled ${scope} `))).toBe(true);
  }, 120_000);
});
