//! `qip-memory heap analyze|diff` (docs/heap.md, "Command line") on the synthetic cases of
//! docs/heap.md, "Test heaps": the JSON plus a newline on stdout with nothing on stderr, WARPO's
//! defaults, `--sort`/`--top`, the processing order of errors, WARPO's messages alone on stderr,
//! exit status 1.

#[path = "common/heap.rs"]
mod fixtures;

use std::path::PathBuf;
use std::process::{Command, Output};

use fixtures::*;

/// The line for a module with neither DWARF nor AssemblyScript's runtime visitors: WARPO's
/// message, then why the analysis without DWARF cannot run either.
const NO_HEAP_INFO: &str = "Missing .debug_abbrev section in wasm binary, and no AssemblyScript runtime \
     visitors to analyse it without DWARF (~lib/rt/__visit_members, ~lib/rt/itcms/__visit and \
     ~lib/rt/__visit_globals in its name section): build it with asc --debug";

/// A directory of this test's input files (removed and rewritten per test name).
fn dir(name: &str) -> PathBuf {
    let d = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("heap-cli").join(name);
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    std::fs::write(d.join("s1.dump"), s1_dump()).unwrap();
    std::fs::write(d.join("s2.dump"), s2_dump()).unwrap();
    std::fs::write(d.join("syn.wasm"), syn_wasm(false)).unwrap();
    std::fs::write(d.join("syn_g.wasm"), syn_wasm(true)).unwrap();
    d
}

fn run(d: &PathBuf, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_qip-memory"))
        .env("XDG_CACHE_HOME", concat!(env!("CARGO_TARGET_TMPDIR"), "/cache"))
        .current_dir(d)
        .arg("heap")
        .args(args)
        .output()
        .expect("the binary runs")
}

fn ok(d: &PathBuf, args: &[&str]) -> String {
    let o = run(d, args);
    assert!(o.status.success(), "{args:?}: {}", String::from_utf8_lossy(&o.stderr));
    assert!(o.stderr.is_empty());
    String::from_utf8(o.stdout).unwrap()
}

/// Runs a failing command and returns stderr without its final newline; exit status 1 and no
/// stdout.
fn fail(d: &PathBuf, args: &[&str]) -> String {
    let o = run(d, args);
    assert_eq!(o.status.code(), Some(1), "{args:?}");
    assert!(o.stdout.is_empty(), "{args:?}");
    String::from_utf8(o.stderr).unwrap().trim_end_matches('\n').to_string()
}

#[test]
fn s1_s2_s3() {
    let d = dir("s");
    assert_eq!(ok(&d, &["analyze", "s1.dump", "--wasm", "syn.wasm"]), format!("{S1_JSON}\n"));
    assert_eq!(ok(&d, &["analyze", "s2.dump", "--wasm", "syn_g.wasm"]), format!("{S2_JSON}\n"));
    assert_eq!(ok(&d, &["diff", "s1.dump", "s2.dump", "--wasm", "syn_g.wasm"]), format!("{S3_JSON}\n"));
    // Options in another position; explicit defaults.
    assert_eq!(
        ok(&d, &["analyze", "--wasm", "syn.wasm", "--sort", "retained", "s1.dump"]),
        format!("{S1_JSON}\n")
    );
    assert_eq!(
        ok(&d, &["diff", "--sort=delta", "s1.dump", "s2.dump", "--wasm=syn_g.wasm"]),
        format!("{S3_JSON}\n")
    );
}

#[test]
fn top_keeps_rows_not_instances() {
    let d = dir("top");
    let out = ok(&d, &["analyze", "s1.dump", "--wasm", "syn.wasm", "--top", "1"]);
    // S1 without its second row: the first row is cut after its closing brace.
    let first_row_end = S1_JSON.find("\n    },\n    {").unwrap();
    assert_eq!(out, format!("{}\n    }}\n  ]\n}}\n", &S1_JSON[..first_row_end]));
    // parseInt: "1x" is 1; "5" keeps both rows.
    assert_eq!(ok(&d, &["analyze", "s1.dump", "--wasm", "syn.wasm", "--top", "1x"]), out);
    assert_eq!(ok(&d, &["analyze", "s1.dump", "--wasm", "syn.wasm", "--top", "5"]), format!("{S1_JSON}\n"));
    // Count and shallow sorts keep TreeNode first here (2 > 1 and 64 > 32).
    for s in ["count", "shallow"] {
        assert_eq!(
            ok(&d, &["analyze", "s1.dump", "--wasm", "syn.wasm", "--sort", s]),
            format!("{S1_JSON}\n")
        );
    }
    for s in ["alloc", "freed", "count"] {
        assert_eq!(
            ok(&d, &["diff", "s1.dump", "s2.dump", "--wasm", "syn_g.wasm", "--sort", s]),
            format!("{S3_JSON}\n")
        );
    }
}

#[test]
fn option_errors() {
    let d = dir("opts");
    for t in ["0", "-1", "x", "0x10", ""] {
        assert_eq!(
            fail(&d, &["analyze", "s1.dump", "--wasm", "syn.wasm", "--top", t]),
            "--top must be a positive integer",
            "--top {t:?}"
        );
    }
    assert_eq!(
        fail(&d, &["analyze", "s1.dump", "--wasm", "syn.wasm", "--sort", "bogus"]),
        "Invalid constructor sort field: bogus. Must be retained, shallow, or count."
    );
    assert_eq!(
        fail(&d, &["diff", "s1.dump", "s2.dump", "--wasm", "syn_g.wasm", "--sort", "retained"]),
        "Invalid comparison sort field: retained. Must be delta, alloc, freed, or count."
    );
    // --top is checked before any file is read, so before --sort and before input errors.
    assert_eq!(
        fail(&d, &["analyze", "s1.dump", "--wasm", "syn.wasm", "--sort", "bogus", "--top", "0"]),
        "--top must be a positive integer"
    );
    assert_eq!(
        fail(&d, &["analyze", "missing.dump", "--wasm", "missing.wasm", "--top", "x"]),
        "--top must be a positive integer"
    );
    assert_eq!(
        fail(&d, &["diff", "missing.dump", "s2.dump", "--wasm", "syn_g.wasm", "--top", "-3"]),
        "--top must be a positive integer"
    );
    // Usage errors (clap's wording, WARPO's exit status 1).
    assert!(fail(&d, &["analyze", "s1.dump"]).contains("--wasm"));
    assert!(fail(&d, &["diff", "s1.dump", "--wasm", "syn.wasm"]).contains("AFTER"));
    assert!(fail(&d, &["analyze", "s1.dump", "--wasm", "syn.wasm", "--x"]).contains("--x"));
    assert!(!fail(&d, &[]).is_empty());
    // On one line, as commander's (docs/heap.md).
    assert_eq!(
        fail(&d, &["analyze", "s1.dump", "--wasm", "syn.wasm", "--format", "bogus"]),
        "error: invalid value 'bogus' for '--format <FORMAT>' [possible values: json, table]"
    );
    assert_eq!(
        fail(&d, &["retainers", "s1.dump", "--wasm", "syn.wasm"]),
        "error: the following required arguments were not provided: <--address <A>|--class <NAME>>"
    );
}

#[test]
fn a_repeated_option_takes_its_last_value() {
    let d = dir("repeat");
    let one = ok(&d, &["analyze", "s1.dump", "--wasm", "syn.wasm", "--top", "1"]);
    assert_eq!(ok(&d, &["analyze", "s1.dump", "--wasm", "syn.wasm", "--top", "0", "--top", "1"]), one);
    assert_eq!(
        ok(&d, &["analyze", "s1.dump", "--wasm", "missing.wasm", "--wasm", "syn.wasm", "--top", "1"]),
        one
    );
    assert_eq!(
        ok(&d, &["analyze", "s1.dump", "--wasm", "syn.wasm", "--sort", "bogus", "--sort", "retained"]),
        format!("{S1_JSON}\n")
    );
    assert_eq!(
        fail(&d, &["analyze", "s1.dump", "--wasm", "syn.wasm", "--sort", "count", "--sort", "bogus"]),
        "Invalid constructor sort field: bogus. Must be retained, shallow, or count."
    );
    let s3 = ok(&d, &["diff", "s1.dump", "s2.dump", "--wasm", "syn_g.wasm"]);
    assert_eq!(
        ok(&d, &["diff", "s1.dump", "s2.dump", "--wasm", "syn_g.wasm", "--sort", "x", "--sort", "delta"]),
        s3
    );
}

#[test]
fn version_flag_prints_the_version() {
    let d = dir("version");
    for flag in ["-v", "--version"] {
        assert_eq!(ok(&d, &[flag]), concat!(env!("CARGO_PKG_VERSION"), "\n"), "{flag}");
    }
    // No subcommand and no flag: the help on stderr, exit 1.
    assert!(fail(&d, &[]).contains("analyze"));
}

#[test]
fn input_errors_in_warpo_order() {
    let d = dir("inputs");
    std::fs::write(d.join("short.dump"), [0u8; 10]).unwrap();
    let mut f = s1_dump();
    f[0] = 0;
    std::fs::write(d.join("magic.dump"), f).unwrap();
    let mut f = s1_dump();
    f[4] = 99;
    std::fs::write(d.join("version.dump"), f).unwrap();
    let mut f = s1_dump()[..28].to_vec();
    f[20] = 2;
    std::fs::write(d.join("globals.dump"), f).unwrap();
    std::fs::write(d.join("bare.wasm"), WASM_HEADER).unwrap();
    std::fs::write(d.join("bad.wasm"), b"nope").unwrap();

    let a = |dump: &str, wasm: &str| fail(&d, &["analyze", dump, "--wasm", wasm]);
    assert_eq!(a("short.dump", "syn.wasm"), "Dump file too small: expected at least 24 bytes, got 10");
    assert_eq!(a("magic.dump", "syn.wasm"), "Invalid dump magic: expected 0x44485341, got 0x44485300");
    assert_eq!(a("version.dump", "syn.wasm"), "Unsupported dump version: expected 2, got 99");
    assert_eq!(
        a("globals.dump", "syn.wasm"),
        "Dump file too small for 2 mutable i32 global values: expected at least 32 bytes, got 28"
    );
    assert_eq!(a("s1.dump", "bare.wasm"), NO_HEAP_INFO);
    assert_eq!(a("s1.dump", "bad.wasm"), "Failed to parse wasm binary");
    // The dump is parsed before the wasm; input errors win over a bad --sort.
    assert_eq!(a("short.dump", "bad.wasm"), "Dump file too small: expected at least 24 bytes, got 10");
    assert_eq!(fail(&d, &["analyze", "s1.dump", "--wasm", "bare.wasm", "--sort", "bogus"]), NO_HEAP_INFO);
    // Unreadable files (the OS text varies; the prefix is WARPO's).
    assert!(a("missing.dump", "syn.wasm").starts_with("Error reading dump file: "));
    assert!(a("s1.dump", "missing.wasm").starts_with("Error reading wasm file: "));
    let df = |b: &str, c: &str, w: &str| fail(&d, &["diff", b, c, "--wasm", w]);
    assert!(df("missing.dump", "s2.dump", "syn.wasm").starts_with("Error reading baseline dump file: "));
    assert!(df("s1.dump", "missing.dump", "syn.wasm").starts_with("Error reading current dump file: "));
    // diff: before dump, then wasm, then after dump.
    assert_eq!(df("s1.dump", "short.dump", "bare.wasm"), NO_HEAP_INFO);
    assert_eq!(
        df("magic.dump", "short.dump", "bare.wasm"),
        "Invalid dump magic: expected 0x44485341, got 0x44485300"
    );
    assert_eq!(df("s1.dump", "version.dump", "syn.wasm"), "Unsupported dump version: expected 2, got 99");
}

#[test]
fn dominators_json_and_table() {
    let d = dir("dominators");
    // S1: the stack roots TreeNode A (2624), which dominates B (2656); the pinned ArrayBuffer
    // C (2688) is a root of its own; D (2720) is garbage. Every object is 32 bytes.
    let json = ok(&d, &["dominators", "s1.dump", "--wasm", "syn.wasm", "--depth", "2"]);
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    let line = |n: &serde_json::Value| {
        (
            n["className"].as_str().unwrap().to_string(),
            n["count"].as_u64().unwrap(),
            n["retainedSize"].as_u64().unwrap(),
        )
    };
    let roots: Vec<_> = v["roots"].as_array().unwrap().iter().map(line).collect();
    assert_eq!(roots[0], ("x/TreeNode".to_string(), 1, 64), "{json}");
    let table = ok(&d, &["dominators", "s1.dump", "--wasm", "syn.wasm", "--format", "table"]);
    assert!(table.starts_with("total live size "), "{table}");
    assert!(table.lines().nth(1).unwrap().trim_end().ends_with("class @ address"), "{table}");
    assert!(table.contains("x/TreeNode @ 2624"), "{table}");
    assert!(table.contains("  x/TreeNode @ 2656"), "{table}");
    assert!(fail(&d, &["dominators", "s1.dump", "--wasm", "syn.wasm", "--depth", "0"]).contains("--depth"));
}

#[test]
fn retainers_by_address_and_class() {
    let d = dir("retainers");
    // S2: the global x/root holds TreeNode D (2720), whose `left` is A (2624); stack word 1020
    // holds A too; A's `left` is B (2656). So A is held by the stack and by D.
    let json = ok(&d, &["retainers", "s2.dump", "--wasm", "syn_g.wasm", "--address", "0xa40"]);
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["object"]["address"], 2624);
    assert_eq!(v["object"]["distance"], 1);
    assert_eq!(v["retainers"][0]["root"], serde_json::json!({"kind": "stack", "address": 1020}), "{json}");
    assert_eq!(v["retainers"][1]["edge"], serde_json::json!({"kind": "field", "name": "left"}), "{json}");
    assert_eq!(v["retainers"][1]["object"]["address"], 2720);
    assert_eq!(v["retainers"].as_array().unwrap().len(), 2);
    let roots: Vec<&serde_json::Value> = v["paths"].as_array().unwrap().iter().map(|p| &p["root"]).collect();
    assert_eq!(
        roots,
        [
            &serde_json::json!({"kind": "stack", "address": 1020}),
            &serde_json::json!({"kind": "global", "name": "x/root", "globalIndex": 0}),
        ]
    );
    // The same object in decimal; by class, the TreeNode with the largest retained size is A
    // (it dominates B: 64 bytes; D retains only itself, as the stack holds A as well).
    assert_eq!(ok(&d, &["retainers", "s2.dump", "--wasm", "syn_g.wasm", "--address", "2624"]), json);
    let table = ok(
        &d,
        &[
            "retainers",
            "s2.dump",
            "--wasm",
            "syn_g.wasm",
            "--class",
            "x/TreeNode",
            "--format",
            "table",
            "--paths",
            "1",
        ],
    );
    assert_eq!(
        table,
        "\
object x/TreeNode @ 2624
shallow 32 B, retained 64 B, distance 1

retainers: 2
distance  retained  shallow  edge   held by
       0                     root   stack word @ 1020
       1      32 B     32 B  .left  x/TreeNode @ 2720

paths from roots: 1 of 2
1. stack word @ 1020
   x/TreeNode @ 2624
"
    );
    // One-line errors, exit 1.
    let e = fail(&d, &["retainers", "s2.dump", "--wasm", "syn_g.wasm", "--address", "2625"]);
    assert_eq!(
        e,
        "No object at address 2625 (0xa41) in the dump: give an object's payload address, as analyze lists them"
    );
    let e = fail(&d, &["retainers", "s2.dump", "--wasm", "syn_g.wasm", "--class", "x/Nope"]);
    assert_eq!(e, "No live object of class x/Nope in the dump");
    assert!(fail(&d, &["retainers", "s2.dump", "--wasm", "syn_g.wasm"]).contains("--address"));
    assert!(
        fail(&d, &["retainers", "s2.dump", "--wasm", "syn_g.wasm", "--address", "zz"])
            .contains("not an address")
    );
    let both = ["retainers", "s2.dump", "--wasm", "syn_g.wasm", "--address", "1", "--class", "x"];
    assert!(fail(&d, &both).contains("cannot be used with"));
}

#[test]
fn analyze_and_diff_tables() {
    let d = dir("tables");
    // S1 by hand: heap 65536 − 2604 = 62,932 bytes (61.5 KiB); live A, B (TreeNodes, 32 bytes
    // each, A retains both) and the pinned ArrayBuffer C.
    assert_eq!(
        ok(&d, &["analyze", "s1.dump", "--wasm", "syn.wasm", "--format", "table"]),
        "\
heap size 62,932 B (61.5 KiB), live size 96 B
count  shallow  retained  class
    2     64 B      96 B  x/TreeNode
    1     32 B      32 B  ~lib/arraybuffer/ArrayBuffer
"
    );
    // --top and --sort apply as for JSON.
    assert_eq!(
        ok(
            &d,
            &[
                "analyze", "s1.dump", "--wasm", "syn.wasm", "--format", "table", "--sort", "count", "--top",
                "1"
            ]
        ),
        "heap size 62,932 B (61.5 KiB), live size 96 B\ncount  shallow  retained  class\n    2     64 B      96 B  x/TreeNode\n"
    );
    // S3: D is new (32 bytes), nothing was freed.
    assert_eq!(
        ok(&d, &["diff", "s1.dump", "s2.dump", "--wasm", "syn_g.wasm", "--format", "table"]),
        "\
heap size 62,932 B (61.5 KiB) → 62,932 B (61.5 KiB) (0 B), live size 96 B → 128 B (+32 B)
count Δ  new  deleted  allocated  freed  size Δ  class
     +1    1        0       32 B    0 B   +32 B  x/TreeNode
"
    );
    // JSON stays the default and WARPO's.
    assert_eq!(
        ok(&d, &["analyze", "s1.dump", "--wasm", "syn.wasm", "--format", "json"]),
        format!("{S1_JSON}\n")
    );
}

#[test]
fn snapshot_writes_a_whole_file_or_none() {
    let d = dir("snapshot");
    let o = run(&d, &["snapshot", "s2.dump", "--wasm", "syn_g.wasm", "-o", "s2.heapsnapshot"]);
    assert!(o.status.success());
    let text = std::fs::read_to_string(d.join("s2.heapsnapshot")).unwrap();
    // The line goes to stderr: stdout is free for `-o /dev/stdout`.
    assert!(o.stdout.is_empty());
    assert_eq!(
        String::from_utf8(o.stderr).unwrap(),
        format!("wrote s2.heapsnapshot ({} bytes)\n", text.len())
    );
    let o = run(&d, &["snapshot", "s2.dump", "--wasm", "syn_g.wasm", "-o", "/dev/stdout"]);
    assert!(o.status.success());
    assert_eq!(String::from_utf8(o.stdout).unwrap(), text);
    // S2 by hand: the root and the live A, B, C, D; root edges: the global x/root, stack word
    // 1020, the pinned C; edges A.left → B, D.left → A.
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(v["snapshot"]["node_count"], 5);
    assert_eq!(v["snapshot"]["edge_count"], 5);
    let ids: Vec<u64> = v["nodes"].as_array().unwrap().chunks(7).map(|n| n[2].as_u64().unwrap()).collect();
    assert_eq!(ids, [1, 2625, 2657, 2689, 2721]);
    // A bad dump: WARPO's message, exit 1, no file and no temporary file left.
    std::fs::write(d.join("bad.dump"), b"nope").unwrap();
    let e = fail(&d, &["snapshot", "bad.dump", "--wasm", "syn_g.wasm", "-o", "bad.heapsnapshot"]);
    assert_eq!(e, "Dump file too small: expected at least 24 bytes, got 4");
    // An output in a directory that does not exist: one line naming it.
    let e = fail(&d, &["snapshot", "s2.dump", "--wasm", "syn_g.wasm", "-o", "no/such/dir/x.heapsnapshot"]);
    assert!(e.starts_with("cannot write no/such/dir/x.heapsnapshot: "), "{e}");
    // An output that is an input: refused, the input unchanged.
    let before = std::fs::read(d.join("s2.dump")).unwrap();
    let e = fail(&d, &["snapshot", "s2.dump", "--wasm", "syn_g.wasm", "-o", "./s2.dump"]);
    assert_eq!(e, "Refusing to write the snapshot over the input s2.dump");
    assert_eq!(std::fs::read(d.join("s2.dump")).unwrap(), before);
    // A symbolic link is written through, not replaced (README, "Output").
    #[cfg(unix)]
    {
        std::fs::write(d.join("target.heapsnapshot"), b"old").unwrap();
        std::os::unix::fs::symlink("target.heapsnapshot", d.join("link.heapsnapshot")).unwrap();
        let o = run(&d, &["snapshot", "s2.dump", "--wasm", "syn_g.wasm", "-o", "link.heapsnapshot"]);
        assert!(o.status.success() && o.stdout.is_empty());
        assert!(std::fs::symlink_metadata(d.join("link.heapsnapshot")).unwrap().file_type().is_symlink());
        assert_eq!(std::fs::read_to_string(d.join("target.heapsnapshot")).unwrap(), text);
    }
    let left: Vec<String> = std::fs::read_dir(&d)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.contains("bad") && n.contains("heapsnapshot") || n.ends_with("-tmp"))
        .collect();
    assert!(left.is_empty(), "{left:?}");
}
