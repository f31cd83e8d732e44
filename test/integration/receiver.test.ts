/**
 * The OTLP/HTTP receiver over real HTTP on the real warehouses: JSON and protobuf bodies, gzip, the
 * bearer token, limits and the answers an OTLP sender acts on.
 */
import { gzipSync } from 'node:zlib';
import { sql } from 'kysely';
import { Registry } from 'prom-client';
import protobuf from 'protobufjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logger.js';
import { createReceiverMetrics } from '../../src/receiver/receiver-metrics.js';
import { startReceiverServer, type ReceiverServer } from '../../src/receiver/receiver-server.js';
import { openMigratedWarehouse, type TestWarehouse } from '../helpers/database.js';
import { exportLogRecord, exportRequest, postLogs, projectEvent } from '../helpers/export-records.js';

const TOKEN = 'receiver-test-token-0123456789';
const PROJECT = '62abb98d95a82610b74debc5';
const T0 = Date.UTC(2026, 10, 21, 9, 0, 0);

async function startTestReceiver(test: TestWarehouse, overrides: { maxBodyBytes?: number } = {}): Promise<ReceiverServer> {
  return startReceiverServer({
    host: '127.0.0.1',
    port: 0,
    token: TOKEN,
    maxBodyBytes: overrides.maxBodyBytes ?? 1024 * 1024,
    maxPendingRequests: 16,
    retryAfterSeconds: 7,
    warehouse: test.warehouse,
    logger: createLogger({ level: 'silent' }),
    metrics: createReceiverMetrics(new Registry()),
  });
}

describe.each(['postgres', 'pglite'] as const)('the OTLP/HTTP receiver (%s)', (kind) => {
  let test: TestWarehouse;
  let receiver: ReceiverServer;
  const count = async (table: 'events' | 'rejected_events') =>
    (await sql<{ n: number }>`select count(*)::int as n from ${sql.table(table)}`.execute(test.warehouse.db)).rows[0]!.n;

  beforeAll(async () => {
    test = await openMigratedWarehouse(kind);
    receiver = await startTestReceiver(test, { maxBodyBytes: 64 * 1024 });
  });
  afterAll(async () => {
    await receiver?.close();
    await test?.close();
  });

  it('lands a JSON request and answers 200 with an empty ExportLogsServiceResponse', async () => {
    const request = exportRequest([exportLogRecord(projectEvent(PROJECT, 'b00000000000000000000001', T0))]);
    const answer = await postLogs(receiver.url, request, { token: TOKEN });
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toBe('application/json');
    expect(JSON.parse(answer.body.toString())).toEqual({});
    const row = await test.warehouse.db.selectFrom('events').select(['source', 'scope', 'event_type_name', 'username']).executeTakeFirst();
    expect(row).toEqual({ source: 'push', scope: `group:${PROJECT}`, event_type_name: 'JOINED_GROUP', username: 'ana@example.com' });
  });

  it('lands a gzip-compressed protobuf request and answers in protobuf', async () => {
    const request = exportRequest([
      { ...exportLogRecord(projectEvent(PROJECT, 'b00000000000000000000002', T0 + 1000)), severityNumber: 9 },
    ]);
    const answer = await postLogs(receiver.url, request, { token: TOKEN, as: 'protobuf', gzip: true });
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toBe('application/x-protobuf');
    expect(answer.body.length).toBe(0); // an ExportLogsServiceResponse with nothing set
    const row = await test.warehouse.db
      .selectFrom('events')
      .select(['source', 'pushed'])
      .where('id', '=', 'b00000000000000000000002')
      .executeTakeFirst();
    expect(row?.source).toBe('push');
    expect((row?.pushed as { timeUnixNano?: string }).timeUnixNano).toBe(`${T0 + 1000}000000`);
  });

  it('answers 401 to a missing or wrong token and writes nothing', async () => {
    const before = [await count('events'), await count('rejected_events')];
    const request = exportRequest([exportLogRecord(projectEvent(PROJECT, 'b00000000000000000000003', T0 + 2000))]);
    for (const token of [undefined, 'wrong-token-of-the-same-sort-0123', `${TOKEN}x`, '']) {
      const answer = await postLogs(receiver.url, request, token === undefined ? {} : { token });
      expect(answer.status, String(token)).toBe(401);
      expect(answer.headers.get('www-authenticate')).toBe('Bearer');
    }
    expect([await count('events'), await count('rejected_events')]).toEqual(before);
  });

  it('sets aside a record it cannot map, counts it in partial_success and lands the rest', async () => {
    const good = exportLogRecord(projectEvent(PROJECT, 'b00000000000000000000004', T0 + 3000));
    const bad = exportLogRecord({ ...projectEvent(PROJECT, 'b00000000000000000000005', T0 + 3000), createdDate: undefined });
    const answer = await postLogs(receiver.url, exportRequest([bad, good]), { token: TOKEN });
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body.toString())).toEqual({
      partialSuccess: { rejectedLogRecords: '1', errorMessage: expect.stringContaining('no createdDate') },
    });
    expect(
      await test.warehouse.db.selectFrom('events').select('id').where('id', '=', 'b00000000000000000000004').executeTakeFirst(),
    ).toBeDefined();
    const rejected = await test.warehouse.db.selectFrom('rejected_events').select(['reason', 'source', 'scope']).execute();
    expect(rejected).toEqual([{ reason: 'no createdDate', source: 'push', scope: `group:${PROJECT}` }]);
    // The same in protobuf: the answer's partial_success, decoded as a sender decodes it.
    const again = await postLogs(receiver.url, exportRequest([bad]), { token: TOKEN, as: 'protobuf' });
    const root = protobuf.parse(
      'syntax = "proto3"; message P { int64 rejected_log_records = 1; string error_message = 2; } message R { P partial_success = 1; }',
    ).root;
    const decoded = root.lookupType('R').toObject(root.lookupType('R').decode(again.body), { longs: Number });
    expect(decoded).toEqual({ partialSuccess: { rejectedLogRecords: 1, errorMessage: expect.stringContaining('no createdDate') } });
  });

  it('answers 400 to a request that is not an ExportLogsServiceRequest, with a google.rpc.Status', async () => {
    for (const body of ['{"resourceLogs":', '[1,2]', '{"resourceLogs":{"a":1}}', '{"resourceLogs":[{"scopeLogs":[{"logRecords":7}]}]}']) {
      const answer = await postLogs(receiver.url, body, { token: TOKEN });
      expect(answer.status, body).toBe(400);
      expect(JSON.parse(answer.body.toString())).toMatchObject({ code: 3, message: expect.any(String) });
    }
    expect((await postLogs(receiver.url, Buffer.from([0x0a, 0xff, 0xff]), { token: TOKEN, as: 'protobuf' })).status).toBe(400);
    expect(
      (await postLogs(receiver.url, Buffer.from('not gzip'), { token: TOKEN, contentType: 'application/json', gzip: false, as: 'json' }))
        .status,
    ).toBe(400);
  });

  it('answers 415 to another content type, 413 to a body over the limit, compressed or inflated', async () => {
    expect((await postLogs(receiver.url, '{}', { token: TOKEN, contentType: 'text/plain' })).status).toBe(415);
    const big = exportRequest(
      Array.from({ length: 400 }, (_, i) => exportLogRecord(projectEvent(PROJECT, `c${String(i).padStart(23, '0')}`, T0))),
    );
    expect((await postLogs(receiver.url, big, { token: TOKEN })).status).toBe(413);
    // Small on the wire, far over the limit inflated.
    const bomb = gzipSync(Buffer.from(`{"resourceLogs":[],"pad":"${' '.repeat(10 * 1024 * 1024)}"}`));
    expect(bomb.length).toBeLessThan(64 * 1024);
    const inflated = await fetch(receiver.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'content-encoding': 'gzip', authorization: `Bearer ${TOKEN}` },
      body: new Uint8Array(bomb),
    });
    expect(inflated.status).toBe(413);
    expect(await count('events')).toBeLessThan(10);
  });
});
