// Captures tests/assemblyscript/global_tree.ts in plain Node with the npm package, as a user
// would in their own host (tests/npm.rs copies this file next to the installed package):
// `prepareForCapture`, `memoryDumpImports`, the program's own `dumpMemoryRegion(path)` calls.
// Then the same program the seed document's way: its minimal writer, which puts 0 mutable
// globals in the header. Prints what the Rust test checks as one JSON object.
//
//   node capture.mjs PROGRAM.wasm OUT_DIR SEED_DIR [IMPORTING.wasm]
import { readFileSync, mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { prepareForCapture, memoryDumpImports, writeDump, RESERVED_PREFIX } from "qip-memory";

const [wasmPath, outDir, seedDir, importsPath] = process.argv.slice(2);
const original = readFileSync(wasmPath);
const prepared = prepareForCapture(original);
const [m0, m1] = [new WebAssembly.Module(original), new WebAssembly.Module(prepared)];
const out = {};
out.originalExports = WebAssembly.Module.exports(m0);
out.preparedExports = WebAssembly.Module.exports(m1);
out.importsKept = JSON.stringify(WebAssembly.Module.imports(m0)) === JSON.stringify(WebAssembly.Module.imports(m1));
out.again = Buffer.compare(prepareForCapture(prepared), prepared) === 0;
out.reserved = RESERVED_PREFIX;
writeFileSync(`${outDir}/prepared.wasm`, prepared);

// Every cut of the module: refused with an Error that names an offset, or, cut exactly where a
// section ends, a module (those lengths are listed; the Rust test knows the section ends).
out.cutsKept = [];
out.cutsRefused = 0;
for (let n = 0; n < original.length; n++) {
  try {
    prepareForCapture(original.subarray(0, n));
    out.cutsKept.push(n);
  } catch (e) {
    if (!(e instanceof Error) || !/(offset 0x[0-9a-f]+|at offset 0)/.test(e.message)) throw e;
    out.cutsRefused++;
  }
}

const env = { abort: () => { throw new Error("abort"); } };
let instance;
instance = new WebAssembly.Instance(m1, { env, ...memoryDumpImports(() => instance, { dir: outDir }) });
instance.exports.main();
for (const name of ["escape", "absolute"]) {
  try {
    instance.exports[name]();
    out[name] = null;
  } catch (e) {
    out[name] = e.message;
  }
}
out.writeDump = Buffer.from(writeDump(instance)).subarray(0, 24).toString("hex");

// A dump directory that does not exist yet is made; a dangling link inside the directory that
// points out of it is refused, and nothing is written where it points.
let fresh;
fresh = new WebAssembly.Instance(m1, { env, ...memoryDumpImports(() => fresh, { dir: `${outDir}/fresh/sub` }) });
fresh.exports.main();
const linked = `${outDir}/linked`;
mkdirSync(linked, { recursive: true });
symlinkSync("../outside/tree-1.dump", `${linked}/tree-1.dump`);
let viaLink;
viaLink = new WebAssembly.Instance(m1, { env, ...memoryDumpImports(() => viaLink, { dir: linked }) });
try {
  viaLink.exports.main();
  out.danglingLink = null;
} catch (e) {
  out.danglingLink = e.message;
}

// The seed's writer: the three region globals, numMutableI32GlobalValues = 0, the memory.
let seeded;
const seedImports = {
  env,
  MemoryDump: {
    dumpMemoryRegion(offset, size) {
      const exports = seeded.exports;
      const guestPath = Buffer.from(exports.memory.buffer, offset, size).toString("utf8");
      const raw = new Uint8Array(exports.memory.buffer);
      const dump = new Uint8Array(24 + raw.byteLength);
      const view = new DataView(dump.buffer);
      dump.set([0x41, 0x53, 0x48, 0x44], 0);
      view.setUint32(4, 2, true);
      view.setUint32(8, Number(exports[`${RESERVED_PREFIX}role__data_end`].value), true);
      view.setUint32(12, Number(exports[`${RESERVED_PREFIX}role__heap_base`].value), true);
      view.setUint32(16, Number(exports[`${RESERVED_PREFIX}role__stack_pointer`].value), true);
      view.setUint32(20, 0, true);
      dump.set(raw, 24);
      mkdirSync(seedDir, { recursive: true });
      writeFileSync(resolve(seedDir, guestPath), dump);
    },
  },
};
seeded = new WebAssembly.Instance(m1, seedImports);
seeded.exports.main();
// A module that imports a mutable i32 global and defines one: the dump holds the defined one
// only, as a dump of the module must (docs/heap.md, "Dump format").
if (importsPath) {
  const importing = new WebAssembly.Module(prepareForCapture(readFileSync(importsPath)));
  const host = new WebAssembly.Global({ value: "i32", mutable: true }, 7);
  const inst = new WebAssembly.Instance(importing, { host: { g: host } });
  out.importedGlobalHeader = Buffer.from(writeDump(inst)).subarray(0, 28).toString("hex");
  out.importingExports = WebAssembly.Module.exports(importing).map((e) => e.name);
}
process.stdout.write(JSON.stringify(out));
