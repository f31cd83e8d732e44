/**
 * `events-mirror config` as a user runs it, in a folder with a `.env`, a config file named by
 * EVENTS_MIRROR_CONFIG, variables in the environment and a flag-free run: each setting's value and
 * where it came from, secrets never shown (a private key, a URL's password), and a broken
 * configuration refused as every command refuses it.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, writeConfigFile } from '../helpers/cli.js';

const PRIVATE_KEY = 'b6b8f1e2-secret-private-key';
const DATABASE_PASSWORD = 'pg-Pa55word';
const REDIS_PASSWORD = 'redis-Pa55word';
const CLIENT_SECRET = 'mdb_sa_sk_secret';

interface Setting {
  key: string;
  value: string;
  source: string;
}

function setup() {
  const cwd = mkdtempSync(path.join(tmpdir(), 'em-config-command-'));
  writeFileSync(
    path.join(cwd, '.env'),
    [
      '# read because it is in the working directory',
      'EVENTS_SCOPES=group:5f0000000000000000000001,org:5f0000000000000000000002',
      'WORKER_CONCURRENCY=9',
      // The real environment sets this one too, and wins.
      'REDIS_PREFIX=from-dotenv',
      `ACME_CLIENT_SECRET=${CLIENT_SECRET}`,
    ].join('\n'),
  );
  const file = writeConfigFile({
    sync: { windowSeconds: 3600 },
    credentials: { acme: { type: 'serviceAccount', clientId: 'mdb_sa_id_1', clientSecretEnv: 'ACME_CLIENT_SECRET' } },
  });
  const env = {
    EVENTS_MIRROR_CONFIG: file,
    EVENTS_API_PUBLIC_KEY: 'public-key-1',
    EVENTS_API_PRIVATE_KEY: PRIVATE_KEY,
    DATABASE_URL: `postgres://mirror:${DATABASE_PASSWORD}@db.example:5432/warehouse`,
    REDIS_URL: `redis://default:${REDIS_PASSWORD}@redis.example:6379`,
    REDIS_PREFIX: 'from-environment',
  };
  return { cwd, file, env };
}

describe('events-mirror config', () => {
  it('--json gives every setting its value and its source, secrets hidden', async () => {
    const { cwd, file, env } = setup();
    const result = await runCli(['config', '--json'], env, cwd);
    expect(result.code, result.stderr).toBe(0);
    const settings = JSON.parse(result.stdout) as Setting[];
    const of = (key: string) => settings.find((s) => s.key === key);

    expect(of('api.baseUrl')).toEqual({
      key: 'api.baseUrl',
      value: 'https://cloud.mongodb.com/api/public/v1.0',
      source: 'config/default.json',
    });
    expect(of('api.baseRetryDelayMs')).toMatchObject({ value: '20', source: 'config/test.json' });
    expect(of('api.version')).toMatchObject({ value: '2023-01-01', source: 'default' });
    expect(of('sync.windowSeconds')).toMatchObject({ value: '3600', source: file });
    expect(of('scopes')).toMatchObject({
      value: 'group:5f0000000000000000000001, org:5f0000000000000000000002',
      source: '.env $EVENTS_SCOPES',
    });
    expect(of('worker.concurrency')).toMatchObject({ value: '9', source: '.env $WORKER_CONCURRENCY' });
    expect(of('redis.prefix')).toMatchObject({ value: 'from-environment', source: '$REDIS_PREFIX' });
    expect(of('api.publicKey')).toMatchObject({ value: 'public-key-1', source: '$EVENTS_API_PUBLIC_KEY' });
    expect(of('api.privateKey')).toMatchObject({ value: '(set, hidden)', source: '$EVENTS_API_PRIVATE_KEY' });
    expect(of('database.url')).toMatchObject({ value: 'postgres://mirror:****@db.example:5432/warehouse', source: '$DATABASE_URL' });
    expect(of('redis.url')).toMatchObject({ value: 'redis://default:****@redis.example:6379', source: '$REDIS_URL' });
    expect(of('credentials.acme.clientSecretEnv')).toMatchObject({ value: 'ACME_CLIENT_SECRET', source: file });
    expect(of('api.dialect')).toMatchObject({ value: '-', source: 'default' });
    // The suite's CLI children run with LOG_LEVEL=warn (test/helpers/cli.ts).
    expect(of('logLevel')).toMatchObject({ value: 'warn', source: '$LOG_LEVEL' });
    // Every section of the configuration is there.
    for (const section of ['api', 'sync', 'scheduler', 'housekeeping', 'reconcile', 'worker', 'database', 'redis']) {
      expect(
        settings.some((s) => s.key.startsWith(`${section}.`)),
        section,
      ).toBe(true);
    }
    for (const secret of [PRIVATE_KEY, DATABASE_PASSWORD, REDIS_PASSWORD, CLIENT_SECRET]) {
      expect(result.stdout + result.stderr).not.toContain(secret);
    }
  });

  it('prints the settings grouped by source, within 80 columns, secrets hidden', async () => {
    const { cwd, env } = setup();
    const result = await runCli(['config'], env, cwd);
    expect(result.code, result.stderr).toBe(0);
    const lines = result.stdout.trimEnd().split('\n');
    for (const line of lines) expect(line.length, line).toBeLessThanOrEqual(80);
    const titles = lines.filter((line) => /^\S.*:$/.test(line));
    expect(titles.slice(0, 3)).toEqual(['Defaults:', 'From config/default.json:', 'From config/test.json:']);
    expect(titles.slice(-2)).toEqual(['From .env:', 'From the environment:']);
    expect(result.stdout).toMatch(/^ {2}worker\.concurrency += 9 {2}\(\$WORKER_CONCURRENCY\)$/m);
    expect(result.stdout).toMatch(/^ {2}api\.privateKey += \(set, hidden\) {2}\(\$EVENTS_API_PRIVATE_KEY\)$/m);
    expect(result.stdout).toContain('.env of this folder read: the real environment wins over it.');
    // A list too long for a line continues under its first item, the variable after it.
    expect(result.stdout).toMatch(
      /^ {2}scopes += group:5f0000000000000000000001,\n {2}.*org:5f0000000000000000000002 {2}\(\$EVENTS_SCOPES\)$/m,
    );
    for (const secret of [PRIVATE_KEY, DATABASE_PASSWORD, REDIS_PASSWORD, CLIENT_SECRET]) {
      expect(result.stdout + result.stderr).not.toContain(secret);
    }
  });

  it('a broken configuration is refused with the line every command prints', async () => {
    const { cwd, env } = setup();
    const result = await runCli(['config'], { ...env, EVENTS_SYNC_CONCURRENCY: 'four' }, cwd);
    expect(result.code).toBe(2);
    expect(result.stderr.trim()).toBe('events-mirror: EVENTS_SYNC_CONCURRENCY="four": expected a whole number such as 900');
  });
});
