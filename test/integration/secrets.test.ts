import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REDIS_URL } from '../helpers/services.js';
import { createWarehouse } from '../../src/warehouse/database.js';
import { runCli } from '../helpers/cli.js';
import { daysAgo, startSyncFixture, type SyncFixture } from '../helpers/sync-fixture.js';

/** Everything a user or operator can read after runs that succeed and fail. */
describe('the private key never reaches logs, errors, sync_runs, sync_state or job data', () => {
  let fixture: SyncFixture;
  let privateKey: string;

  beforeAll(async () => {
    fixture = await startSyncFixture(
      {
        seed: 61,
        orgs: ['5f0000000000000000000061'],
        groups: ['6a0000000000000000000061'],
        eventsPerScope: 300,
        days: 2,
        faults: { rate5xx: 0.2 },
      },
      { EVENTS_START_DATE: daysAgo(3).toISOString(), LOG_LEVEL: 'trace' },
    );
    privateKey = fixture.env.EVENTS_API_PRIVATE_KEY!;
  });
  afterAll(async () => fixture?.close());

  function expectClean(text: string, where: string) {
    expect(text.length, `${where} was read`).toBeGreaterThan(0);
    expect(text, where).not.toContain(privateKey);
    expect(text, where).not.toMatch(/Digest username|authorization:/i);
  }

  it('holds for a successful sync and for one with a wrong key, at trace level', async () => {
    const good = await runCli(['sync', '--once'], fixture.env);
    expect(good.code, good.stderr).toBe(0);
    expect(good.stderr, 'debug lines per request were written').toMatch(/"level":20/);
    expectClean(good.stdout + good.stderr, 'output of a good run');

    const wrongKey = `${privateKey.slice(0, -4)}zzzz`;
    const bad = await runCli(['sync', '--once'], { ...fixture.env, EVENTS_API_PRIVATE_KEY: wrongKey });
    expect(bad.code).toBe(1);
    expect(bad.stdout + bad.stderr).toMatch(/credentials|401/i);
    expectClean(bad.stdout + bad.stderr, 'output of a wrong-key run');
    expect(bad.stdout + bad.stderr).not.toContain(wrongKey);

    const warehouse = await createWarehouse({ url: fixture.database.url, schema: 'events_mirror', dataDir: 'unused' });
    try {
      const runs = await warehouse.db.selectFrom('sync_runs').selectAll().execute();
      const states = await warehouse.db.selectFrom('sync_state').selectAll().execute();
      expect(
        states.some((s) => s.last_error !== null),
        'the failure was recorded',
      ).toBe(true);
      expectClean(JSON.stringify(runs), 'sync_runs');
      expectClean(JSON.stringify(states), 'sync_state');
      expect(JSON.stringify(states)).not.toContain(wrongKey);
    } finally {
      await warehouse.close();
    }
  });

  it('reads the private key from EVENTS_API_PRIVATE_KEY_FILE, and says so when the file is missing or empty', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'em-secret-'));
    const file = path.join(dir, 'private-key');
    writeFileSync(file, `${privateKey}\n`, { mode: 0o600 });
    const env = { ...fixture.env, EVENTS_API_PRIVATE_KEY: undefined, EVENTS_API_PRIVATE_KEY_FILE: file };
    const good = await runCli(['sync', '--once'], env);
    expect(good.code, good.stderr).toBe(0);
    expectClean(good.stdout + good.stderr, 'output of a run with the key from a file');

    const missing = await runCli(['sync', '--once'], { ...env, EVENTS_API_PRIVATE_KEY_FILE: path.join(dir, 'nope') });
    expect(missing.code).toBe(2);
    expect(missing.stderr.trim()).toMatch(
      /^events-mirror: EVENTS_API_PRIVATE_KEY_FILE=\S+nope: cannot read the file \(ENOENT\): fix the path or its permissions$/,
    );
    writeFileSync(path.join(dir, 'empty'), '\n');
    const empty = await runCli(['sync', '--once'], { ...env, EVENTS_API_PRIVATE_KEY_FILE: path.join(dir, 'empty') });
    expect(empty.code).toBe(2);
    expect(empty.stderr).toContain('EVENTS_API_PRIVATE_KEY_FILE=');
    expect(empty.stderr).toContain('the file is empty: put the secret in it');
    const both = await runCli(['sync', '--once'], { ...env, EVENTS_API_PRIVATE_KEY: privateKey });
    expect(both.code).toBe(2);
    expect(both.stderr).toContain('both EVENTS_API_PRIVATE_KEY and EVENTS_API_PRIVATE_KEY_FILE are set: keep one');
    expectClean(missing.stderr + empty.stderr + both.stderr, 'errors about the key file');
  });

  it('holds for backfill jobs enqueued in Redis', async () => {
    const prefix = `em-secrets-${process.pid}-${Date.now()}`;
    const scope = fixture.emulator.dataset.scopes()[0]!;
    const result = await runCli(['backfill', '--scope', scope, '--from', daysAgo(2).toISOString(), '--enqueue'], {
      ...fixture.env,
      REDIS_PREFIX: prefix,
    });
    expect(result.code, result.stderr).toBe(0);
    expectClean(result.stdout + result.stderr, 'output of backfill --enqueue');
    const redis = new Redis(REDIS_URL, { lazyConnect: true });
    await redis.connect();
    try {
      const keys = await redis.keys(`${prefix}:*`);
      expect(keys.length).toBeGreaterThan(0);
      const contents: string[] = [];
      for (const key of keys) {
        const type = await redis.type(key);
        if (type === 'hash') contents.push(JSON.stringify(await redis.hgetall(key)));
        else if (type === 'string') contents.push((await redis.get(key)) ?? '');
        else if (type === 'list') contents.push(JSON.stringify(await redis.lrange(key, 0, -1)));
        else if (type === 'zset') contents.push(JSON.stringify(await redis.zrange(key, 0, -1)));
        else if (type === 'set') contents.push(JSON.stringify(await redis.smembers(key)));
      }
      const all = contents.join('\n');
      expect(all).toContain(scope);
      expectClean(all, 'job data in Redis');
    } finally {
      const keys = await redis.keys(`${prefix}:*`);
      if (keys.length > 0) await redis.del(...keys);
      redis.disconnect();
    }
  });
});
