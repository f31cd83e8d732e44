/**
 * The COPY bytes of a page's new events, written by a WebAssembly module (wasm/copy-lines.ts, built
 * into copy-lines-wasm.ts) straight from each event's JSON text as the API sent it: no row of
 * values, no JavaScript string per field. Its lines are byte for byte copy-text.ts's; each event it
 * cannot write so (a backslash in its text, a number JavaScript writes differently, a `raw`
 * document, no text kept) goes through eventRowValues and copyRows as before. docs/benchmarks.md → the write
 * path says why: JavaScript's cost per field held the mirror above 2 × a bare JSON.parse.
 */
import type { ValidEvent } from '../events/types.js';
import type { Scope } from '../scope.js';
import { WASM_SLACK, alignUp, instantiateWasm, outgrewMemory, reserveWasmMemory, wasmBytes, type WasmExports } from '../wasm-modules.js';
import { COPY_LINES_WASM_BASE64 } from './copy-lines-wasm.js';
import { COPY_ROW_COLUMNS, copyRows } from './copy-text.js';
import { MISSING_EVENT_TYPE, TEXT_FIELD_COLUMNS, eventRowValues } from './event-row.js';

// How a key's value becomes a column value (the module's slot kinds; eventRowValues' rules).
const TEXT = 0;
const BOOLEAN = 1;
const PORT = 2;
const NUMBER = 3;
const NESTED = 4;
const NULL_ONLY = 5;
// Column sources besides a slot.
const CONSTANT = -1;
const CREATED = -2;
const PAYLOAD = -3;

interface Key {
  readonly key: string;
  readonly kind: number;
}
const TOP_KEYS: readonly Key[] = [
  { key: 'id', kind: TEXT },
  { key: 'orgId', kind: TEXT },
  { key: 'groupId', kind: TEXT },
  { key: 'eventTypeName', kind: TEXT },
  ...TEXT_FIELD_COLUMNS.map(([key]) => ({ key, kind: TEXT })),
  { key: 'isGlobalAdmin', kind: BOOLEAN },
  { key: 'port', kind: PORT },
  { key: 'currentValue', kind: NESTED },
  { key: 'raw', kind: NULL_ONLY },
];
/** currentValue's keys. */
const NESTED_KEYS: readonly Key[] = [
  { key: 'number', kind: NUMBER },
  { key: 'units', kind: TEXT },
];
const SLOT_OF = new Map([...TOP_KEYS, ...NESTED_KEYS].map(({ key }, slot) => [key, slot]));

/** Each column's source: a key's slot (its constant when absent), the created time, the payload, a constant. */
const COLUMN_SOURCES: Readonly<Record<string, string | number>> = {
  id: 'id',
  org_id: 'orgId',
  group_id: 'groupId',
  created: CREATED,
  event_type_name: 'eventTypeName',
  ...Object.fromEntries(TEXT_FIELD_COLUMNS.map(([key, column]) => [column, key])),
  is_global_admin: 'isGlobalAdmin',
  port: 'port',
  current_value_number: 'number',
  current_value_units: 'units',
  payload: PAYLOAD,
};

const NAME = 'copy-lines.wasm';
const TABLE_SIZE = 256;
const ENTRY_BYTES = 16;
const COLUMN_BYTES = 12;
/** Room for the keys and each scope's constants. */
const CONSTANTS_ROOM = 65_536;
/** A line's bytes beyond its values, constants, tabs and NULLs: its created time (24) and newline, rounded up. */
const LINE_EXTRAS = 64;
interface CopyLinesModule extends WasmExports {
  configure(
    top: number,
    nested: number,
    columns: number,
    columnCount: number,
    slots: number,
    nestedSlot: number,
    nestedSlots: number,
  ): void;
  encodeLines(input: number, inputLength: number, count: number, created: number, declinedFlags: number, out: number): number;
}

/** The hash the module looks keys up by (keyHash in wasm/copy-lines.ts). */
function keyHash(bytes: Buffer): number {
  const length = bytes.length;
  return (length * 31 + bytes[0]! * 7 + bytes[length - 1]! * 3 + bytes[length >> 1]!) & (TABLE_SIZE - 1);
}

export interface EncodedLines {
  readonly bytes: Buffer;
  /** Events the module declined (or, when it refused the input, all of them). */
  readonly writtenInJavaScript: number;
}

function inJavaScript(scope: Scope, events: readonly ValidEvent[], stamp: string): EncodedLines {
  return {
    bytes: copyRows(
      events.map((event) => eventRowValues(scope, event)),
      stamp,
    ),
    writtenInJavaScript: events.length,
  };
}

class CopyLineEncoder {
  private readonly module: CopyLinesModule;
  private readonly topTable: number;
  private readonly nestedTable: number;
  private readonly columns: number;
  private readonly constants: number;
  private constantsEnd: number;
  private configuredFor = '';

  constructor() {
    this.module = instantiateWasm<CopyLinesModule>(NAME, COPY_LINES_WASM_BASE64);
    this.topTable = alignUp(this.module.heapBase(), 16);
    this.nestedTable = this.topTable + TABLE_SIZE * ENTRY_BYTES;
    this.columns = this.nestedTable + TABLE_SIZE * ENTRY_BYTES;
    this.constantsEnd = this.columns + COPY_ROW_COLUMNS.length * COLUMN_BYTES;
    reserveWasmMemory(this.module, this.constantsEnd + CONSTANTS_ROOM);
    this.fillKeys(this.topTable, TOP_KEYS);
    this.fillKeys(this.nestedTable, NESTED_KEYS);
    this.constants = this.constantsEnd;
  }

  /** The page's lines; events the module declines follow, written by copyRows. */
  encode(scope: Scope, events: readonly ValidEvent[], stamp: string): EncodedLines {
    const plain: ValidEvent[] = [];
    const others: ValidEvent[] = [];
    let textLength = 0;
    for (const event of events) {
      if (event.json !== undefined && !event.json.includes('\\')) {
        plain.push(event);
        textLength += event.json.length;
      } else others.push(event);
    }
    if (plain.length === 0) return inJavaScript(scope, events, stamp);
    this.configure(scope, stamp);

    // Memory: the created times, the declined flags, the texts (UTF-8 takes at most 3 bytes per
    // UTF-16 unit), then the lines: a line holds its payload (escapes at most double its
    // whitespace), values that are parts of it, its constants and a NULL or tab per column.
    const created = alignUp(this.constantsEnd + WASM_SLACK, 8);
    const declinedFlags = created + plain.length * 8;
    const input = alignUp(declinedFlags + plain.length + WASM_SLACK, 8);
    reserveWasmMemory(this.module, input + textLength * 3 + WASM_SLACK);
    const createdMs = new Float64Array(this.module.memory.buffer, created, plain.length);
    for (let i = 0; i < plain.length; i += 1) createdMs[i] = plain[i]!.created.getTime();
    const texts = wasmBytes(this.module);
    let at = input;
    for (const event of plain) at += texts.write(event.json!, at, 'utf8');
    const out = alignUp(at + WASM_SLACK, 8);
    const lineRoom = this.constantsEnd - this.constants + COPY_ROW_COLUMNS.length * 3 + LINE_EXTRAS;
    reserveWasmMemory(this.module, out + (at - input) * 3 + plain.length * lineRoom + WASM_SLACK);
    const memory = wasmBytes(this.module);

    const end = this.module.encodeLines(input, at - input, plain.length, created, declinedFlags, out);
    if (end === 0) return inJavaScript(scope, events, stamp);
    for (let i = 0; i < plain.length; i += 1) if (memory[declinedFlags + i] === 1) others.push(plain[i]!);
    const lines = Buffer.allocUnsafeSlow(end - out);
    memory.copy(lines, 0, out, end);
    if (others.length === 0) return { bytes: lines, writtenInJavaScript: 0 };
    const rest = inJavaScript(scope, others, stamp);
    return { bytes: Buffer.concat([lines, rest.bytes]), writtenInJavaScript: rest.writtenInJavaScript };
  }

  private putConstant(text: string): { at: number; length: number } {
    const memory = wasmBytes(this.module);
    const at = this.constantsEnd;
    const length = memory.write(text, at, 'utf8');
    this.constantsEnd += length;
    return { at, length };
  }

  private fillKeys(table: number, keys: readonly Key[]): void {
    const view = new DataView(this.module.memory.buffer);
    for (const { key, kind } of keys) {
      let slot = keyHash(Buffer.from(key));
      while (view.getInt32(table + slot * ENTRY_BYTES + 4, true) !== 0) slot = (slot + 1) % TABLE_SIZE;
      const { at, length } = this.putConstant(key);
      const entry = table + slot * ENTRY_BYTES;
      view.setInt32(entry, at, true);
      view.setInt32(entry + 4, length, true);
      view.setInt32(entry + 8, SLOT_OF.get(key)!, true);
      view.setInt32(entry + 12, kind, true);
    }
    // The module compares keys eight bytes at a time.
    this.constantsEnd += 8;
  }

  /** The columns' sources and constants for this scope and stamp (kept while they stay the same). */
  private configure(scope: Scope, stamp: string): void {
    const key = `${scope.key}\t${stamp}`;
    if (key === this.configuredFor) return;
    this.configuredFor = key;
    this.constantsEnd = this.constants;
    // As eventRowValues and copyRows: the scope's id where the payload has no orgId or groupId,
    // MISSING_EVENT_TYPE where it has no eventTypeName, the stamp twice at the end.
    const constants: Readonly<Record<string, string>> = {
      scope: scope.key,
      ...(scope.kind === 'org' ? { org_id: scope.id } : { group_id: scope.id }),
      event_type_name: MISSING_EVENT_TYPE,
      ingested_at: stamp,
      updated_at: stamp,
    };
    const view = new DataView(this.module.memory.buffer);
    COPY_ROW_COLUMNS.forEach((column, index) => {
      const source = COLUMN_SOURCES[column];
      const constant = constants[column] === undefined ? { at: 0, length: -1 } : this.putConstant(constants[column]);
      const entry = this.columns + index * COLUMN_BYTES;
      view.setInt32(entry, typeof source === 'string' ? SLOT_OF.get(source)! : (source ?? CONSTANT), true);
      view.setInt32(entry + 4, constant.at, true);
      view.setInt32(entry + 8, constant.length, true);
    });
    this.constantsEnd += WASM_SLACK;
    const nestedSlot = SLOT_OF.get(NESTED_KEYS[0]!.key)!;
    this.module.configure(
      this.topTable,
      this.nestedTable,
      this.columns,
      COPY_ROW_COLUMNS.length,
      SLOT_OF.size,
      nestedSlot,
      NESTED_KEYS.length,
    );
  }
}

let encoder: CopyLineEncoder | undefined;

/** The COPY bytes (copy-text.ts's format and columns) of `events` under `scope`, `stamp` as both stamps. */
export function encodeCopyLines(scope: Scope, events: readonly ValidEvent[], stamp: string): EncodedLines {
  if (events.length === 0) return inJavaScript(scope, events, stamp);
  encoder ??= new CopyLineEncoder();
  try {
    return encoder.encode(scope, events, stamp);
  } finally {
    // After a page far larger than usual, the next one gets a fresh instance: the memory goes back.
    if (outgrewMemory(NAME)) encoder = undefined;
  }
}

export function copyLines(scope: Scope, events: readonly ValidEvent[], stamp: string): Buffer {
  return encodeCopyLines(scope, events, stamp).bytes;
}
