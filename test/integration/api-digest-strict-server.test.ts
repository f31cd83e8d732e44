/**
 * Digest against a server that re-challenges with the same nonce when it refuses an `nc` (its
 * first answer, or one that arrives out of order among concurrent requests), with MD5 and with
 * MD5-sess whose session key is fixed per nonce. Such a 401 used to be read as a rejected key (a
 * permanent failure); and MD5-sess recomputed its key on every request, so only the first passed.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { EventsClient } from '../../src/api/client.js';
import { parseScope } from '../../src/scope.js';
import { startStrictDigestServer, type StrictDigestServer } from '../helpers/strict-digest-server.js';

const scope = parseScope('group:g1');

describe.each(['MD5', 'MD5-sess'] as const)('a strict Digest server with %s', (algorithm) => {
  let server: StrictDigestServer | undefined;
  let client: EventsClient | undefined;
  afterEach(async () => {
    await client?.close();
    await server?.close();
  });

  it('is answered again with a higher nc, sequentially and concurrently, and never read as a wrong key', async () => {
    server = await startStrictDigestServer({ username: 'pub', password: 'priv', algorithm, refuseFirstAnswer: true });
    client = new EventsClient({ baseUrl: server.baseUrl, publicKey: 'pub', privateKey: 'priv', retry: { maxAttempts: 1 } });
    for (let i = 0; i < 3; i++) expect((await client.listEvents(scope, {})).events).toHaveLength(1);
    const concurrent = await Promise.all(Array.from({ length: 8 }, () => client!.listEvents(scope, {})));
    expect(concurrent.every((page) => page.events.length === 1)).toBe(true);
    expect(server.stats.accepted).toBe(11);
    expect(server.stats.refusedNc).toBeGreaterThanOrEqual(1);
    expect(server.stats.badResponse).toBe(0);
  });

  it('keeps one session key per nonce: every request on the shared nonce passes', async () => {
    server = await startStrictDigestServer({ username: 'pub', password: 'priv', algorithm, refuseFirstAnswer: false });
    client = new EventsClient({ baseUrl: server.baseUrl, publicKey: 'pub', privateKey: 'priv', retry: { maxAttempts: 1 } });
    for (let i = 0; i < 5; i++) await client.listEvents(scope, {});
    expect(server.stats).toEqual({ accepted: 5, refusedNc: 0, badResponse: 0 });
  });

  it('still calls a wrong key a wrong key', async () => {
    server = await startStrictDigestServer({ username: 'pub', password: 'priv', algorithm, refuseFirstAnswer: false });
    client = new EventsClient({ baseUrl: server.baseUrl, publicKey: 'pub', privateKey: 'wrong', retry: { maxAttempts: 1 } });
    await expect(client.listEvents(scope, {})).rejects.toThrow(/pub/);
  });
});
