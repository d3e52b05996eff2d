// Calls qip:memory/analyzers of application/wasm/qip-memory.component.wasm as transpiled by
// jco into ./generated (make jco-check), for tests/wasi_components.rs:
//
//   node call.mjs page-table TARGET INPUT BUDGET OUT
//   node call.mjs heat-map TARGET INPUT BUDGET NORMALIZE(0|1) FIRST_PAGE OUT
//
// Writes the CSV or KTX2 bytes to OUT and exits 0; on a rejection prints one line
// `OFFSET MODE MESSAGE` (the fields of the rejection record) and exits 3.
import { readFileSync, writeFileSync } from 'node:fs';
import { analyzers } from './generated/qip-memory.component.js';

const [fn, targetPath, input, budget, ...rest] = process.argv.slice(2);
const target = readFileSync(targetPath);
const bytes = new TextEncoder().encode(input);
try {
  if (fn === 'page-table') {
    const csv = analyzers.pageTable(target, bytes, [], { instructionBudget: Number(budget) });
    writeFileSync(rest[0], csv);
  } else if (fn === 'heat-map') {
    const [normalize, firstPage, out] = rest;
    const options = { instructionBudget: Number(budget), normalize: normalize === '1', firstPage: Number(firstPage) };
    writeFileSync(out, analyzers.heatMap(target, bytes, [], options));
  } else {
    throw new Error(`unknown function ${fn}`);
  }
} catch (e) {
  if (e.payload === undefined) throw e;
  const { offset, mode, message } = e.payload;
  console.log(`${offset} ${mode} ${message}`);
  process.exit(3);
}
