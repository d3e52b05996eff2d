// asc transform: writes the class layouts and globals of the compiled program as JSON next to
// the wasm (`<out>.layout.json` for `-o <out>.wasm`), for dwarfgen to turn into WARPO-shaped
// DWARF (docs/heap.md, "Fixtures").
//
// What it records, all by AssemblyScript internal name:
// * every managed class (program.managedClasses): runtime id, base class, the fields it declares
//   itself (inherited ones are left to the inheritance link, as WARPO does) with byte offsets in
//   the payload and their type (a class internal name for references, the type keyword for
//   primitives), and its type arguments;
// * the unmanaged Map/Set entry classes (`~lib/map/MapEntry<K,V>`, `~lib/set/SetEntry<K>`):
//   id 0, fields, and their real stride (the runtime's ENTRY_SIZE: the field extent rounded up
//   to the largest of sizeof<K>, sizeof<V> and sizeof<usize>) as `byteSize`;
// * every global of the module (binaryen's order, which is the global section's order, since asc
//   imports no globals) with its type; dwarfgen maps names to indices again through the name
//   section of the final binary and checks that both agree;
// * the primitive type keywords used by any of the above, plus i32, f32, f64 and bool.
//
// Facts of asc 0.28.20 this relies on (found by inspection, not documented API):
// * `Class#members` holds PropertyPrototypes; a field's prototype has `isField` true and its
//   resolved `instance` (a Property) carries `memoryOffset` and `type`. Inherited fields appear
//   in the derived class's members too.
// * `Class#offsetof(name)` returns the same offset (used as a cross-check).
// * Transforms are not handed the CLI options, so the output path comes from process.argv.
// * Class names of the compiler's own objects are minified in the bundle: nothing here looks at
//   constructor names.

import { writeFileSync } from "node:fs";

function outputPath() {
  if (process.env.LAYOUT_JSON) return process.env.LAYOUT_JSON;
  const argv = process.argv;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    let out = null;
    if (a === "-o" || a === "--outFile") out = argv[i + 1];
    else if (a.startsWith("--outFile=")) out = a.slice("--outFile=".length);
    if (out) return out.replace(/\.wasm$/, "") + ".layout.json";
  }
  throw new Error("layout.mjs: no -o/--outFile on the asc command line and no LAYOUT_JSON");
}

// A type's name as WARPO's DWARF refers to it: the class internal name for references (without
// ` | null`), the type keyword for everything else.
function typeName(type) {
  const cls = type.getClass();
  if (cls) return cls.internalName;
  return type.toString().replace(/ \| null$/, "");
}

function isPrimitive(type) {
  return !type.getClass();
}

function ownFields(program, cls) {
  const fields = [];
  if (!cls.members) return fields;
  const inherited = new Set();
  if (cls.base && cls.base.members) {
    for (const [name, m] of cls.base.members) if (m.isField) inherited.add(name);
  }
  for (const [name, member] of cls.members) {
    if (!member.isField || inherited.has(name)) continue;
    const prop = member.instance || program.instancesByName.get(`${cls.internalName}#${name}`);
    if (!prop || typeof prop.memoryOffset !== "number" || prop.memoryOffset < 0 || !prop.type) continue;
    const offset = prop.memoryOffset;
    const check = cls.offsetof(name);
    if (check !== offset) {
      throw new Error(`layout.mjs: ${cls.internalName}#${name}: memoryOffset ${offset} but offsetof ${check}`);
    }
    fields.push({ name, offset, type: typeName(prop.type), primitive: isPrimitive(prop.type), size: prop.type.byteSize });
  }
  fields.sort((a, b) => a.offset - b.offset);
  return fields;
}

export default class Layout {
  afterCompile(module) {
    const program = this.program;
    const binaryen = this.binaryen;
    const baseTypes = new Set(["i32", "f32", "f64", "bool"]);
    const classes = [];

    const describe = (cls, id, byteSize) => {
      const fields = ownFields(program, cls);
      const typeArguments = (cls.typeArguments || []).map(typeName);
      for (const f of fields) if (f.primitive) baseTypes.add(f.type);
      for (const t of cls.typeArguments || []) if (isPrimitive(t)) baseTypes.add(typeName(t));
      classes.push({
        name: cls.internalName,
        id,
        base: cls.base ? cls.base.internalName : null,
        fields: fields.map(({ name, offset, type }) => ({ name, offset, type })),
        typeArguments,
        byteSize,
      });
    };

    for (const [id, cls] of program.managedClasses) describe(cls, id, null);

    // Unmanaged entry classes: instances named exactly `~lib/map/MapEntry<…>` / `~lib/set/SetEntry<…>`
    // (their members are listed as `…#key` etc. and are skipped by the `#` test).
    for (const [name, el] of program.instancesByName) {
      if (name.includes("#")) continue;
      const isMap = name.startsWith("~lib/map/MapEntry<");
      const isSet = name.startsWith("~lib/set/SetEntry<");
      if (!isMap && !isSet) continue;
      const args = el.typeArguments || [];
      let largest = 4; // sizeof<usize> on wasm32
      for (const t of args) largest = Math.max(largest, t.byteSize);
      const byteSize = (el.nextMemoryOffset + largest - 1) & ~(largest - 1);
      describe(el, 0, byteSize);
    }

    // Globals in module order. Each one that is an AssemblyScript global variable gets its type.
    const globals = [];
    const n = module.getNumGlobals();
    for (let i = 0; i < n; i++) {
      const info = binaryen.getGlobalInfo(module.getGlobalByIndex(i));
      const el = program.elementsByName.get(info.name) || program.instancesByName.get(info.name);
      let type = null;
      // `__data_end` is typed `void` by the compiler (a builtin placeholder): no type for it.
      if (el && el.type && typeName(el.type) !== "void") {
        type = typeName(el.type);
        if (isPrimitive(el.type)) baseTypes.add(type);
      }
      globals.push({ name: info.name, index: i, mutable: info.mutable, type });
    }

    const byName = (a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
    classes.sort(byName);
    const json = {
      producer: "tests/assemblyscript/layout.mjs",
      compiler: "assemblyscript 0.28.20",
      baseTypes: [...baseTypes].sort(),
      classes,
      globals,
    };
    writeFileSync(outputPath(), JSON.stringify(json, null, 2) + "\n");
  }
}
