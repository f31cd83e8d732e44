/** The receiver's metrics, on the registry its /metrics serves. Labels stay low-cardinality. */
import { Counter, Histogram, type Registry } from 'prom-client';
import type { StoredRecords } from './store-records.js';

export interface ReceiverMetrics {
  recordAnswer(status: number): void;
  recordStored(stored: StoredRecords, seconds: number): void;
}

export function createReceiverMetrics(registry: Registry): ReceiverMetrics {
  const registers = [registry];
  const requests = new Counter({
    name: 'events_mirror_push_requests_total',
    help: 'OTLP export requests answered, by HTTP status',
    labelNames: ['status'],
    registers,
  });
  const records = new Counter({
    name: 'events_mirror_push_records_total',
    help: 'Pushed log records: new rows (inserted), events the warehouse held already (held), set aside in rejected_events (rejected)',
    labelNames: ['outcome'],
    registers,
  });
  for (const outcome of ['inserted', 'held', 'rejected']) records.inc({ outcome }, 0);
  const writes = new Histogram({
    name: 'events_mirror_push_write_seconds',
    help: 'Time from a request body read to its records committed',
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers,
  });
  return {
    recordAnswer: (status) => requests.inc({ status: String(status) }),
    recordStored(stored, seconds) {
      records.inc({ outcome: 'inserted' }, stored.inserted);
      records.inc({ outcome: 'held' }, stored.held);
      records.inc({ outcome: 'rejected' }, stored.rejected);
      writes.observe(seconds);
    },
  };
}
