/**
 * The service's event export, emulated: each live event becomes one OTLP log record in the
 * export's own form (`_id`, `createdDate` in epoch ms, `projectId`, a path-style `eventType`,
 * `eventPayload` as a JSON string; `severityNumber` as the enum name the documentation shows),
 * batched and POSTed as OTLP/HTTP JSON to `url` every `intervalMs`, retried with doubling backoff
 * on 429, 5xx and network failures (Retry-After honoured). Under its faults a batch is lost
 * (never sent) or sent twice, as an at-least-once export with a 7-day expiry does. Written from
 * the export's documentation, independently of the receiver.
 */
import type { ApiEvent } from '../events/types.js';

export interface PushOptions {
  readonly url: string;
  readonly token?: string;
  /** How often a batch is sent (the service flushes about once a minute; tests once a second). */
  readonly intervalMs: number;
  /** Share of batches lost without a trace (0..1). */
  readonly dropRate: number;
  /** Share of batches sent twice (0..1). */
  readonly duplicateRate: number;
  /** Attempts per batch before it is given up (the service's pipeline makes 4). */
  readonly maxAttempts: number;
}

export const DEFAULT_PUSH: Omit<PushOptions, 'url'> = { intervalMs: 1000, dropRate: 0, duplicateRate: 0, maxAttempts: 8 };

export interface PushStats {
  /** Batches answered 2xx, and the events in them. */
  batches: number;
  events: number;
  /** Batches lost by the drop fault, and their events' ids. */
  droppedBatches: number;
  droppedIds: string[];
  duplicatedBatches: number;
  /** Batches given up after maxAttempts. */
  failedBatches: number;
  attempts: number;
}

const MAPPED_AWAY = new Set(['id', 'created', 'eventTypeName', 'groupId', 'orgId', 'links']);
const RETRYABLE = new Set([429, 502, 503, 504]);
const BASE_BACKOFF_MS = 100;
const MAX_BACKOFF_MS = 10_000;

/**
 * One event as the export writes it. `createdMs`: the moment it was created, to the millisecond (the
 * export's createdDate has milliseconds where the API's created has whole seconds).
 */
export function exportRecordOf(event: ApiEvent, createdAtMs?: number): Record<string, unknown> {
  const apiMs = typeof event.created === 'string' ? Date.parse(event.created) : Number.NaN;
  const createdMs =
    Number.isFinite(apiMs) && createdAtMs !== undefined && Math.floor(createdAtMs / 1000) * 1000 === apiMs ? createdAtMs : apiMs;
  const payload = Object.fromEntries(Object.entries(event).filter(([key]) => !MAPPED_AWAY.has(key)));
  const body: Record<string, unknown> = {
    ...(event.id !== undefined ? { _id: event.id } : {}),
    eventType: `/events/mms/${String(event.eventTypeName ?? 'unknown').toLowerCase()}`,
    ...(event.groupId !== undefined ? { projectId: event.groupId } : {}),
    ...(event.orgId !== undefined ? { orgId: event.orgId } : {}),
    // An unreadable `created` (a malformed event) is sent as it is, for the receiver to set aside.
    createdDate: Number.isFinite(createdMs) ? createdMs : event.created,
    resources: [],
    eventPayload: JSON.stringify(payload),
    source: { sourceType: 'USER', sourceInfo: { username: event.username ?? 'Atlas Admin' } },
  };
  const attributes = [
    ['mongodb.event.id', event.id],
    ['mongodb.event.type', body.eventType],
    ['mongodb.project.id', event.groupId],
    ['mongodb.org.id', event.orgId],
    ['mongodb.event.payload.encoding', 'json'],
  ]
    .filter(([, value]) => typeof value === 'string')
    .map(([key, value]) => ({ key, value: { stringValue: value } }));
  return {
    timeUnixNano: Number.isFinite(createdMs) ? `${createdMs}000000` : '0',
    severityNumber: 'SEVERITY_NUMBER_INFO',
    severityText: 'INFO',
    body: { stringValue: JSON.stringify(body) },
    attributes,
  };
}

export class PushExport {
  private buffer: Array<{ id: string | undefined; record: Record<string, unknown> }> = [];
  private readonly timer: NodeJS.Timeout;
  private readonly sending = new Set<Promise<void>>();
  private stopped = false;
  readonly stats: PushStats = {
    batches: 0,
    events: 0,
    droppedBatches: 0,
    droppedIds: [],
    duplicatedBatches: 0,
    failedBatches: 0,
    attempts: 0,
  };

  constructor(
    private readonly options: PushOptions,
    private readonly random: () => number,
    private readonly onError: (message: string) => void = () => undefined,
  ) {
    this.timer = setInterval(() => this.flush(), options.intervalMs);
    this.timer.unref();
  }

  add(event: ApiEvent, createdMs?: number): void {
    if (!this.stopped)
      this.buffer.push({ id: typeof event.id === 'string' ? event.id : undefined, record: exportRecordOf(event, createdMs) });
  }

  /** Sends what is buffered as one batch (the faults apply). */
  flush(): void {
    if (this.buffer.length === 0) return;
    const batch = this.buffer;
    this.buffer = [];
    if (this.random() < this.options.dropRate) {
      this.stats.droppedBatches += 1;
      for (const item of batch) if (item.id !== undefined) this.stats.droppedIds.push(item.id);
      return;
    }
    const copies = this.random() < this.options.duplicateRate ? 2 : 1;
    if (copies === 2) this.stats.duplicatedBatches += 1;
    const body = JSON.stringify({
      resourceLogs: [
        {
          resource: { attributes: [{ key: 'service.name', value: { stringValue: 'mongodb-atlas-events' } }] },
          scopeLogs: [{ scope: {}, logRecords: batch.map((item) => item.record) }],
        },
      ],
    });
    for (let copy = 0; copy < copies; copy += 1) {
      const sent = this.send(body, batch.length).finally(() => this.sending.delete(sent));
      this.sending.add(sent);
    }
  }

  /** Stops taking events, sends what is buffered and waits for every batch in flight. */
  async close(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    this.flush();
    while (this.sending.size > 0) await Promise.allSettled([...this.sending]);
  }

  private async send(body: string, events: number): Promise<void> {
    for (let attempt = 1; ; attempt += 1) {
      this.stats.attempts += 1;
      let wait = Math.min(MAX_BACKOFF_MS, BASE_BACKOFF_MS * 2 ** (attempt - 1));
      try {
        const response = await fetch(this.options.url, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            ...(this.options.token !== undefined ? { authorization: `Bearer ${this.options.token}` } : {}),
          },
          body,
          signal: AbortSignal.timeout(30_000),
        });
        await response.arrayBuffer();
        if (response.ok) {
          this.stats.batches += 1;
          this.stats.events += events;
          return;
        }
        if (!RETRYABLE.has(response.status)) {
          this.stats.failedBatches += 1;
          this.onError(`push: batch of ${events} refused with HTTP ${response.status}; not retried`);
          return;
        }
        const retryAfter = Number(response.headers.get('retry-after'));
        if (Number.isFinite(retryAfter) && retryAfter > 0) wait = Math.min(60_000, retryAfter * 1000);
      } catch (error) {
        this.onError(`push: batch of ${events} not delivered (${(error as Error).message}); retrying`);
      }
      if (attempt >= this.options.maxAttempts) {
        this.stats.failedBatches += 1;
        this.onError(`push: batch of ${events} given up after ${attempt} attempts`);
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, wait * (0.5 + this.random() / 2)));
    }
  }
}
