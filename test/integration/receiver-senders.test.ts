/**
 * The receiver as real senders meet it: the official OpenTelemetry JavaScript log exporters
 * (protobuf, gzip-compressed, and JSON) land every record; with the warehouse stopped the answer is
 * 503 with Retry-After and nothing is acknowledged that was not committed, so a sender that
 * retries (the emulator's export) delivers every event once the warehouse is back.
 */
import { SeverityNumber } from '@opentelemetry/api-logs';
import { OTLPLogExporter as JsonLogExporter } from '@opentelemetry/exporter-logs-otlp-http';
import { OTLPLogExporter as ProtobufLogExporter } from '@opentelemetry/exporter-logs-otlp-proto';
import { BatchLogRecordProcessor, LoggerProvider } from '@opentelemetry/sdk-logs';
import { sql, type Kysely } from 'kysely';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PushExport } from '../../src/emulator/push-export.js';
import { createLogger } from '../../src/logger.js';
import { createReceiverMetrics } from '../../src/receiver/receiver-metrics.js';
import { startReceiverServer, type ReceiverServer } from '../../src/receiver/receiver-server.js';
import { createWarehouse, type Database, type Warehouse } from '../../src/warehouse/database.js';
import { openMigratedWarehouse, migrateDatabase, type TestWarehouse } from '../helpers/database.js';
import { exportLogRecord, exportRequest, postLogs, projectEvent } from '../helpers/export-records.js';
import { privatePostgresUnavailable, startPrivatePostgres, type PrivatePostgres } from '../helpers/private-postgres.js';
import { waitFor } from '../helpers/queue-processes.js';

const TOKEN = 'receiver-senders-token-0123456789';
const PROJECT = '62abb98d95a82610b74debc5';
const T0 = Date.UTC(2026, 10, 22, 8, 0, 0);

function receiverOn(warehouse: Warehouse): Promise<ReceiverServer> {
  return startReceiverServer({
    host: '127.0.0.1',
    port: 0,
    token: TOKEN,
    maxBodyBytes: 4 * 1024 * 1024,
    maxPendingRequests: 16,
    retryAfterSeconds: 1,
    warehouse,
    logger: createLogger({ level: 'silent' }),
    metrics: createReceiverMetrics(new Registry()),
  });
}

const ids = async (db: Kysely<Database>, prefix: string) =>
  (await db.selectFrom('events').select('id').where('id', 'like', `${prefix}%`).orderBy('id').execute()).map((row) => row.id);

describe('the official OpenTelemetry log exporters', () => {
  let test: TestWarehouse;
  let receiver: ReceiverServer;

  beforeAll(async () => {
    test = await openMigratedWarehouse('postgres');
    receiver = await receiverOn(test.warehouse);
  });
  afterAll(async () => {
    await receiver?.close();
    await test?.close();
  });

  it.each([
    [
      'protobuf, gzip',
      'd1',
      () => new ProtobufLogExporter({ url: receiver.url, headers: { Authorization: `Bearer ${TOKEN}` }, compression: 'gzip' as never }),
    ],
    ['JSON', 'd2', () => new JsonLogExporter({ url: receiver.url, headers: { Authorization: `Bearer ${TOKEN}` } })],
  ])('land every record sent with the exporter (%s)', async (_, prefix, exporter) => {
    const provider = new LoggerProvider({
      processors: [new BatchLogRecordProcessor({ exporter: exporter(), scheduledDelayMillis: 100, maxExportBatchSize: 20 })],
    });
    const logger = provider.getLogger('mongodb-atlas-events');
    const expected: string[] = [];
    for (let i = 0; i < 50; i += 1) {
      const id = `${prefix}${String(i).padStart(22, '0')}`;
      expected.push(id);
      const body = projectEvent(PROJECT, id, T0 + i * 1000, { bigNumber: 'BIG' });
      logger.emit({
        timestamp: T0 + i * 1000,
        severityNumber: SeverityNumber.INFO,
        severityText: 'INFO',
        // A number no JavaScript number holds, written into the payload's text.
        body: JSON.stringify(body).replace('\\"BIG\\"', '12345678901234567890123'),
        attributes: {
          'mongodb.event.id': id,
          'mongodb.event.type': body.eventType!,
          'mongodb.project.id': PROJECT,
          'mongodb.event.payload.encoding': 'json',
        },
      });
    }
    await provider.forceFlush();
    await provider.shutdown();
    expect(await ids(test.warehouse.db, prefix)).toEqual(expected);
    const row = await test.warehouse.db
      .selectFrom('events')
      .select(['source', 'event_type_name', 'created'])
      .where('id', '=', expected[3]!)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ source: 'push', event_type_name: 'JOINED_GROUP', created: new Date(T0 + 3000) });
    const big = await sql<{ n: string }>`select payload->>'bigNumber' as n from events where id = ${expected[3]!}`.execute(
      test.warehouse.db,
    );
    expect(big.rows[0]?.n).toBe('12345678901234567890123');
  });
});

describe.skipIf(privatePostgresUnavailable())('the warehouse stopped', () => {
  let server: PrivatePostgres;
  let warehouse: Warehouse;
  let receiver: ReceiverServer;

  beforeAll(async () => {
    server = await startPrivatePostgres();
    await migrateDatabase(server.url);
    warehouse = await createWarehouse({
      url: server.url,
      schema: 'events_mirror',
      dataDir: 'unused',
      poolSize: 4,
      deadlines: { connectTimeoutMs: 2_000, queryTimeoutMs: 5_000 },
    });
    receiver = await receiverOn(warehouse);
  }, 120_000);
  afterAll(async () => {
    await receiver?.close();
    await warehouse?.close();
    await server?.close();
  });

  it('answers 503 with Retry-After, acknowledges nothing, and a retrying sender lands every event once it is back', async () => {
    const batch = exportRequest([exportLogRecord(projectEvent(PROJECT, 'e10000000000000000000001', T0))]);
    expect((await postLogs(receiver.url, batch, { token: TOKEN })).status).toBe(200);

    await server.stop();
    const refused = await postLogs(receiver.url, exportRequest([exportLogRecord(projectEvent(PROJECT, 'e10000000000000000000002', T0))]), {
      token: TOKEN,
    });
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(JSON.parse(refused.body.toString())).toMatchObject({ code: 14 });

    // A sender that retries, as the export and the OpenTelemetry exporters do.
    const sender = new PushExport(
      { url: receiver.url, token: TOKEN, intervalMs: 60_000, dropRate: 0, duplicateRate: 0, maxAttempts: 100 },
      () => 0.5,
    );
    for (let i = 3; i < 23; i += 1) {
      sender.add({
        id: `e1${String(i).padStart(22, '0')}`,
        created: new Date(T0 + i * 1000).toISOString(),
        eventTypeName: 'JOINED_GROUP',
        groupId: PROJECT,
        username: 'ana',
      });
    }
    sender.flush();
    await waitFor('the sender to be refused twice', async () => sender.stats.attempts >= 2, 30_000, 50);
    expect(sender.stats.batches).toBe(0);
    await server.start();
    await sender.close();
    expect(sender.stats).toMatchObject({ batches: 1, failedBatches: 0 });
    const landed = await ids(warehouse.db, 'e1');
    expect(landed).toHaveLength(21);
    // The refused request's event was never acknowledged, and never written.
    expect(landed).not.toContain('e10000000000000000000002');
    const counts = await sql<{ n: number }>`select count(*)::int as n from events`.execute(warehouse.db);
    expect(counts.rows[0]?.n).toBe(21);
  }, 120_000);
});
