import { describe, expect, it } from 'vitest';
import { spawnCli, waitForExit } from '../helpers/cli.js';
import { ADMIN_DATABASE_URL } from '../helpers/services.js';

// A process told to stop while Redis is still down stops then, not after its 60 s wait for Redis.
describe.each([['worker'], ['scheduler']])('%s stopped while Redis is unreachable', (command) => {
  it('exits 0 on SIGTERM without waiting for Redis', async () => {
    const child = spawnCli([command], {
      EVENTS_API_PUBLIC_KEY: 'public',
      EVENTS_API_PRIVATE_KEY: 'private',
      EVENTS_SCOPES: 'org:abc',
      DATABASE_URL: ADMIN_DATABASE_URL,
      REDIS_URL: 'redis://127.0.0.1:1',
      LOG_LEVEL: 'warn',
    });
    // A hang would run into this limit (well under the 60 s Redis wait) and fail the test.
    const exited = waitForExit(child, 30_000);
    // Long-running processes log to stdout: the first line says Redis is unreachable.
    await new Promise<void>((resolve) => child.stdout!.once('data', () => resolve()));
    child.kill('SIGTERM');
    const result = await exited;
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/Redis at redis:\/\/127\.0\.0\.1:1 unreachable/);
  });
});
