/**
 * Typos that used to pass in silence (issue 44, item 5), as a user makes them: a misspelt
 * `EVENTS_` variable gets a warning naming the one meant; a config file's `scopes` with a misspelt
 * key is refused even while EVENTS_SCOPES replaces them; `config` says which of the file's values
 * the environment overrides.
 */
import { describe, expect, it } from 'vitest';
import { runCli, writeConfigFile } from '../helpers/cli.js';

const GROUP = 'group:5f00000000000000000044a5';

describe('typos in the environment and in a config file', { timeout: 120_000 }, () => {
  it('warns about an EVENTS_ variable no setting reads, naming the closest one, and not about a credential variable', async () => {
    const file = writeConfigFile({
      credentials: { acme: { publicKey: 'abcdefgh', privateKeyEnv: 'EVENTS_ACME_PRIVATE_KEY' } },
    });
    const env = { EVENTS_SYNC_CONCURENCY: '3', EVENTS_MIRROR_CONFIG: file, EVENTS_ACME_PRIVATE_KEY: 'secret-value' };
    const shown = await runCli(['config'], env);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stderr).toBe(
      'events-mirror: warning: EVENTS_SYNC_CONCURENCY is not a variable events-mirror reads: it is ignored (did you mean EVENTS_SYNC_CONCURRENCY? the variables are listed in docs/configuration.md)\n',
    );
    // Any command: the warning is logged before it runs (here it then stops: no key pair).
    const sync = await runCli(['sync', '--once'], { ...env, WAREHOUSE_SCHEMAS: 'x' });
    expect(sync.code).toBe(2);
    const warnings = sync.stderr
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => (JSON.parse(line) as { msg: string }).msg);
    expect(warnings).toEqual([
      expect.stringMatching(/^EVENTS_SYNC_CONCURENCY is not a variable .*did you mean EVENTS_SYNC_CONCURRENCY\?/),
      expect.stringMatching(/^WAREHOUSE_SCHEMAS is not a variable .*did you mean WAREHOUSE_SCHEMA\?/),
    ]);
    expect(sync.stderr).not.toContain('EVENTS_ACME_PRIVATE_KEY');
  });

  it("refuses a config file's misspelt scope key while EVENTS_SCOPES replaces its scopes", async () => {
    const file = writeConfigFile({ scopes: [{ scope: GROUP, evntTypes: ['CLUSTER_CREATED'] }] });
    const result = await runCli(['config'], { EVENTS_MIRROR_CONFIG: file, EVENTS_SCOPES: 'org:5f00000000000000000044a6' });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(
      new RegExp(`^events-mirror: invalid configuration: scopes\\.0\\.evntTypes: unknown key; .* \\(in config file ${file}, checked whole`),
    );
  });

  it('config says which values of the file the environment overrides', async () => {
    const file = writeConfigFile({ scopes: [GROUP], sync: { concurrency: 2, windowSeconds: 3600 } });
    const result = await runCli(['config', '--json'], {
      EVENTS_MIRROR_CONFIG: file,
      EVENTS_SCOPES: 'org:5f00000000000000000044a6',
      EVENTS_SYNC_CONCURRENCY: '5',
    });
    expect(result.code, result.stderr).toBe(0);
    const settings = JSON.parse(result.stdout) as Array<{ key: string; value: string; source: string; overrides?: string }>;
    const of = (key: string) => settings.find((s) => s.key === key);
    expect(of('scopes')).toMatchObject({ source: '$EVENTS_SCOPES', overrides: file });
    expect(of('sync.concurrency')).toMatchObject({ value: '5', source: '$EVENTS_SYNC_CONCURRENCY', overrides: file });
    expect(of('sync.windowSeconds')).toMatchObject({ value: '3600', source: file });
    expect(of('sync.windowSeconds')).not.toHaveProperty('overrides');
    const text = await runCli(['config'], { EVENTS_MIRROR_CONFIG: file, EVENTS_SCOPES: 'org:5f00000000000000000044a6' });
    // The source and the file overridden follow the value, on the next line when the path is long.
    expect(text.stdout.replace(/\s+/g, ' ')).toContain(`scopes = org:5f00000000000000000044a6 ($EVENTS_SCOPES; overrides ${file})`);
  });
});
