/**
 * The mirror's work on one page after HTTP, stage by stage, as the client and the warehouse do it
 * (parse and list check, each event's text, validation, row mapping, COPY bytes): measured by the
 * write-path and event-scan benchmarks on the same emulator pages.
 */
import { resultTexts } from '../../src/api/result-texts.js';
import { parseListBody } from '../../src/api/validate.js';
import type { Dataset } from '../../src/emulator/dataset.js';
import type { ValidEvent } from '../../src/events/types.js';
import { validateEvents } from '../../src/events/validate-event.js';
import type { Scope } from '../../src/scope.js';
import { copyRows } from '../../src/warehouse/copy-text.js';
import { eventRowValues } from '../../src/warehouse/event-row.js';
import { cpuMs } from './cpu-time.js';

/** CPU milliseconds per stage, summed over pages. */
export interface MirrorStageMs {
  list: number;
  texts: number;
  validate: number;
  rows: number;
  copyText: number;
}

export const noStageMs = (): MirrorStageMs => ({ list: 0, texts: 0, validate: 0, rows: 0, copyText: 0 });

/** A page of the emulator's scope as the API serves it. */
export function pageBody(dataset: Dataset, scopeKey: string, offset: number, limit: number): string {
  const page = dataset.query(scopeKey, { offset, limit, includeRaw: false });
  return JSON.stringify({ links: [], results: page.results, totalCount: page.totalCount });
}

/** One page through today's stages, each stage's CPU added to `into`; its valid events and COPY bytes. */
export function mirrorStages(scope: Scope, body: string, stamp: string, into: MirrorStageMs): { valid: ValidEvent[]; copied: Buffer } {
  const [list, listMs] = cpuMs(() => {
    const parsed = parseListBody(JSON.parse(body));
    if (!parsed.ok) throw new Error(parsed.reason);
    return parsed.list;
  });
  const [texts, textsMs] = cpuMs(() => resultTexts(body));
  const [checked, validateMs] = cpuMs(() => validateEvents(list.results, texts));
  const valid = checked.events;
  const [rows, rowsMs] = cpuMs(() => valid.map((event) => eventRowValues(scope, event)));
  const [copied, copyMs] = cpuMs(() => copyRows(rows, stamp));
  into.list += listMs;
  into.texts += textsMs;
  into.validate += validateMs;
  into.rows += rowsMs;
  into.copyText += copyMs;
  return { valid, copied };
}
