// Capture in the caller's own host (docs/npm.md, "Capture"): the program's module rewritten to
// export every global and its memory under reserved names, so that a dump can hold every
// mutable i32 global (the GC roots a program keeps in module-level variables), and the
// `MemoryDump.dumpMemoryRegion(filePathOffset, filePathSize)` import that writes version-2
// dumps (docs/heap.md, "Dump format") as `qip-memory heap capture` does.

import { existsSync, lstatSync, mkdirSync, realpathSync, writeFileSync } from "node:fs";
import { basename, dirname, isAbsolute, relative, resolve, sep } from "node:path";

/** Every reserved export name starts with this. */
export const RESERVED_PREFIX = "__qip_memory_";
const GLOBAL = `${RESERVED_PREFIX}global_`; // + `<index>_<type>_<var|const>`
const MEMORY = `${RESERVED_PREFIX}memory`;
const ROLES = ["__data_end", "__heap_base", "__stack_pointer"];
const ROLE = (name) => `${RESERVED_PREFIX}role${name}`; // __qip_memory_role__data_end

class Reader {
  constructor(bytes, pos, end) {
    this.bytes = bytes;
    this.pos = pos;
    this.end = end;
  }
  byte() {
    if (this.pos >= this.end) throw new Error(`unexpected end of section at offset 0x${this.pos.toString(16)}`);
    return this.bytes[this.pos++];
  }
  uleb() {
    let result = 0;
    let scale = 1;
    for (let i = 0; i < 10; i++) {
      const b = this.byte();
      result += (b & 0x7f) * scale;
      if ((b & 0x80) === 0) return result;
      scale *= 128;
    }
    throw new Error(`malformed LEB128 at offset 0x${(this.pos - 1).toString(16)}`);
  }
  sleb() {
    for (let i = 0; i < 10; i++) if ((this.byte() & 0x80) === 0) return;
    throw new Error(`malformed LEB128 at offset 0x${(this.pos - 1).toString(16)}`);
  }
  skip(n) {
    if (this.pos + n > this.end) throw new Error(`unexpected end of section at offset 0x${this.pos.toString(16)}`);
    this.pos += n;
  }
  name() {
    const len = this.uleb();
    this.skip(len);
    return new TextDecoder().decode(this.bytes.subarray(this.pos - len, this.pos));
  }
}

const VALUE_TYPES = { 0x7f: "i32", 0x7e: "i64", 0x7d: "f32", 0x7c: "f64", 0x7b: "v128", 0x70: "ref", 0x6f: "ref", 0x69: "ref" };

/** A value type's short name; reads the heap type of `(ref null? ht)`. */
function valueType(r) {
  const at = r.pos;
  const b = r.byte();
  if (b === 0x63 || b === 0x64) {
    r.sleb();
    return "ref";
  }
  const t = VALUE_TYPES[b];
  if (t === undefined) throw new Error(`unknown value type 0x${b.toString(16)} at offset 0x${at.toString(16)}`);
  return t;
}

function limits(r) {
  const flags = r.byte();
  r.uleb();
  if (flags & 1) r.uleb();
}

/** Skips a constant expression through its `end`. */
function constExpr(r) {
  for (;;) {
    const at = r.pos;
    const op = r.byte();
    switch (op) {
      case 0x0b:
        return;
      case 0x41:
      case 0x42:
        r.sleb();
        break;
      case 0x43:
        r.skip(4);
        break;
      case 0x44:
        r.skip(8);
        break;
      case 0x23:
      case 0xd2:
        r.uleb();
        break;
      case 0xd0:
        r.sleb();
        break;
      case 0x6a: case 0x6b: case 0x6c: case 0x7c: case 0x7d: case 0x7e:
        break;
      case 0xfd:
        if (r.uleb() !== 12) throw new Error(`unsupported instruction in a constant expression at offset 0x${at.toString(16)}`);
        r.skip(16);
        break;
      default:
        throw new Error(`unsupported instruction 0x${op.toString(16)} in a constant expression at offset 0x${at.toString(16)}`);
    }
  }
}

function uleb(value) {
  const out = [];
  do {
    let b = value % 128;
    value = Math.floor(value / 128);
    if (value !== 0) b |= 0x80;
    out.push(b);
  } while (value !== 0);
  return out;
}

const encodeName = (s) => {
  const bytes = new TextEncoder().encode(s);
  return [...uleb(bytes.length), ...bytes];
};

/** Where each non-custom section id stands in the order of the binary format. */
const ORDER = [1, 2, 3, 4, 5, 13, 6, 7, 8, 9, 12, 10, 11];

/**
 * The module `wasmBytes` with one more export per global (`__qip_memory_global_<index>_<type>_
 * <var|const>`, in index order; an imported global's name ends in `_imported`), one for memory 0
 * (`__qip_memory_memory`) and one per region global found (`__qip_memory_role__data_end`,
 * `…__heap_base`, `…__stack_pointer`: the global exported under that name, else the one the
 * `name` section calls `~lib/memory/<name>`, as `asc --debug` writes, the rule of `qip-memory
 * heap capture`). Nothing else changes: the functions, the global indices and their order,
 * the other exports. A module already prepared comes back unchanged (a copy).
 *
 * Throws an `Error` naming the offset when the bytes are not a WebAssembly module it can read.
 */
export function prepareForCapture(wasmBytes) {
  let bytes;
  if (wasmBytes instanceof Uint8Array) bytes = wasmBytes;
  else if (wasmBytes instanceof ArrayBuffer) bytes = new Uint8Array(wasmBytes);
  else if (ArrayBuffer.isView(wasmBytes)) bytes = new Uint8Array(wasmBytes.buffer, wasmBytes.byteOffset, wasmBytes.byteLength);
  else throw new TypeError("wasmBytes must be a Uint8Array, an ArrayBuffer or a typed array view");
  if (bytes.length < 8 || bytes[0] !== 0 || bytes[1] !== 0x61 || bytes[2] !== 0x73 || bytes[3] !== 0x6d) {
    throw new Error("not a WebAssembly binary (no \\0asm magic at offset 0)");
  }
  if (bytes[4] !== 1 || bytes[5] !== 0 || bytes[6] !== 0 || bytes[7] !== 0) {
    throw new Error("not a core WebAssembly module (version at offset 4 is not 1; a component?)");
  }
  const globals = []; // { type, mutable }, index space order
  let memories = 0;
  const exportNames = new Map(); // name → { kind, index }
  const globalNames = new Map(); // index → name
  let exportSection = null; // { start, end, bodyStart }
  let insertAt = bytes.length; // where a new export section would go
  const r = new Reader(bytes, 8, bytes.length);
  while (r.pos < bytes.length) {
    const start = r.pos;
    const id = r.byte();
    const size = r.uleb();
    const body = r.pos;
    const end = body + size;
    if (end > bytes.length) throw new Error(`section ${id} at offset 0x${start.toString(16)} runs past the end of the module`);
    const s = new Reader(bytes, body, end);
    if (id !== 0 && insertAt === bytes.length && ORDER.indexOf(id) > ORDER.indexOf(7)) insertAt = start;
    if (id === 2) {
      for (let n = s.uleb(); n > 0; n--) {
        s.name();
        s.name();
        const kind = s.byte();
        if (kind === 0) s.uleb();
        else if (kind === 1) {
          valueType(s);
          limits(s);
        } else if (kind === 2) {
          limits(s);
          memories++;
        } else if (kind === 3) {
          const type = valueType(s);
          globals.push({ type, mutable: s.byte() === 1, imported: true });
        } else if (kind === 4) {
          s.byte();
          s.uleb();
        } else throw new Error(`unknown import kind ${kind} at offset 0x${(s.pos - 1).toString(16)}`);
      }
    } else if (id === 5) {
      memories += s.uleb();
    } else if (id === 6) {
      for (let n = s.uleb(); n > 0; n--) {
        const type = valueType(s);
        const mutable = s.byte() === 1;
        constExpr(s);
        globals.push({ type, mutable });
      }
    } else if (id === 7) {
      exportSection = { start, end, body };
      for (let n = s.uleb(); n > 0; n--) {
        const name = s.name();
        const kind = s.byte();
        exportNames.set(name, { kind, index: s.uleb() });
      }
    } else if (id === 0 && s.name() === "name") {
      while (s.pos < end) {
        const sub = s.byte();
        const len = s.uleb();
        const subEnd = s.pos + len;
        if (sub === 7) {
          for (let n = s.uleb(); n > 0; n--) {
            const index = s.uleb();
            globalNames.set(index, s.name());
          }
        }
        s.pos = subEnd;
      }
    }
    r.pos = end;
  }
  if ([...exportNames.keys()].some((n) => n.startsWith(RESERVED_PREFIX))) return bytes.slice();

  const added = [];
  // An imported global is marked, so that `writeDump` leaves it out: a dump holds the
  // mutable i32 globals the module defines (docs/heap.md, "Dump format").
  globals.forEach((g, i) =>
    added.push([`${GLOBAL}${i}_${g.type}_${g.mutable ? "var" : "const"}${g.imported ? "_imported" : ""}`, 3, i]),
  );
  if (memories > 0) added.push([MEMORY, 2, 0]);
  for (const role of ROLES) {
    const exported = exportNames.get(role);
    let index = exported?.kind === 3 ? exported.index : undefined;
    if (index === undefined) {
      for (const [i, name] of globalNames) if (name === `~lib/memory/${role}`) index ??= i;
    }
    if (index !== undefined && globals[index]?.type === "i32") added.push([ROLE(role), 3, index]);
  }
  const entries = added.flatMap(([name, kind, index]) => [...encodeName(name), kind, ...uleb(index)]);
  let head;
  let tail;
  let oldCount = 0;
  let oldEntries = [];
  if (exportSection) {
    const old = new Reader(bytes, exportSection.body, exportSection.end);
    oldCount = old.uleb();
    oldEntries = bytes.subarray(old.pos, exportSection.end);
    head = bytes.subarray(0, exportSection.start);
    tail = bytes.subarray(exportSection.end);
  } else {
    head = bytes.subarray(0, insertAt);
    tail = bytes.subarray(insertAt);
  }
  const body = [...uleb(oldCount + added.length), ...oldEntries, ...entries];
  const section = [7, ...uleb(body.length), ...body];
  const out = new Uint8Array(head.length + section.length + tail.length);
  out.set(head, 0);
  out.set(section, head.length);
  out.set(tail, head.length + section.length);
  return out;
}

/** The instance's exports, from an instance or a function returning one. */
function exportsOf(instanceOrGetter) {
  const instance = typeof instanceOrGetter === "function" ? instanceOrGetter() : instanceOrGetter;
  const exports = instance?.exports;
  if (!exports || !(exports[MEMORY] instanceof WebAssembly.Memory)) {
    throw new Error("the instance was not made from prepareForCapture's module (it has no __qip_memory_memory export)");
  }
  return exports;
}

/**
 * The version-2 dump of `instance` now (docs/heap.md, "Dump format"): "ASHD", version 2,
 * `__data_end`, `__heap_base`, `__stack_pointer`, the number N of mutable i32 globals the
 * module defines and their values in index order, then the whole linear memory; all u32 little-endian. The
 * instance must come from `prepareForCapture`'s module. When `path` is given, the dump is
 * also written there (its directory made when missing). Returns the dump's bytes.
 */
export function writeDump(instance, path) {
  const exports = exportsOf(instance);
  const region = ROLES.map((role) => {
    const g = exports[ROLE(role)];
    if (!(g instanceof WebAssembly.Global)) {
      throw new Error(`the module has no i32 global ${role} (export it, or build with --debug for the name section)`);
    }
    return g.value >>> 0;
  });
  const values = Object.keys(exports)
    .filter((name) => name.startsWith(GLOBAL) && name.endsWith("_i32_var"))
    .map((name) => [Number(name.slice(GLOBAL.length).split("_")[0]), exports[name].value >>> 0])
    .sort((a, b) => a[0] - b[0])
    .map(([, v]) => v);
  const memory = new Uint8Array(exports[MEMORY].buffer);
  const dump = new Uint8Array(24 + 4 * values.length + memory.length);
  const view = new DataView(dump.buffer);
  view.setUint32(0, 0x44485341, true); // "ASHD"
  view.setUint32(4, 2, true);
  region.forEach((v, i) => view.setUint32(8 + 4 * i, v, true));
  view.setUint32(20, values.length, true);
  values.forEach((v, i) => view.setUint32(24 + 4 * i, v, true));
  dump.set(memory, 24 + 4 * values.length);
  if (path !== undefined) {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, dump);
  }
  return dump;
}

/** The rule `qip-memory heap capture` applies to a guest's dump path; throws its message. */
function checkGuestPath(path) {
  if (path === "") throw new Error("the guest asked for a dump at an empty path");
  if (path.startsWith("/") || path.startsWith("\\") || path[1] === ":") {
    throw new Error(`the guest asked for a dump at the absolute path ${JSON.stringify(path)}: paths must be relative to the dump directory`);
  }
  if (/\p{Cc}/u.test(path)) {
    throw new Error(`the guest asked for a dump at ${JSON.stringify(path)}: a path may not hold control characters`);
  }
  if (path.split(/[/\\]/).includes("..")) {
    throw new Error(`the guest asked for a dump at ${JSON.stringify(path)}: \`..\` may not leave the dump directory`);
  }
}

/**
 * The import object `{ MemoryDump: { dumpMemoryRegion } }` for a program that declares WARPO's
 * `@external("MemoryDump", "dumpMemoryRegion") declare function dumpMemoryRegion(filePathOffset:
 * i32, filePathSize: i32): void`. Each call reads the UTF-8 path from the program's memory,
 * resolves it inside `options.dir` (default: the working directory; absolute paths, `..` and
 * symbolic links leading out are refused) and writes the dump there (`writeDump`).
 * `getInstance`: the instance, or a function returning it (the instance does not exist yet
 * when the imports are made). A refused path or a failed write throws out of the program's
 * call with the message `qip-memory heap capture` gives.
 */
export function memoryDumpImports(getInstance, options = {}) {
  const dir = resolve(options.dir ?? process.cwd());
  return {
    MemoryDump: {
      dumpMemoryRegion(filePathOffset, filePathSize) {
        const exports = exportsOf(getInstance);
        const [offset, size] = [filePathOffset >>> 0, filePathSize >>> 0];
        const memory = new Uint8Array(exports[MEMORY].buffer);
        if (offset + size > memory.length) {
          throw new Error(`the guest's dump path at ${offset}, ${size} bytes, lies outside its memory (${memory.length} bytes)`);
        }
        let path;
        try {
          path = new TextDecoder("utf-8", { fatal: true }).decode(memory.subarray(offset, offset + size));
        } catch {
          throw new Error(`the guest's dump path at ${offset} is not UTF-8`);
        }
        checkGuestPath(path);
        const target = resolve(dir, path);
        mkdirSync(dir, { recursive: true });
        const root = realpathSync(dir);
        const inside = (p) => {
          const rel = relative(root, p);
          return rel !== ".." && !rel.startsWith(`..${sep}`) && !isAbsolute(rel);
        };
        const refuse = () => {
          throw new Error(`the guest asked for a dump at ${JSON.stringify(path)}: a symbolic link leads out of the dump directory`);
        };
        // The deepest directory that exists must lie inside before any is made; then the
        // file's directory and the file itself, once links are resolved.
        let existing = dirname(target);
        while (!existsSync(existing)) existing = dirname(existing);
        if (!inside(realpathSync(existing))) refuse();
        mkdirSync(dirname(target), { recursive: true });
        let file = resolve(realpathSync(dirname(target)), basename(target));
        let link = null;
        try {
          link = lstatSync(file).isSymbolicLink();
        } catch {
          // Nothing there yet: its directory decides.
        }
        if (link) {
          // A link to a file outside, or a dangling one (writing would create its target,
          // wherever that is), is refused, as `heap capture` refuses it.
          try {
            file = realpathSync(file);
          } catch {
            refuse();
          }
        }
        if (!inside(dirname(file)) || !inside(file)) refuse();
        writeDump({ exports }, target);
      },
    },
  };
}
