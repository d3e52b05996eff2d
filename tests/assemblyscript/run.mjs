// Runs an asc-compiled fixture program and writes its heap dumps (docs/heap.md, "Dump format",
// "Fixtures").
//
//   node run.mjs build/<program>.wasm
//
// Rewrites the module so that every global is exported (the npm package's `prepareForCapture`,
// npm/lib/capture.js), instantiates it under Node, calls its `main` export, and at each
// `MemoryDump.dumpMemoryRegion` call writes `build/<program>.<n>.dump` (n = 1, 2, …) with the
// package's `writeDump`: magic "ASHD", version 2, dataEnd, heapBase, stackPointer, N and the
// values of all mutable i32 globals in index order, then the whole linear memory.
//
// The import, as memory_dump.ts declares it:
//   dumpMemoryRegion(labelPtr, labelByteLength, dataEnd, heapBase, stackPointer)
// where the label is a static UTF-16 string (printed only) and the three values are the
// builtins `__data_end`, `__heap_base` and `__stack_pointer` read by the caller. The runner
// checks them against the module's own globals of those names (found through the name section),
// which the dump's header holds.

import { readFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";

import { prepareForCapture, writeDump, RESERVED_PREFIX } from "../../npm/lib/capture.js";

function fail(message) {
  console.error(`run.mjs: ${message}`);
  process.exit(1);
}

const wasmPath = process.argv[2];
if (!wasmPath || process.argv.length !== 3) fail("usage: node run.mjs build/<program>.wasm");
const program = basename(wasmPath).replace(/\.wasm$/, "");
const outDir = dirname(wasmPath);

let module;
try {
  module = new WebAssembly.Module(prepareForCapture(new Uint8Array(readFileSync(wasmPath))));
} catch (e) {
  fail(`${wasmPath}: ${e.message}`);
}

let instance = null;
let dumps = 0;
const decodeUtf16 = (ptr, byteLength) =>
  new TextDecoder("utf-16le").decode(new Uint8Array(instance.exports.memory.buffer, ptr, byteLength));

const imports = {
  env: {
    abort(messagePtr, filePtr, line, column) {
      const text = (ptr) => (ptr ? decodeUtf16(ptr, new Uint32Array(instance.exports.memory.buffer, ptr - 4, 1)[0]) : "");
      throw new Error(`abort: ${text(messagePtr)} at ${text(filePtr)}:${line}:${column}`);
    },
  },
  MemoryDump: {
    dumpMemoryRegion(labelPtr, labelByteLength, dataEnd, heapBase, stackPointer) {
      [dataEnd, heapBase, stackPointer] = [dataEnd >>> 0, heapBase >>> 0, stackPointer >>> 0];
      const label = decodeUtf16(labelPtr >>> 0, labelByteLength >>> 0);
      for (const [name, value] of [
        ["__data_end", dataEnd],
        ["__heap_base", heapBase],
        ["__stack_pointer", stackPointer],
      ]) {
        const actual = instance.exports[`${RESERVED_PREFIX}role${name}`]?.value;
        if (actual === undefined) throw new Error(`dump "${label}": the module has no global ${name}`);
        if (actual >>> 0 !== value) {
          throw new Error(`dump "${label}": the guest passed ${value} for ${name}, the global holds ${actual >>> 0}`);
        }
      }
      const path = join(outDir, `${program}.${++dumps}.dump`);
      const dump = writeDump(instance, path);
      const globals = new DataView(dump.buffer).getUint32(20, true);
      console.log(
        `${path}: "${label}", dataEnd ${dataEnd}, heapBase ${heapBase}, stackPointer ${stackPointer}, ` +
          `${globals} mutable i32 globals, ${instance.exports.memory.buffer.byteLength} bytes of memory`,
      );
    },
  },
};

for (const imp of WebAssembly.Module.imports(module)) {
  if (!imports[imp.module] || !imports[imp.module][imp.name]) fail(`${wasmPath}: unexpected import ${imp.module}.${imp.name}`);
}
instance = new WebAssembly.Instance(module, imports);
if (typeof instance.exports.main !== "function") fail(`${wasmPath}: no \`main\` export`);
instance.exports.main();
if (dumps === 0) fail(`${wasmPath}: the program took no dump`);
