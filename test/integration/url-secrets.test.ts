/**
 * Secrets a URL carries in its password, its query string or its fragment never reach what the
 * CLI prints or logs: `config`, `config --json`, `check`, a dialect error and the scheduler's log
 * lines, run for real against PostgreSQL, Redis and the emulator (which ignore the extra query).
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { obliterateSyncQueue } from '../helpers/queue-processes.js';
import { REDIS_URL } from '../helpers/services.js';
import { startSyncFixture, type SyncFixture } from '../helpers/sync-fixture.js';

const SECRETS = {
  databasePassword: 'db-query-Pa55',
  databaseSslPassword: 'db-sslkey-Pa55',
  redisPassword: 'redis-query-Pa55',
  baseUrlToken: 'base-url-T0ken',
  baseUrlFragment: 'base-url-fragment-T0ken',
  proxyPassword: 'proxy-user-Pa55',
  proxyToken: 'proxy-query-T0ken',
};

interface Setting {
  key: string;
  value: string;
}

describe('secrets in URLs', () => {
  let fixture: SyncFixture;
  let env: Record<string, string>;
  const prefix = `em-test-${randomUUID()}`;

  beforeAll(async () => {
    fixture = await startSyncFixture({ seed: 431, groups: ['6a0000000000000000000431'], eventsPerScope: 20, days: 1 });
    const redis = new URL(REDIS_URL);
    env = {
      ...fixture.env,
      DATABASE_URL: `${fixture.database.url}?sslmode=disable&password=${SECRETS.databasePassword}&sslpassword=${SECRETS.databaseSslPassword}`,
      REDIS_URL: `redis://${redis.host}/?password=${SECRETS.redisPassword}&db=0`,
      REDIS_PREFIX: prefix,
      EVENTS_API_BASE_URL: `${fixture.env.EVENTS_API_BASE_URL}?token=${SECRETS.baseUrlToken}#${SECRETS.baseUrlFragment}`,
      // Only https requests would use it: the emulator is http, so it is configured and shown, never used.
      HTTPS_PROXY: `http://proxy-user:${SECRETS.proxyPassword}@proxy.example:3128/?token=${SECRETS.proxyToken}`,
      LOG_LEVEL: 'debug',
    };
  });
  afterAll(async () => {
    await fixture?.close();
    await obliterateSyncQueue(REDIS_URL, prefix);
  });

  function expectNoSecret(text: string, where: string) {
    expect(text.length, `${where} was read`).toBeGreaterThan(0);
    for (const [name, secret] of Object.entries(SECRETS)) expect(text, `${name} in ${where}`).not.toContain(secret);
  }

  it('config and config --json mask every query value but the harmless ones, and the password and fragment', async () => {
    const table = await runCli(['config'], env);
    expect(table.code, table.stderr).toBe(0);
    expectNoSecret(table.stdout + table.stderr, 'config');

    const json = await runCli(['config', '--json'], env);
    expect(json.code, json.stderr).toBe(0);
    expectNoSecret(json.stdout + json.stderr, 'config --json');
    const settings = JSON.parse(json.stdout) as Setting[];
    const of = (key: string) => settings.find((s) => s.key === key)?.value;
    expect(of('database.url')).toBe(`${fixture.database.url}?sslmode=disable&password=****&sslpassword=****`);
    expect(of('redis.url')).toMatch(/^redis:\/\/[^/]+\/\?password=\*\*\*\*&db=0$/);
    expect(of('api.baseUrl')).toBe(`${fixture.env.EVENTS_API_BASE_URL}?token=****#****`);
    expect(of('api.httpsProxy')).toBe('http://proxy-user:****@proxy.example:3128/?token=****');
  });

  it('check, a dialect error and the scheduler log nothing of them either', async () => {
    const check = await runCli(['check'], env);
    expect(check.stdout, check.stderr).toMatch(/warehouse/i);
    expectNoSecret(check.stdout + check.stderr, 'check');

    const wrongDialect = await runCli(['sync', '--once'], { ...env, EVENTS_API_DIALECT: 'atlas-v2' });
    expect(wrongDialect.code).toBe(2);
    expect(wrongDialect.stderr).toMatch(/the base URL \S+\?token=\*\*\*\*#\*\*\*\* is a v1\.0 one/);
    expectNoSecret(wrongDialect.stdout + wrongDialect.stderr, 'the dialect error');

    const scheduler = await runCli(['scheduler', '--once'], env);
    expect(scheduler.code, scheduler.stderr).toBe(0);
    expectNoSecret(scheduler.stdout + scheduler.stderr, 'scheduler --once');
  });
});
