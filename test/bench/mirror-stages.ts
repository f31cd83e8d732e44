/**
 * The mirror's work on one page after HTTP, stage by stage, as the client and the warehouse do it
 * (parse and list check, each event's text, validation, COPY bytes from the WebAssembly encoder),
 * and beside it the JavaScript encoder it replaced (row mapping, then COPY bytes), checked to write
 * the same bytes: measured by the write-path and event-scan benchmarks on the same emulator pages.
 */
import { resultTexts } from '../../src/api/result-texts.js';
import { parseListBody } from '../../src/api/validate.js';
import type { Dataset } from '../../src/emulator/dataset.js';
import type { ValidEvent } from '../../src/events/types.js';
import { validateEvents } from '../../src/events/validate-event.js';
import type { Scope } from '../../src/scope.js';
import { encodeCopyLines } from '../../src/warehouse/copy-lines.js';
import { copyRows } from '../../src/warehouse/copy-text.js';
import { eventRowValues } from '../../src/warehouse/event-row.js';
import { cpuMs } from './cpu-time.js';

/** CPU milliseconds per stage, summed over pages. */
export interface MirrorStageMs {
  list: number;
  texts: number;
  validate: number;
  copyLines: number;
  /** Not the mirror's: the JavaScript encoder's row mapping and COPY bytes, for comparison. */
  rows: number;
  copyText: number;
  /** Events the WebAssembly encoder left to the JavaScript one. */
  writtenInJavaScript: number;
}

export const noStageMs = (): MirrorStageMs => ({
  list: 0,
  texts: 0,
  validate: 0,
  copyLines: 0,
  rows: 0,
  copyText: 0,
  writtenInJavaScript: 0,
});

/** The mirror's CPU: its stages, not the JavaScript encoder's. */
export const mirrorMs = (stages: MirrorStageMs): number => stages.list + stages.texts + stages.validate + stages.copyLines;

/** The mirror's CPU had it kept the JavaScript encoder. */
export const javaScriptEncoderMirrorMs = (stages: MirrorStageMs): number =>
  stages.list + stages.texts + stages.validate + stages.rows + stages.copyText;

/** A page of the emulator's scope as the API serves it. */
export function pageBody(dataset: Dataset, scopeKey: string, offset: number, limit: number): string {
  const page = dataset.query(scopeKey, { offset, limit, includeRaw: false });
  return JSON.stringify({ links: [], results: page.results, totalCount: page.totalCount });
}

/** One page through the mirror's stages and the JavaScript encoder, each one's CPU added to `into`; its valid events and COPY bytes. */
export function mirrorStages(scope: Scope, body: string, stamp: string, into: MirrorStageMs): { valid: ValidEvent[]; copied: Buffer } {
  const [list, listMs] = cpuMs(() => {
    const parsed = parseListBody(JSON.parse(body));
    if (!parsed.ok) throw new Error(parsed.reason);
    return parsed.list;
  });
  const [texts, textsMs] = cpuMs(() => resultTexts(body));
  const [checked, validateMs] = cpuMs(() => validateEvents(list.results, texts));
  const valid = checked.events;
  const [encoded, copyLinesMs] = cpuMs(() => encodeCopyLines(scope, valid, stamp));
  const [rows, rowsMs] = cpuMs(() => valid.map((event) => eventRowValues(scope, event)));
  const [copied, copyMs] = cpuMs(() => copyRows(rows, stamp));
  if (encoded.writtenInJavaScript === 0 && !encoded.bytes.equals(copied)) throw new Error('the two COPY encoders wrote different bytes');
  into.list += listMs;
  into.texts += textsMs;
  into.validate += validateMs;
  into.copyLines += copyLinesMs;
  into.rows += rowsMs;
  into.copyText += copyMs;
  into.writtenInJavaScript += encoded.writtenInJavaScript;
  return { valid, copied: encoded.bytes };
}
