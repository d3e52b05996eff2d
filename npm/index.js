// qip-memory for JavaScript: the AssemblyScript heap analyzer (WARPO's views, retainers,
// dominators, DevTools snapshots) and heap capture in the caller's own host (docs/npm.md).
export { analyze, diff, dominators, retainers, snapshot, QipMemoryError } from "./lib/api.js";
export { memoryDumpImports, prepareForCapture, writeDump, RESERVED_PREFIX } from "./lib/capture.js";
export { run } from "./lib/cli.js";
