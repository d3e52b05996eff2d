// Runs the qip-memory command-line tool, built as a WASI preview 1 command
// (`qip-memory.wasm`, Rust target wasm32-wasip1), under Node's own `node:wasi`: no native code
// and no dependencies. The command sees the host's file system from `/` and starts in the
// caller's working directory (the tool enters the directory `PWD` names), so that relative
// paths, `..` included, resolve as they do for the native binary.

import { readFile } from "node:fs/promises";
import { resolve } from "node:path";
import { setFlagsFromString } from "node:v8";

// Node 20's `node:wasi` reaches its host functions through V8's fast API calls, and a host call
// made after the command's memory grew large (the interpreter reserves a target's whole memory
// limit, 192 MiB, up front) crashes Node now and then with SIGSEGV: measured on Node 20.20,
// `count` of a module with one page of memory died in 15 of 30 runs, and 0 of 30 with the fast
// calls off. Set before anything is compiled, so it holds for every call.
setFlagsFromString("--no-turbo-fast-api-calls");

let compiled = null;
let WASI = null;

/** The compiled command, compiled once per process. */
export function command() {
  compiled ??= readFile(new URL("../qip-memory.wasm", import.meta.url)).then((bytes) => WebAssembly.compile(bytes));
  return compiled;
}

/** `node:wasi`'s `WASI` class, without the one-time "experimental" warning it prints on stderr
 * (the native tool prints no such line, and the outputs must be the same). */
async function wasiClass() {
  if (WASI === null) {
    const emit = process.emitWarning;
    process.emitWarning = function (warning, ...rest) {
      const type = typeof rest[0] === "string" ? rest[0] : rest[0]?.type;
      if (type === "ExperimentalWarning" && String(warning?.message ?? warning).startsWith("WASI")) return;
      return emit.call(process, warning, ...rest);
    };
    try {
      ({ WASI } = await import("node:wasi"));
    } finally {
      process.emitWarning = emit;
    }
  }
  return WASI;
}

/**
 * Runs the command once with `argv0` as its program name (`qip-memory`, or
 * `as-heap-analyzer` for WARPO's messages) and `args` after it. `options.cwd`: the working
 * directory (default: Node's); `options.stdin`, `stdout`, `stderr`: file descriptors (default:
 * Node's own 0, 1, 2). Resolves to the exit status.
 */
export async function run(argv0, args, options = {}) {
  const [Wasi, module] = await Promise.all([wasiClass(), command()]);
  const wasi = new Wasi({
    version: "preview1",
    args: [argv0, ...args],
    env: { PWD: resolve(options.cwd ?? process.cwd()) },
    preopens: { "/": "/" },
    stdin: options.stdin ?? 0,
    stdout: options.stdout ?? 1,
    stderr: options.stderr ?? 2,
    returnOnExit: true,
  });
  const instance = await WebAssembly.instantiate(module, wasi.getImportObject());
  return wasi.start(instance);
}

/** A `bin` entry: runs the command on the process's arguments; its status becomes Node's. */
export async function main(argv0) {
  try {
    process.exitCode = await run(argv0, process.argv.slice(2));
  } catch (e) {
    process.stderr.write(`${argv0}: ${e?.message ?? e}\n`);
    process.exitCode = 1;
  }
}
