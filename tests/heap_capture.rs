//! `qip-memory heap capture`: AssemblyScript programs run in our interpreter write the same
//! dumps as Node runs them, and the host functions behave as documented (docs/heap.md,
//! "Capture").
//!
//! The oracle for real programs is tests/assemblyscript/run.mjs: `make as-fixtures` runs each
//! fixture under Node (V8) and writes `build/P.N.dump`; capturing the same module here must
//! give the same files byte for byte. Small WAT programs check each host function with
//! expected bytes written by hand.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn dir(name: &str) -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR")).join("heap-capture").join(name);
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn run(d: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_qip-memory"))
        .current_dir(d)
        .arg("heap")
        .arg("capture")
        .args(args)
        .output()
        .expect("the binary runs")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

#[test]
fn fixtures_give_the_dumps_node_gives() {
    let build = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/assemblyscript/build");
    for (program, dumps) in [("dwarf_fixture", 1), ("alloc_free", 2)] {
        let wasm = build.join(format!("{program}.wasm"));
        assert!(wasm.exists(), "{}: run `make as-fixtures`", wasm.display());
        let d = dir(program);
        std::fs::copy(&wasm, d.join(format!("{program}.wasm"))).unwrap();
        let o = run(&d, &[&format!("{program}.wasm"), "--invoke", "main"]);
        assert!(o.status.success(), "{program}: {}", text(&o.stderr));
        let lines: Vec<String> = text(&o.stdout).lines().map(String::from).collect();
        assert_eq!(lines.len(), dumps + 1, "{program}: one line per dump and the summary: {lines:?}");
        for n in 1..=dumps {
            let ours = std::fs::read(d.join(format!("{program}.{n}.dump"))).unwrap();
            let node = std::fs::read(build.join(format!("{program}.{n}.dump"))).unwrap();
            assert_eq!(ours.len(), node.len(), "{program}.{n}.dump: length");
            assert!(ours == node, "{program}.{n}.dump differs from Node's");
        }
    }
}

/// A program with WARPO's two-argument import: it dumps at the path "out/a.dump" (the
/// directory must exist), then at a path given by `bad` if nonzero.
const WARPO_FORM: &str = r#"(module
  (import "MemoryDump" "dumpMemoryRegion" (func $dump (param i32 i32)))
  (memory (export "memory") 1)
  (global (export "__data_end") i32 (i32.const 100))
  (global (export "__heap_base") i32 (i32.const 1024))
  (global (export "__stack_pointer") (mut i32) (i32.const 1000))
  (global $counter (mut i32) (i32.const 7))
  (global $wide (mut i64) (i64.const 9))
  (data (i32.const 16) "out/a.dump")
  (data (i32.const 32) "../escape.dump")
  (data (i32.const 2000) "\de\ad\be\ef")
  (func (export "main") (param $bad i32)
    (global.set $counter (i32.const 42))
    (call $dump (i32.const 16) (i32.const 10))
    (if (local.get $bad) (then (call $dump (i32.const 32) (i32.const 14))))))"#;

#[test]
fn warpo_form_writes_at_the_guest_path() {
    let d = dir("warpo");
    std::fs::write(d.join("p.wat"), WARPO_FORM).unwrap();
    std::fs::write(d.join("p.wasm"), wat::parse_str(WARPO_FORM).unwrap()).unwrap();
    std::fs::create_dir_all(d.join("dumps/out")).unwrap();
    let o = run(&d, &["p.wasm", "--arg", "i32:0", "--dump-dir", "dumps"]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert_eq!(
        text(&o.stdout),
        "dumps/out/a.dump: \"out/a.dump\", dataEnd 100, heapBase 1024, stackPointer 1000, 2 mutable i32 globals, \
         65536 bytes of memory\n1 dump taken\n"
    );
    // By hand: "ASHD", version 2, dataEnd 100, heapBase 1024, stackPointer 1000, N = 2, the
    // mutable i32 globals in index order (__stack_pointer 1000, counter 42; the i64 is not
    // one), then the 64 KiB memory.
    let dump = std::fs::read(d.join("dumps/out/a.dump")).unwrap();
    let mut expected = Vec::new();
    for w in [0x4448_5341u32, 2, 100, 1024, 1000, 2, 1000, 42] {
        expected.extend_from_slice(&w.to_le_bytes());
    }
    let mut memory = vec![0u8; 65536];
    memory[16..26].copy_from_slice(b"out/a.dump");
    memory[32..46].copy_from_slice(b"../escape.dump");
    memory[2000..2004].copy_from_slice(&[0xde, 0xad, 0xbe, 0xef]);
    expected.extend_from_slice(&memory);
    assert!(dump == expected, "the dump's bytes");

    // `..` is refused with one line; the dump taken before stays and was reported.
    let o = run(&d, &["p.wasm", "--arg", "i32:1", "--dump-dir", "dumps"]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(
        text(&o.stderr),
        "qip-memory: p.wasm: the guest asked for a dump at \"../escape.dump\": `..` may not leave the dump directory\n"
    );
    assert!(text(&o.stdout).starts_with("dumps/out/a.dump: "), "{}", text(&o.stdout));
    assert!(!d.join("escape.dump").exists());

    // Nor may a symbolic link inside the dump directory lead out of it.
    #[cfg(unix)]
    {
        std::fs::create_dir_all(d.join("linked")).unwrap();
        std::fs::create_dir_all(d.join("elsewhere")).unwrap();
        std::os::unix::fs::symlink("../elsewhere", d.join("linked/out")).unwrap();
        let o = run(&d, &["p.wasm", "--arg", "i32:0", "--dump-dir", "linked"]);
        assert_eq!(o.status.code(), Some(1));
        assert_eq!(
            text(&o.stderr),
            "qip-memory: p.wasm: the guest asked for a dump at \"out/a.dump\": a symbolic link leads out of the dump directory\n"
        );
        assert!(!d.join("elsewhere/a.dump").exists());
    }
}

/// An AssemblyScript-shaped program: strings are UTF-16 with their byte length in the u32
/// before them. `main` traces, reads the seed, then aborts with "boom" at "x.ts":3:7.
const ABORTS: &str = r#"(module
  (import "env" "abort" (func $abort (param i32 i32 i32 i32)))
  (import "env" "trace" (func $trace (param i32 i32 f64 f64 f64 f64 f64)))
  (import "env" "seed" (func $seed (result f64)))
  (memory 1)
  (data (i32.const 12) "\08\00\00\00b\00o\00o\00m\00")
  (data (i32.const 28) "\08\00\00\00x\00.\00t\00s\00")
  (data (i32.const 44) "\04\00\00\00h\00i\00")
  (func (export "main")
    (call $trace (i32.const 48) (i32.const 2) (f64.const 1.5) (call $seed) (f64.const 0) (f64.const 0) (f64.const 0))
    (call $abort (i32.const 16) (i32.const 32) (i32.const 3) (i32.const 7))))"#;

#[test]
fn abort_trace_and_seed() {
    let d = dir("abort");
    std::fs::write(d.join("a.wasm"), wat::parse_str(ABORTS).unwrap()).unwrap();
    let o = run(&d, &["a.wasm"]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(text(&o.stderr), "trace: hi 1.5, 12345\nqip-memory: a.wasm: abort: boom at x.ts:3:7\n");
    assert!(o.stdout.is_empty());
}

#[test]
fn dump_at_exit_and_refusals() {
    let d = dir("exit");
    // No dump calls: --dump-at-exit writes one after main returns, named PROGRAM.1.dump.
    let prog = r#"(module
      (memory 1)
      (global (export "__data_end") i32 (i32.const 8))
      (global (export "__heap_base") i32 (i32.const 64))
      (global (export "__stack_pointer") (mut i32) (i32.const 60))
      (func (export "_start") (i32.store (i32.const 100) (i32.const 5))))"#;
    std::fs::write(d.join("e.wasm"), wat::parse_str(prog).unwrap()).unwrap();
    let o = run(&d, &["e.wasm", "--dump-at-exit"]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let dump = std::fs::read(d.join("e.1.dump")).unwrap();
    assert_eq!(dump.len(), 28 + 65536);
    assert_eq!(
        &dump[..28],
        &[0x41, 0x53, 0x48, 0x44, 2, 0, 0, 0, 8, 0, 0, 0, 64, 0, 0, 0, 60, 0, 0, 0, 1, 0, 0, 0, 60, 0, 0, 0]
    );
    assert_eq!(dump[28 + 100], 5);
    // Without it, a run that took no dump is an error.
    let o = run(&d, &["e.wasm"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(text(&o.stderr).contains("the program took no dump"), "{}", text(&o.stderr));
    // Imports capture does not provide are named before anything runs.
    let other = r#"(module (import "wasi_snapshot_preview1" "fd_write" (func (param i32 i32 i32 i32) (result i32))) (func (export "main")))"#;
    std::fs::write(d.join("o.wasm"), wat::parse_str(other).unwrap()).unwrap();
    let o = run(&d, &["o.wasm"]);
    assert_eq!(
        text(&o.stderr),
        "qip-memory: o.wasm: import wasi_snapshot_preview1.fd_write: not provided (env.abort, env.trace, env.seed and \
         MemoryDump.dumpMemoryRegion are)\n"
    );
    // A missing entry, a dump directory that is not one.
    let o = run(&d, &["e.wasm", "--invoke", "nope"]);
    assert_eq!(text(&o.stderr), "qip-memory: e.wasm: no function to run: no exported function \"nope\"\n");
    let o = run(&d, &["e.wasm", "--dump-dir", "e.wasm"]);
    assert_eq!(text(&o.stderr), "qip-memory: --dump-dir e.wasm: not a directory\n");
}

/// A trap or an exhausted budget names the function it stopped in, by the `name` section, else
/// by its export.
#[test]
fn stops_name_the_function() {
    let d = dir("stops");
    let spin = r#"(module (memory 1)
      (func $spin (export "main") (loop $l (br $l)))
      (func $boom (export "boom") unreachable))"#;
    std::fs::write(d.join("s.wasm"), wat::parse_str(spin).unwrap()).unwrap();
    // Module offsets by hand (xxd): the code section at 0x29; `spin`'s body at 0x2c, its
    // `loop` at 0x2e and `br` at 0x30, which runs again after `loop` and two `br`s;
    // `boom`'s body at 0x34, its `unreachable` at 0x36.
    let o = run(&d, &["s.wasm", "--instruction-budget", "3", "--dump-dir", "."]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(
        text(&o.stderr),
        "qip-memory: s.wasm: instruction budget exhausted (next instruction at offset 0x30) in `spin`\n"
    );
    let o = run(&d, &["s.wasm", "--invoke", "boom", "--dump-dir", "."]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(text(&o.stderr), "qip-memory: s.wasm: trap: unreachable (at offset 0x36) in `boom`\n");
    // Without a `name`-section entry the export names the function, as `count` and the Content
    // tools name it: the same module without the `$` names, so the same offsets.
    let bare = spin.replace("$spin ", "").replace("$boom ", "");
    assert!(!bare.contains("$spin") && !bare.contains("$boom"), "{bare}");
    std::fs::write(d.join("bare.wasm"), wat::parse_str(&bare).unwrap()).unwrap();
    let o = run(&d, &["bare.wasm", "--invoke", "boom", "--dump-dir", "."]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(text(&o.stderr), "qip-memory: bare.wasm: trap: unreachable (at offset 0x36) in `boom`\n");
}
