/**
 * Reading the event type catalogue over HTTP from a server whose catalogue spans two pages: a read
 * whose second page fails writes nothing (a partial list would mark every type of the lost page
 * as gone), a complete read without a type marks it gone, and a read listing it again clears that.
 * Real PostgreSQL.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { EventsClient } from '../../src/api/client.js';
import { ApiClients } from '../../src/api/clients.js';
import { silentLogger } from '../../src/logger.js';
import { refreshEventTypeCatalog } from '../../src/sync/event-type-catalog.js';
import { openMigratedWarehouse, type TestWarehouse } from '../helpers/database.js';

const TYPES = Array.from({ length: 620 }, (_, i) => `TYPE_${String(i).padStart(4, '0')}`);
let listed = [...TYPES];
let failPage2 = false;

const server = createServer((req, res) => {
  const url = new URL(req.url!, 'http://stub');
  const pageNum = Number(url.searchParams.get('pageNum'));
  res.setHeader('content-type', 'application/json');
  if (url.pathname !== '/api/atlas/v2/eventTypes') {
    res.statusCode = 404;
    res.end('{}');
    return;
  }
  if (pageNum === 2 && failPage2) {
    res.statusCode = 500;
    res.end(JSON.stringify({ error: 500, errorCode: 'UNEXPECTED_ERROR', detail: 'broken page' }));
    return;
  }
  const results = listed
    .slice((pageNum - 1) * 500, pageNum * 500)
    .map((eventType) => ({ eventType, description: `about ${eventType}`, alertable: false }));
  res.end(JSON.stringify({ links: [], results, totalCount: listed.length }));
});

let opened: TestWarehouse | undefined;
afterAll(async () => {
  await opened?.close();
  await new Promise((resolve) => server.close(resolve));
});

describe('reading the event type catalogue', () => {
  it('writes a complete read only: a failed page changes nothing, a missing type is marked gone, a returning one cleared', async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const client = new EventsClient({
      baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/atlas/v2`,
      dialect: 'atlas-v2',
      publicKey: 'p',
      privateKey: 'k',
      retry: { maxAttempts: 2, baseDelayMs: 1, maxDelayMs: 5 },
    });
    opened = await openMigratedWarehouse('postgres');
    const { warehouse } = opened;
    let clock = Date.parse('2026-11-27T00:00:00Z');
    const ctx = { clients: ApiClients.single(client), warehouse, logger: silentLogger(), now: () => new Date((clock += 60_000)) };
    const rows = () => warehouse.db.selectFrom('event_type_catalog').selectAll().orderBy('type').execute();
    try {
      expect(await refreshEventTypeCatalog(ctx, ['default'])).toMatchObject({ first: true, gone: [] });
      const first = await rows();
      expect(first).toHaveLength(620);
      expect(first[619]).toMatchObject({ type: 'TYPE_0619', description: 'about TYPE_0619', alertable: false, gone_since: null });

      // The second page fails: nothing is written, no type of the lost page reads as gone.
      failPage2 = true;
      listed = TYPES.filter((t) => t !== 'TYPE_0003');
      await expect(refreshEventTypeCatalog(ctx, ['default'])).rejects.toThrow(/500 UNEXPECTED_ERROR/);
      expect(await rows()).toEqual(first);

      failPage2 = false;
      expect(await refreshEventTypeCatalog(ctx, ['default'])).toMatchObject({ gone: ['TYPE_0003'], added: [], returned: [] });
      const afterGone = await rows();
      expect(afterGone.filter((r) => r.gone_since !== null).map((r) => r.type)).toEqual(['TYPE_0003']);

      listed = [...TYPES];
      expect(await refreshEventTypeCatalog(ctx, ['default'])).toMatchObject({ gone: [], returned: ['TYPE_0003'] });
      expect((await rows()).every((r) => r.gone_since === null)).toBe(true);
    } finally {
      await client.close();
    }
  });
});
