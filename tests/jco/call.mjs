// Calls qip:memory/analyzers and qip:memory/heap of application/wasm/qip-memory.component.wasm
// as transpiled by jco into ./generated (make jco-check), for tests/wasi_components.rs:
//
//   node call.mjs page-table TARGET INPUT BUDGET OUT
//   node call.mjs heat-map TARGET INPUT BUDGET NORMALIZE(0|1) FIRST_PAGE OUT
//   node call.mjs heap-analyze WASM DUMP SORT TOP OUT        (TOP: a number, or - for none)
//   node call.mjs heap-diff WASM BEFORE AFTER SORT TOP OUT
//
// Writes the CSV, KTX2 or JSON bytes to OUT and exits 0; on a rejection prints one line
// `OFFSET MODE MESSAGE` (the fields of the rejection record) and exits 3.
import { readFileSync, writeFileSync } from 'node:fs';
import { analyzers, heap } from './generated/qip-memory.component.js';

const [fn, ...args] = process.argv.slice(2);
const top = (t) => (t === '-' ? undefined : Number(t));
try {
  if (fn === 'page-table') {
    const [target, input, budget, out] = args;
    const csv = analyzers.pageTable(readFileSync(target), new TextEncoder().encode(input), [], {
      instructionBudget: Number(budget),
    });
    writeFileSync(out, csv);
  } else if (fn === 'heat-map') {
    const [target, input, budget, normalize, firstPage, out] = args;
    const options = { instructionBudget: Number(budget), normalize: normalize === '1', firstPage: Number(firstPage) };
    writeFileSync(out, analyzers.heatMap(readFileSync(target), new TextEncoder().encode(input), [], options));
  } else if (fn === 'heap-analyze') {
    const [wasm, dump, sort, t, out] = args;
    writeFileSync(out, heap.heapAnalyze(readFileSync(wasm), readFileSync(dump), { sort, top: top(t) }));
  } else if (fn === 'heap-diff') {
    const [wasm, before, after, sort, t, out] = args;
    const json = heap.heapDiff(readFileSync(wasm), readFileSync(before), readFileSync(after), { sort, top: top(t) });
    writeFileSync(out, json);
  } else {
    throw new Error(`unknown function ${fn}`);
  }
} catch (e) {
  if (e.payload === undefined) throw e;
  const { offset, mode, message } = e.payload;
  console.log(`${offset} ${mode} ${message}`);
  process.exit(3);
}
