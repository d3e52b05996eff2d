// The heap analyzer as functions: each call runs the same command the `qip-memory heap` CLI
// runs (lib/cli.js) on the caller's bytes, written to a fresh temporary directory under the
// names `dump`, `before`, `after` and `module.wasm`, and returns what it printed.

import { closeSync, openSync } from "node:fs";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";

import { run } from "./cli.js";

/** The error of a command that failed: `message` is its one line (`qip-memory: …`), `exitCode`
 * its status. */
export class QipMemoryError extends Error {
  constructor(message, exitCode) {
    super(message);
    this.name = "QipMemoryError";
    this.exitCode = exitCode;
  }
}

function bytesOf(value, what) {
  if (value instanceof Uint8Array) return value;
  if (value instanceof ArrayBuffer) return new Uint8Array(value);
  if (ArrayBuffer.isView(value)) return new Uint8Array(value.buffer, value.byteOffset, value.byteLength);
  throw new TypeError(`${what} must be a Uint8Array, an ArrayBuffer or a typed array view`);
}

/** The command line flags for `options`: `{ top: 3, sort: "shallow" }` → `--top 3 --sort shallow`,
 * in the given order; `undefined` values are left out. */
function flags(options, names) {
  for (const key of Object.keys(options ?? {})) {
    if (!names.some(([k]) => k === key)) {
      const known = names.length ? `expected ${names.map(([k]) => k).join(", ")}` : "this function takes none";
      throw new TypeError(`unknown option ${key}: ${known}`);
    }
  }
  const out = [];
  for (const [key, flag] of names) {
    const value = options?.[key];
    // One argument `--flag=value`: a value that starts with `-` stays a value.
    if (value !== undefined && value !== null) out.push(`--${flag}=${String(value)}`);
  }
  return out;
}

/** Runs `heap …args` over `files` ({ name: bytes }); resolves to its stdout, and to the file
 * `output` it wrote when one is named. */
async function heap(files, args, output) {
  const dir = await mkdtemp(join(tmpdir(), "qip-memory-"));
  try {
    for (const [name, bytes] of Object.entries(files)) await writeFile(join(dir, name), bytes);
    const stdout = openSync(join(dir, ".stdout"), "w");
    const stderr = openSync(join(dir, ".stderr"), "w");
    let status;
    try {
      status = await run("qip-memory", ["heap", ...args], { cwd: dir, stdout, stderr });
    } finally {
      closeSync(stdout);
      closeSync(stderr);
    }
    if (status !== 0) {
      const lines = (await readFile(join(dir, ".stderr"), "utf8")).split("\n").filter((l) => l !== "");
      throw new QipMemoryError(lines.at(-1) ?? `qip-memory: exit status ${status}`, status);
    }
    return output === undefined ? readFile(join(dir, ".stdout"), "utf8") : readFile(join(dir, output), "utf8");
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

const parsed = (format, text) => (format === undefined || format === null || format === "json" ? JSON.parse(text) : text);

/** WARPO's constructor view of one dump: `{ totalHeapSize, totalLiveSize, constructors }`
 * (`format: "table"`: the table as text). Options: `sort` (`retained`, `shallow`, `count`),
 * `top`, `format`. */
export async function analyze(dump, wasm, options) {
  options ??= {};
  const files = { dump: bytesOf(dump, "dump"), "module.wasm": bytesOf(wasm, "wasm") };
  const args = ["analyze", "dump", "--wasm", "module.wasm", ...flags(options, [["sort", "sort"], ["top", "top"], ["format", "format"]])];
  return parsed(options.format, await heap(files, args));
}

/** WARPO's comparison view of two dumps of one module. Options: `sort` (`delta`, `alloc`,
 * `freed`, `count`), `top`, `format`. */
export async function diff(before, after, wasm, options) {
  options ??= {};
  const files = {
    before: bytesOf(before, "before"),
    after: bytesOf(after, "after"),
    "module.wasm": bytesOf(wasm, "wasm"),
  };
  const args = ["diff", "before", "after", "--wasm", "module.wasm", ...flags(options, [["sort", "sort"], ["top", "top"], ["format", "format"]])];
  return parsed(options.format, await heap(files, args));
}

/** Why one object is alive: its retainers and the shortest paths to it from roots. Options:
 * `address` (the payload address) or `class` (a class name; the module path may be left out
 * when the name is unique), `paths`, `format`. */
export async function retainers(dump, wasm, options) {
  options ??= {};
  const files = { dump: bytesOf(dump, "dump"), "module.wasm": bytesOf(wasm, "wasm") };
  const args = [
    "retainers",
    "dump",
    "--wasm",
    "module.wasm",
    ...flags(options, [["address", "address"], ["class", "class"], ["paths", "paths"], ["format", "format"]]),
  ];
  return parsed(options.format, await heap(files, args));
}

/** The dominator tree from the virtual root. Options: `depth`, `top`, `format`. */
export async function dominators(dump, wasm, options) {
  options ??= {};
  const files = { dump: bytesOf(dump, "dump"), "module.wasm": bytesOf(wasm, "wasm") };
  const args = ["dominators", "dump", "--wasm", "module.wasm", ...flags(options, [["depth", "depth"], ["top", "top"], ["format", "format"]])];
  return parsed(options.format, await heap(files, args));
}

/** A Chrome DevTools heap snapshot of the dump, as the text of a `.heapsnapshot` file. */
export async function snapshot(dump, wasm, options) {
  flags(options, []);
  const files = { dump: bytesOf(dump, "dump"), "module.wasm": bytesOf(wasm, "wasm") };
  return heap(files, ["snapshot", "dump", "--wasm", "module.wasm", "-o", "snapshot.heapsnapshot"], "snapshot.heapsnapshot");
}
