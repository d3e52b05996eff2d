// Type declarations of the qip-memory package (docs/npm.md).

/** Bytes as the functions take them. */
export type Bytes = Uint8Array | ArrayBuffer | ArrayBufferView;

/** The error of a command that failed. */
export declare class QipMemoryError extends Error {
  /** The command's exit status (1 for a refused input). */
  readonly exitCode: number;
}

/** A live object: its payload address in linear memory and its sizes in bytes. */
export interface Instance {
  address: number;
  shallowSize: number;
  retainedSize: number;
}

/** One row of WARPO's constructor view: a class and its live objects. */
export interface ConstructorRow {
  className: string;
  count: number;
  totalShallowSize: number;
  totalRetainedSize: number;
  instances: Instance[];
}

/** WARPO's constructor view of one dump (`as-heap-analyzer analyze`), sizes in bytes. */
export interface AnalyzeResult {
  totalHeapSize: number;
  totalLiveSize: number;
  constructors: ConstructorRow[];
}

/** One row of WARPO's comparison view: a class's new and deleted objects. */
export interface ComparisonRow {
  className: string;
  newCount: number;
  deletedCount: number;
  countDelta: number;
  allocatedSize: number;
  freedSize: number;
  sizeDelta: number;
  instances: (Instance & { changeKind: "new" | "delete" })[];
}

/** WARPO's comparison view of two dumps (`as-heap-analyzer diff`), sizes in bytes. */
export interface DiffResult {
  beforeTotalHeapSize: number;
  afterTotalHeapSize: number;
  totalHeapSizeDelta: number;
  beforeTotalLiveSize: number;
  afterTotalLiveSize: number;
  totalLiveSizeDelta: number;
  constructors: ComparisonRow[];
}

export interface AnalyzeOptions {
  sort?: "retained" | "shallow" | "count";
  top?: number;
  format?: "json" | "table";
}
export interface DiffOptions {
  sort?: "delta" | "alloc" | "freed" | "count";
  top?: number;
  format?: "json" | "table";
}
export interface RetainersOptions {
  /** The object's payload address, as `analyze` lists it. */
  address?: number | bigint | string;
  /** A class name; the module path may be left out when the name is unique. */
  class?: string;
  /** At most this many paths from roots (default 3). */
  paths?: number;
  format?: "json" | "table";
}
export interface DominatorsOptions {
  /** Levels below the virtual root, 1 to 256 (default 4). */
  depth?: number;
  /** At most this many children per node (default 10). */
  top?: number;
  format?: "json" | "table";
}

/** WARPO's constructor view; a string with `format: "table"`. Rejects with a QipMemoryError. */
export declare function analyze(dump: Bytes, wasm: Bytes, options?: AnalyzeOptions & { format?: "json" }): Promise<AnalyzeResult>;
export declare function analyze(dump: Bytes, wasm: Bytes, options: AnalyzeOptions & { format: "table" }): Promise<string>;
/** WARPO's comparison view of two dumps of one module; a string with `format: "table"`. */
export declare function diff(before: Bytes, after: Bytes, wasm: Bytes, options?: DiffOptions & { format?: "json" }): Promise<DiffResult>;
export declare function diff(before: Bytes, after: Bytes, wasm: Bytes, options: DiffOptions & { format: "table" }): Promise<string>;
/** Why one object is alive (the JSON of `qip-memory heap retainers`, docs/heap.md). */
export declare function retainers(dump: Bytes, wasm: Bytes, options: RetainersOptions & { format?: "json" }): Promise<any>;
export declare function retainers(dump: Bytes, wasm: Bytes, options: RetainersOptions & { format: "table" }): Promise<string>;
/** The dominator tree from the virtual root (the JSON of `qip-memory heap dominators`). */
export declare function dominators(dump: Bytes, wasm: Bytes, options?: DominatorsOptions & { format?: "json" }): Promise<any>;
export declare function dominators(dump: Bytes, wasm: Bytes, options: DominatorsOptions & { format: "table" }): Promise<string>;
/** A Chrome DevTools heap snapshot: the text of a `.heapsnapshot` file. */
export declare function snapshot(dump: Bytes, wasm: Bytes): Promise<string>;

/** Every export `prepareForCapture` adds starts with this. */
export declare const RESERVED_PREFIX: "__qip_memory_";

/** The module with every global, memory 0 and the region globals exported under reserved
 * names; nothing else changed. */
export declare function prepareForCapture(wasmBytes: Uint8Array | ArrayBuffer): Uint8Array;

/** The `MemoryDump` import object implementing WARPO's `dumpMemoryRegion(filePathOffset,
 * filePathSize)`: a version-2 dump at the guest's UTF-8 path inside `options.dir`. */
export declare function memoryDumpImports(
  getInstance: WebAssembly.Instance | (() => WebAssembly.Instance),
  options?: { dir?: string },
): { MemoryDump: { dumpMemoryRegion(filePathOffset: number, filePathSize: number): void } };

/** The version-2 dump of the instance now; also written to `path` when given. */
export declare function writeDump(instance: WebAssembly.Instance | (() => WebAssembly.Instance), path?: string): Uint8Array;

/** Runs the command-line tool once (`argv0`: `qip-memory` or `as-heap-analyzer`); resolves to
 * its exit status. */
export declare function run(
  argv0: string,
  args: string[],
  options?: { cwd?: string; stdin?: number; stdout?: number; stderr?: number },
): Promise<number>;
