/**
 * The docs' command examples come from the commands (issue 44, item 9): each block marked
 * `<!-- output: NAME -->` whose first line is `$ npx events-mirror …` is run against the emulator
 * (with the ids the docs show) and its output compared line by line with the block. Only what the
 * data and the clock decide is masked (event and page counts, and for reconcile the range and the
 * counts); the windows, the range of a backfill and the layout must match as printed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { createMigratedTestDatabase, type TestDatabase } from '../helpers/database.js';
import { documentedOutput } from '../helpers/doc-examples.js';
import { startTestEmulator, type RunningEmulator } from '../helpers/emulator.js';

const ORG = '61221363cd1b984bce8e49f0';
const GROUP = '5fca0351da4a3a7c2c2fa071';

type Mask = (line: string) => string;
const counts: Mask = (line) =>
  line.replace(/\d+ pages, [\d,]+ events \(\d+ new, \d+ changed, \d+ rejected\)/, '<n> pages, <n> events (<counts>)');
const clockAndCounts: Mask = (line) => line.replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ/g, '<time>').replace(/\d[\d,]*/g, '<n>');

const EXAMPLES: ReadonlyArray<{ file: string; name: string; mask: Mask }> = [
  { file: 'README.md', name: 'readme-backfill', mask: counts },
  { file: 'docs/commands.md', name: 'commands-backfill', mask: counts },
  { file: 'README.md', name: 'readme-reconcile', mask: clockAndCounts },
];

describe('command examples in the docs', { timeout: 300_000 }, () => {
  let emulator: RunningEmulator;
  let database: TestDatabase;
  let env: Record<string, string>;

  beforeAll(async () => {
    emulator = await startTestEmulator({ orgs: [ORG], groups: [GROUP], eventsPerScope: 1000, days: 30 });
    database = await createMigratedTestDatabase();
    env = {
      EVENTS_API_BASE_URL: emulator.baseUrl,
      EVENTS_API_PUBLIC_KEY: emulator.keys[0]!.publicKey,
      EVENTS_API_PRIVATE_KEY: emulator.keys[0]!.privateKey,
      EVENTS_SCOPES: `org:${ORG},group:${GROUP}`,
      DATABASE_URL: database.url,
    };
    const synced = await runCli(['sync', '--once'], env);
    expect(synced.code, synced.stderr).toBe(0);
  });
  afterAll(async () => {
    await emulator?.close();
    await database?.drop();
  });

  it.each(EXAMPLES)('$file $name prints what the page shows', async ({ file, name, mask }) => {
    const [command, ...shown] = documentedOutput(file, name);
    expect(command).toMatch(/^\$ npx events-mirror /);
    const result = await runCli(command!.replace(/^\$ npx events-mirror /, '').split(' '), env);
    expect(result.code, result.stderr).toBe(0);
    const printed = result.stdout.replace(/\n$/, '').split('\n');
    // The resumable backfill runs twice (two pages show it): what the second finds done is masked.
    const done = (line: string) => line.replace(/\(\d+ already done\)/, '(<n> already done)');
    expect(printed.map((line) => done(mask(line)))).toEqual(shown.map((line) => done(mask(line))));
  });

  it('backfill --from in the future without --to does not name a --to never given', async () => {
    const result = await runCli(['backfill', '--scope', `group:${GROUP}`, '--from', '2030-01-01'], env);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(
      /^events-mirror: --from 2030-01-01T00:00:00Z is in the future \(now is \S+Z\): give a date in the past\n/,
    );
    expect(result.stderr.split('\n')[0]).not.toContain('--to');
  });
});
