import { describe, expect, it } from 'vitest';
import { createEventsClient, EventsClient } from '../../src/api/client.js';
import { loadConfig } from '../../src/config.js';
import { ConfigError } from '../../src/errors.js';

describe('createEventsClient', () => {
  it('builds a client from configuration', async () => {
    const config = loadConfig({
      env: { EVENTS_API_PUBLIC_KEY: 'pub', EVENTS_API_PRIVATE_KEY: 'priv-xyz', EVENTS_API_BASE_URL: 'http://127.0.0.1:1/api/public/v1.0' },
    });
    const client = createEventsClient(config);
    expect(client).toBeInstanceOf(EventsClient);
    expect(JSON.stringify(client)).toBe('{"baseUrl":"http://127.0.0.1:1/api/public/v1.0","dialect":"v1","publicKey":"pub"}');
    await client.close();
  });

  it('names the missing key pair', () => {
    const config = loadConfig({ env: { EVENTS_API_PUBLIC_KEY: 'pub' } });
    expect(() => createEventsClient(config)).toThrow(ConfigError);
    expect(() => createEventsClient(config)).toThrow(/EVENTS_API_PRIVATE_KEY/);
  });
});
