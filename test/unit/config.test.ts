import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig, redactedConfig, requireApiCredentials, requireScopes } from '../../src/config.js';
import { ConfigError } from '../../src/errors.js';

function configDir(files: Record<string, unknown>): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'em-config-'));
  for (const [name, value] of Object.entries(files)) writeFileSync(path.join(dir, name), JSON.stringify(value));
  return dir;
}

describe('loadConfig', () => {
  it('gives the documented defaults', () => {
    const config = loadConfig({ env: {}, configDir: configDir({}) });
    expect(config.api.baseUrl).toBe('https://cloud.mongodb.com/api/public/v1.0');
    expect(config.sync.lookbackSeconds).toBe(900);
    expect(config.scheduler.pollIntervalSeconds).toBe(60);
    expect(config.database.schema).toBe('events_mirror');
    expect(config.redis.url).toBe('redis://127.0.0.1:6379');
    // Unset: each command picks (warn for the commands a person runs, info for services).
    expect(config.logLevel).toBeUndefined();
    expect(config.scopes).toEqual([]);
    expect(Object.isFrozen(config.api)).toBe(true);
  });

  it('layers default.json, <NODE_ENV>.json, EVENTS_MIRROR_CONFIG, environment and overrides in that order', () => {
    const dir = configDir({
      'default.json': { sync: { lookbackSeconds: 1, settleSeconds: 1, windowSeconds: 1 } },
      'staging.json': { sync: { lookbackSeconds: 2, settleSeconds: 2 } },
      'extra.json': { sync: { lookbackSeconds: 3 } },
    });
    const config = loadConfig({
      env: { NODE_ENV: 'staging', EVENTS_MIRROR_CONFIG: path.join(dir, 'extra.json'), EVENTS_LOOKBACK_SECONDS: '4' },
      configDir: dir,
      overrides: { sync: { concurrency: 9 } },
    });
    expect(config.sync.windowSeconds).toBe(1);
    expect(config.sync.settleSeconds).toBe(2);
    expect(config.sync.lookbackSeconds).toBe(4);
    expect(config.sync.concurrency).toBe(9);
  });

  it('reads every documented environment variable', () => {
    const config = loadConfig({
      configDir: configDir({}),
      env: {
        EVENTS_API_BASE_URL: 'http://127.0.0.1:8080/api/public/v1.0',
        EVENTS_API_PUBLIC_KEY: 'pub',
        EVENTS_API_PRIVATE_KEY: 'secret-value',
        EVENTS_SCOPES: 'org:abc, group:def,org:abc',
        EVENTS_START_DATE: '2026-11-01',
        EVENTS_LOOKBACK_SECONDS: '60',
        EVENTS_POLL_INTERVAL_SECONDS: '30',
        DATABASE_URL: 'postgres://127.0.0.1/test',
        WAREHOUSE_SCHEMA: 'mirror_2',
        REDIS_URL: 'redis://127.0.0.1:6380',
        LOG_LEVEL: 'debug',
      },
    });
    expect(config.api.baseUrl).toBe('http://127.0.0.1:8080/api/public/v1.0');
    expect(requireApiCredentials(config)).toEqual({ publicKey: 'pub', privateKey: 'secret-value' });
    expect(requireScopes(config).map((s) => s.scope.key)).toEqual(['org:abc', 'group:def']);
    expect(config.scopes[0]!.startDate).toBe('2026-11-01');
    expect(config.sync.lookbackSeconds).toBe(60);
    expect(config.scheduler.pollIntervalSeconds).toBe(30);
    expect(config.database.url).toBe('postgres://127.0.0.1/test');
    expect(config.database.schema).toBe('mirror_2');
    expect(config.redis.url).toBe('redis://127.0.0.1:6380');
    expect(config.logLevel).toBe('debug');
    expect(JSON.stringify(redactedConfig(config))).not.toContain('secret-value');
  });

  it('applies per-scope overrides from a config file', () => {
    const dir = configDir({
      'default.json': {
        sync: { eventTypes: ['A'] },
        scopes: ['org:o1', { scope: 'group:g1', eventTypes: ['B', 'C'], includeRaw: true, startDate: '2026-10-01T00:00:00Z' }],
      },
    });
    const [org, group] = loadConfig({ env: {}, configDir: dir }).scopes;
    expect(org).toMatchObject({ eventTypes: ['A'], includeRaw: false });
    expect(group).toMatchObject({ eventTypes: ['B', 'C'], includeRaw: true, startDate: '2026-10-01T00:00:00Z' });
  });

  it.each([
    [{ EVENTS_LOOKBACK_SECONDS: 'soon' }, /EVENTS_LOOKBACK_SECONDS="soon": expected a whole number/],
    [{ EVENTS_SCOPES: 'project:abc' }, /scopes\.0 \(EVENTS_SCOPES\): expected `org:<orgId>` or `group:<groupId>`/],
    [{ EVENTS_START_DATE: '01/11/2026' }, /sync\.startDate \(EVENTS_START_DATE\): expected an ISO 8601 date/],
    [{ WAREHOUSE_SCHEMA: 'x; drop table y' }, /database\.schema \(WAREHOUSE_SCHEMA\): expected a plain lower-case SQL identifier/],
    [{ EVENTS_API_BASE_URL: 'not a url' }, /api\.baseUrl \(EVENTS_API_BASE_URL\)/],
    [{ LOG_LEVEL: 'loud' }, /logLevel \(LOG_LEVEL\)/],
    [{ EVENTS_MIRROR_CONFIG: '/nonexistent/x.json' }, /does not exist: fix the path or unset the variable/],
  ])('refuses %o with a message naming the key', (env, message) => {
    expect(() => loadConfig({ env, configDir: configDir({}) })).toThrow(message);
  });

  it('refuses a private key in a config file, and unknown keys', () => {
    expect(() => loadConfig({ env: {}, configDir: configDir({ 'default.json': { api: { privateKey: 'x' } } }) })).toThrow(
      /secrets come from the environment only/,
    );
    expect(() => loadConfig({ env: {}, configDir: configDir({ 'default.json': { sync: { lookback: 5 } } }) })).toThrow(ConfigError);
  });

  it('names the missing half of the key pair and missing scopes', () => {
    const config = loadConfig({ env: { EVENTS_API_PUBLIC_KEY: 'pub' }, configDir: configDir({}) });
    expect(() => requireApiCredentials(config)).toThrow(/set EVENTS_API_PRIVATE_KEY/);
    expect(() => requireScopes(config)).toThrow(/no scopes configured: set EVENTS_SCOPES/);
  });
});

describe('project discovery settings', () => {
  it('turns discovery on for organizations only, with their exclusions, and refuses it on a project', () => {
    const config = loadConfig({
      env: { EVENTS_DISCOVER_PROJECTS: 'true', EVENTS_DISCOVERY_INTERVAL_SECONDS: '120' },
      overrides: { scopes: ['group:6a0000000000000000000001', { scope: 'org:5f0000000000000000000001', excludeProjects: ['sandbox-*'] }] },
    });
    expect(config.scheduler.discoveryIntervalSeconds).toBe(120);
    expect(config.scopes.map((s) => [s.scope.key, s.discoverProjects ?? false, s.excludeProjects ?? []])).toEqual([
      ['group:6a0000000000000000000001', false, []],
      ['org:5f0000000000000000000001', true, ['sandbox-*']],
    ]);
    expect(() =>
      loadConfig({ env: {}, overrides: { scopes: [{ scope: 'group:6a0000000000000000000001', discoverProjects: true }] } }),
    ).toThrow(
      "scope group:6a0000000000000000000001: discoverProjects and excludeProjects apply to org: scopes only; move them to its organization's entry",
    );
  });
});
