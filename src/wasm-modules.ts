/**
 * The WebAssembly modules built into the code (AssemblyScript under src/<layer>/wasm, with what
 * they share in src/wasm, compiled by `npm run build:wasm` into a base64 string beside their
 * callers, so any build of the TypeScript carries them), instantiated with their memory.
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

export function instantiateWasm<T extends WasmExports>(name: string, base64: string): T {
  const instance = new Instance(new Module(Buffer.from(base64, 'base64')), {
    env: {
      abort: () => {
        throw new Error(`${name} aborted`);
      },
    },
  });
  return instance.exports as T;
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
