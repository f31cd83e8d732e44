/**
 * The text of each element of a list body's `results` array, found by a WebAssembly module
 * (wasm/result-spans.ts, built into result-spans-wasm.ts) that reads the body sixteen bytes at a
 * time: the JavaScript scan in result-texts.ts costs more than a third of the page's JSON.parse.
 */
import { WASM_SLACK, alignUp, instantiateWasm, outgrewMemory, reserveWasmMemory, wasmBytes, type WasmExports } from '../wasm-modules.js';
import { RESULT_SPANS_WASM_BASE64 } from './result-spans-wasm.js';

interface ResultSpansModule extends WasmExports {
  resultSpans(input: number, length: number, out: number): number;
}

const NAME = 'result-spans.wasm';
let module: ResultSpansModule | undefined;

/** Each element's text, slices of `body`; undefined when the body is not an object with a results array. */
export function wasmResultTexts(body: string): string[] | undefined {
  module ??= instantiateWasm<ResultSpansModule>(NAME, RESULT_SPANS_WASM_BASE64);
  try {
    return scan(module, body);
  } finally {
    // After a page far larger than usual, the next one gets a fresh instance: the memory goes back.
    if (outgrewMemory(NAME)) module = undefined;
  }
}

function scan(module: ResultSpansModule, body: string): string[] | undefined {
  const input = alignUp(module.heapBase(), 16);
  // UTF-8 takes at most 3 bytes per UTF-16 unit; an element takes at least 2 bytes with its comma.
  reserveWasmMemory(module, input + body.length * 3 + WASM_SLACK);
  const length = wasmBytes(module).write(body, input, 'utf8');
  const out = alignUp(input + length + WASM_SLACK, 8);
  reserveWasmMemory(module, out + (length + 2) * 4 + WASM_SLACK);
  const count = module.resultSpans(input, length, out);
  if (count < 0) return undefined;
  const spans = new Int32Array(module.memory.buffer, out, count * 2);
  const texts = new Array<string>(count);
  for (let i = 0; i < count; i += 1) texts[i] = body.slice(spans[2 * i], spans[2 * i + 1]);
  return texts;
}
