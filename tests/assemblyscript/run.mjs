// Runs an asc-compiled fixture program and writes its heap dumps (docs/heap.md, "Dump format",
// "Fixtures").
//
//   node run.mjs build/<program>.wasm
//
// Rewrites the module so that every global is exported (as `__qip_global<i>`), instantiates it
// under Node, calls its `main` export, and at each `MemoryDump.dumpMemoryRegion` call writes
// `build/<program>.<n>.dump` (n = 1, 2, …): magic "ASHD", version 2, dataEnd, heapBase,
// stackPointer, N and the values of all mutable i32 globals of the global section in index
// order, then the whole linear memory.
//
// The import, as memory_dump.ts declares it:
//   dumpMemoryRegion(labelPtr, labelByteLength, dataEnd, heapBase, stackPointer)
// where the label is a static UTF-16 string (printed only) and the three values are the
// builtins `__data_end`, `__heap_base` and `__stack_pointer` read by the caller. The runner
// checks them against the module's own globals of those names (found through the name section).

import { readFileSync, writeFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";

function fail(message) {
  console.error(`run.mjs: ${message}`);
  process.exit(1);
}

class Reader {
  constructor(bytes, pos = 0, end = bytes.length) {
    this.bytes = bytes;
    this.pos = pos;
    this.end = end;
  }
  byte() {
    if (this.pos >= this.end) throw new Error("unexpected end of wasm data");
    return this.bytes[this.pos++];
  }
  uleb() {
    let result = 0n;
    let shift = 0n;
    for (;;) {
      const b = this.byte();
      result |= BigInt(b & 0x7f) << shift;
      shift += 7n;
      if ((b & 0x80) === 0) return Number(result);
    }
  }
  sleb() {
    let b;
    do b = this.byte();
    while (b & 0x80);
  }
  name() {
    const len = this.uleb();
    const s = new TextDecoder().decode(this.bytes.subarray(this.pos, this.pos + len));
    this.pos += len;
    return s;
  }
  skip(n) {
    this.pos += n;
  }
}

function uleb(value) {
  const out = [];
  do {
    let b = value & 0x7f;
    value = Math.floor(value / 128);
    if (value !== 0) b |= 0x80;
    out.push(b);
  } while (value !== 0);
  return out;
}

function encodeName(s) {
  const bytes = new TextEncoder().encode(s);
  return [...uleb(bytes.length), ...bytes];
}

// Skips a constant expression up to and including its `end`.
function skipConstExpr(r) {
  for (;;) {
    const op = r.byte();
    switch (op) {
      case 0x0b:
        return;
      case 0x41: // i32.const
      case 0x42: // i64.const
        r.sleb();
        break;
      case 0x43: // f32.const
        r.skip(4);
        break;
      case 0x44: // f64.const
        r.skip(8);
        break;
      case 0x23: // global.get
      case 0xd2: // ref.func
        r.uleb();
        break;
      case 0xd0: // ref.null
        r.byte();
        break;
      case 0x6a: case 0x6b: case 0x6c: case 0x7c: case 0x7d: case 0x7e: // extended-const arithmetic
        break;
      default:
        throw new Error(`unsupported opcode 0x${op.toString(16)} in a constant expression`);
    }
  }
}

// Reads what the runner needs and returns the module with an export for every global.
function prepare(bytes) {
  if (bytes.length < 8 || bytes[0] !== 0 || bytes[1] !== 0x61 || bytes[2] !== 0x73 || bytes[3] !== 0x6d) {
    throw new Error("not a wasm module");
  }
  const globals = []; // { type, mutable } in global-section order
  const globalNames = new Map(); // name → index
  let importedGlobals = 0;
  let exportSection = null; // { start, end, bodyStart }
  const r = new Reader(bytes, 8);
  while (r.pos < bytes.length) {
    const start = r.pos;
    const id = r.byte();
    const size = r.uleb();
    const bodyStart = r.pos;
    const end = bodyStart + size;
    const s = new Reader(bytes, bodyStart, end);
    if (id === 2) {
      for (let n = s.uleb(); n > 0; n--) {
        s.name();
        s.name();
        const kind = s.byte();
        if (kind === 3) importedGlobals++;
        if (kind !== 0) throw new Error(`import of kind ${kind}: asc modules import functions only`);
        s.uleb();
      }
    } else if (id === 6) {
      for (let n = s.uleb(); n > 0; n--) {
        const type = s.byte();
        const mutable = s.byte() === 1;
        skipConstExpr(s);
        globals.push({ type, mutable });
      }
    } else if (id === 7) {
      exportSection = { start, end, bodyStart };
    } else if (id === 0) {
      if (s.name() === "name") {
        while (s.pos < end) {
          const sub = s.byte();
          const len = s.uleb();
          const subEnd = s.pos + len;
          if (sub === 7) {
            for (let n = s.uleb(); n > 0; n--) {
              const index = s.uleb();
              globalNames.set(s.name(), index);
            }
          }
          s.pos = subEnd;
        }
      }
    }
    r.pos = end;
  }
  if (importedGlobals) throw new Error("the module imports globals");
  if (!exportSection) throw new Error("the module has no export section");

  // New export section: the old entries, then `__qip_global<i>` for every global.
  const old = new Reader(bytes, exportSection.bodyStart, exportSection.end);
  const count = old.uleb();
  const entries = Array.from(bytes.subarray(old.pos, exportSection.end));
  for (let i = 0; i < globals.length; i++) entries.push(...encodeName(`__qip_global${i}`), 3, ...uleb(i));
  const body = [...uleb(count + globals.length), ...entries];
  const rewritten = new Uint8Array([
    ...bytes.subarray(0, exportSection.start),
    7,
    ...uleb(body.length),
    ...body,
    ...bytes.subarray(exportSection.end),
  ]);
  return { rewritten, globals, globalNames };
}

const wasmPath = process.argv[2];
if (!wasmPath || process.argv.length !== 3) fail("usage: node run.mjs build/<program>.wasm");
const program = basename(wasmPath).replace(/\.wasm$/, "");
const outDir = dirname(wasmPath);

let prepared;
try {
  prepared = prepare(new Uint8Array(readFileSync(wasmPath)));
} catch (e) {
  fail(`${wasmPath}: ${e.message}`);
}
const { rewritten, globals, globalNames } = prepared;
const module = new WebAssembly.Module(rewritten);

let instance = null;
let dumps = 0;
const exported = (name) => {
  const index = globalNames.get(name);
  return index === undefined ? undefined : instance.exports[`__qip_global${index}`].value >>> 0;
};
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
        ["~lib/memory/__data_end", dataEnd],
        ["~lib/memory/__heap_base", heapBase],
        ["~lib/memory/__stack_pointer", stackPointer],
      ]) {
        const actual = exported(name);
        if (actual !== undefined && actual !== value) {
          throw new Error(`dump "${label}": the guest passed ${value} for ${name}, the global holds ${actual}`);
        }
      }
      const values = [];
      for (let i = 0; i < globals.length; i++) {
        if (globals[i].type === 0x7f && globals[i].mutable) values.push(instance.exports[`__qip_global${i}`].value >>> 0);
      }
      const memory = new Uint8Array(instance.exports.memory.buffer);
      const header = new DataView(new ArrayBuffer(24 + 4 * values.length));
      header.setUint32(0, 0x44485341, true); // "ASHD"
      header.setUint32(4, 2, true);
      header.setUint32(8, dataEnd, true);
      header.setUint32(12, heapBase, true);
      header.setUint32(16, stackPointer, true);
      header.setUint32(20, values.length, true);
      values.forEach((v, i) => header.setUint32(24 + 4 * i, v, true));
      const path = join(outDir, `${program}.${++dumps}.dump`);
      writeFileSync(path, Buffer.concat([new Uint8Array(header.buffer), memory]));
      console.log(
        `${path}: "${label}", dataEnd ${dataEnd}, heapBase ${heapBase}, stackPointer ${stackPointer}, ` +
          `${values.length} mutable i32 globals, ${memory.length} bytes of memory`,
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
