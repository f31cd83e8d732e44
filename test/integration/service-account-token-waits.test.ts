/**
 * The token endpoint's Retry-After is a wait like any other: bounded by the retry deadline and
 * ended by a signal. A stub token endpoint over real HTTP answers every request 429 with the
 * Retry-After a test sets; the CLI runs against a real PostgreSQL warehouse. It used to wait out
 * `Retry-After: 3600` ("asking again in 3600000 ms") and survive SIGINT, SIGINT, SIGTERM.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createWarehouse } from '../../src/warehouse/database.js';
import { migrateToLatest } from '../../src/warehouse/migrator.js';
import { spawnCli, waitForExit, writeConfigFile } from '../helpers/cli.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';

const SCOPES = ['group:6a00000000000000000003c1', 'group:6a00000000000000000003c2'];
/** Long enough for the CLI to start and for a signal to arrive; far shorter than any wait tested. */
const EXIT_BOUND_MS = 60_000;

describe('waits on the token endpoint', () => {
  let server: Server;
  let database: TestDatabase;
  let retryAfter = '3600';
  let tokenRequests = 0;
  let feedRequests = 0;
  let env: Record<string, string>;

  beforeAll(async () => {
    server = createServer((req, res) => {
      res.setHeader('content-type', 'application/json');
      if (req.url === '/api/oauth/token') {
        tokenRequests += 1;
        res.writeHead(429, { 'Retry-After': retryAfter });
        res.end(JSON.stringify({ error: 'rate_limited', error_description: 'Too many token requests.' }));
        return;
      }
      feedRequests += 1;
      res.writeHead(500);
      res.end('{}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    database = await createTestDatabase();
    const warehouse = await createWarehouse({ url: database.url, schema: 'events_mirror', dataDir: 'unused' });
    await migrateToLatest(warehouse);
    await warehouse.close();
    env = {
      EVENTS_API_BASE_URL: `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/public/v1.0`,
      EVENTS_MIRROR_CONFIG: writeConfigFile({
        credentials: { sa: { type: 'serviceAccount', clientId: 'mdb_sa_id_waits01', clientSecretEnv: 'SA_SECRET' } },
        scopes: SCOPES.map((scope) => ({ scope, credential: 'sa' })),
      }),
      SA_SECRET: 'mdb_sa_sk_waits-secret-0b7e',
      EVENTS_START_DATE: new Date(Date.now() - 86_400_000).toISOString(),
      DATABASE_URL: database.url,
    };
  });
  beforeEach(() => {
    tokenRequests = 0;
    feedRequests = 0;
  });
  afterAll(async () => {
    await new Promise((resolve) => server?.close(resolve));
    await database?.drop();
  });

  it('does not wait past the retry deadline: Retry-After 3600 fails the scopes at once, asking the endpoint once', async () => {
    retryAfter = '3600';
    const result = await waitForExit(spawnCli(['sync', '--once'], env), EXIT_BOUND_MS);
    expect(result.code, result.stderr).toBe(1);
    // The scopes' rows say they failed; the problem, said once above them, names the answer.
    for (const scope of SCOPES) expect(result.stdout).toMatch(new RegExp(`^${scope} .* failed$`, 'm'));
    expect(result.stdout).toMatch(/^PROBLEM .*429/m);
    // The table cuts the error to its cell; `status --scope` prints it whole.
    const detail = await waitForExit(spawnCli(['status', '--scope', SCOPES[0]!], env), EXIT_BOUND_MS);
    expect(detail.stdout).toMatch(
      /429 rate_limited: .* \(it asks to wait 3600 s, past the retry deadline \(api.retryDeadlineMs, 600 s\): not waiting/,
    );
    expect({ tokenRequests, feedRequests }).toEqual({ tokenRequests: 1, feedRequests: 0 });
  }, 120_000);

  it('ends a wait for the token endpoint at once on SIGINT, with a line saying so', async () => {
    retryAfter = '300';
    const child = spawnCli(['sync', '--once'], env);
    const exited = waitForExit(child, EXIT_BOUND_MS);
    let stderr = '';
    let interrupted = false;
    child.stderr!.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      // One SIGINT: later stderr chunks must not send a second one, which ends the process by the signal.
      if (!interrupted && stderr.includes('asking again in 300000 ms')) interrupted = child.kill('SIGINT');
    });
    const result = await exited;
    expect(result.stderr).toContain('asking again in 300000 ms');
    expect(result.signal, result.stderr).toBeNull();
    expect(result.code).toBe(1);
    for (const scope of SCOPES) expect(result.stdout).toMatch(new RegExp(`^${scope} .* failed$`, 'm'));
    expect(result.stdout).toMatch(/interrupted by SIGINT/);
    expect(tokenRequests).toBe(1);
  }, 120_000);
});
