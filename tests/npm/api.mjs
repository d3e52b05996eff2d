// Calls the npm package's JavaScript API as a user would (tests/npm.rs copies this file into
// a directory where the package is installed) and prints every result as one JSON object,
// which the Rust test compares with the native CLI's outputs.
//
//   node api.mjs FIXTURES_DIR
import { readFileSync } from "node:fs";
import { analyze, diff, dominators, retainers, snapshot, QipMemoryError } from "qip-memory";

const dir = process.argv[2];
const f = (name) => readFileSync(`${dir}/${name}`);
const caught = async (call) => {
  try {
    await call();
    return null;
  } catch (e) {
    return { name: e.name, qip: e instanceof QipMemoryError, type: e instanceof TypeError, message: e.message, exitCode: e.exitCode ?? null };
  }
};

const out = {};
out.analyze = await analyze(f("leak.2.dump"), f("leak.wasm"));
out.analyzeShallowTop2 = await analyze(f("leak.2.dump"), f("leak.wasm"), { sort: "shallow", top: 2 });
out.analyzeTable = await analyze(f("dwarf_fixture.1.dump"), f("dwarf_fixture.wasm"), { top: 3, format: "table" });
// A Buffer's bytes are a view into a larger pool: only the view counts.
out.analyzeNoDwarf = await analyze(new Uint8Array(f("leak.2.dump")), f("leak.no-dwarf.wasm").buffer.slice(0), { top: 3 });
out.diff = await diff(f("leak.1.dump"), f("leak.2.dump"), f("leak.wasm"), { sort: "alloc", top: 2 });
out.retainers = await retainers(f("leak.2.dump"), f("leak.wasm"), { class: "leak/Session", paths: 2 });
out.dominators = await dominators(f("leak.2.dump"), f("leak.wasm"), { depth: 2, top: 3 });
out.snapshot = await snapshot(f("leak.2.dump"), f("leak.wasm"));
out.truncated = await caught(() => analyze(f("leak.2.dump").subarray(0, 1000), f("leak.wasm")));
out.badSort = await caught(() => analyze(f("leak.2.dump"), f("leak.wasm"), { sort: "size" }));
out.unknownOption = await caught(() => analyze(f("leak.2.dump"), f("leak.wasm"), { sorted: "count" }));
out.notBytes = await caught(() => analyze("leak.2.dump", f("leak.wasm")));
out.nullOptions = await analyze(f("leak.2.dump"), f("leak.wasm"), null);
out.hyphenSort = await caught(() => analyze(f("leak.2.dump"), f("leak.wasm"), { sort: "--format=table" }));
out.snapshotOption = await caught(() => snapshot(f("leak.2.dump"), f("leak.wasm"), { bogus: 1 }));
out.shortClass = await retainers(f("leak.2.dump"), f("leak.wasm"), { class: "Session", paths: 2 });
process.stdout.write(JSON.stringify(out));
