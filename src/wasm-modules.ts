/**
 * The WebAssembly modules built into the code (AssemblyScript under src/<layer>/wasm, with what
 * they share in src/wasm, compiled by `npm run build:wasm` into a base64 string beside their
 * callers, so any build of the TypeScript carries them), instantiated with their memory.
 *
 * A module's memory only ever grows: one page far larger than usual would leave it holding that
 * page's memory for the life of the process. So after each page its caller asks `outgrewMemory`,
 * and drops the instance when it has grown past WASM_MEMORY_KEPT_BYTES: the next page instantiates
 * the module again (compiled once, instantiating costs well under a millisecond) and the garbage
 * collector frees the old memory.
 */

// The parts of Node's WebAssembly global used here: @types/node 20 does not declare it.
interface WebAssemblyApi {
  Module: new (binary: Uint8Array) => object;
  Instance: new (module: object, imports: Record<string, Record<string, () => void>>) => { readonly exports: unknown };
}
const { Module, Instance } = (globalThis as unknown as { WebAssembly: WebAssemblyApi }).WebAssembly;

/** What every module of ours exports beside its own functions. */
export interface WasmExports {
  readonly memory: { readonly buffer: ArrayBuffer; grow(pages: number): number };
  /** The first byte of memory the module does not use. */
  heapBase(): number;
}

const PAGE_BYTES = 65_536;

/**
 * Room to leave after each area a module reads or writes: the modules load and store sixteen bytes
 * at a time, past the end of what they use.
 */
export const WASM_SLACK = 64;

/**
 * The memory a module may keep between pages. A usual 500-event page (1–2 MB) needs under 10 MiB in
 * each module; a page of more than about 6 MB takes the module past this, and it is instantiated
 * again for the next page.
 */
export const WASM_MEMORY_KEPT_BYTES = 32 * 1024 * 1024;

/** Each module compiled, by name: instantiated again from this after its memory was given back. */
const compiled = new Map<string, object>();
/** Each module's current instance, by name. */
const current = new Map<string, WasmExports>();

export function instantiateWasm<T extends WasmExports>(name: string, base64: string): T {
  let module = compiled.get(name);
  if (module === undefined) {
    module = new Module(Buffer.from(base64, 'base64'));
    compiled.set(name, module);
  }
  const instance = new Instance(module, {
    env: {
      abort: () => {
        throw new Error(`${name} aborted`);
      },
    },
  });
  const exports = instance.exports as T;
  current.set(name, exports);
  return exports;
}

/**
 * Asked after each page: whether the named module's memory has grown past WASM_MEMORY_KEPT_BYTES.
 * When it has, it is forgotten here and the caller must drop every reference to the instance, so
 * that the next page instantiates it again and the old memory is garbage.
 */
export function outgrewMemory(name: string): boolean {
  const module = current.get(name);
  if (module === undefined || module.memory.buffer.byteLength <= WASM_MEMORY_KEPT_BYTES) return false;
  current.delete(name);
  return true;
}

/** The memory in bytes of each module instantiated and not dropped, by name (for tests and benchmarks). */
export function wasmMemoryBytes(): Record<string, number> {
  return Object.fromEntries([...current].map(([name, module]) => [name, module.memory.buffer.byteLength]));
}

/** Grows the module's memory to at least `bytes` (growing replaces its buffer: take views after). */
export function reserveWasmMemory(module: WasmExports, bytes: number): void {
  const missing = bytes - module.memory.buffer.byteLength;
  if (missing > 0) module.memory.grow(Math.ceil(missing / PAGE_BYTES));
}

/** The module's memory as a Buffer (valid until it grows). */
export const wasmBytes = (module: WasmExports): Buffer => Buffer.from(module.memory.buffer);

/** `value` rounded up to a multiple of `to`. */
export const alignUp = (value: number, to: number): number => Math.ceil(value / to) * to;
