//! `qip-memory heap analyze|diff` (docs/heap.md, "Command line") on the synthetic cases of
//! docs/heap.md, "Test heaps": the JSON plus a newline on stdout with nothing on stderr, WARPO's
//! defaults, `--sort`/`--top`, the processing order of errors, exit status 1 with one line on
//! stderr: `qip-memory: ` and the file the error is about before WARPO's message, or WARPO's
//! message alone when the binary is started as `as-heap-analyzer`. Dumps cut short or of
//! another module are refused; `--class` takes names without their module paths.

#[path = "common/heap.rs"]
mod fixtures;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use fixtures::*;
use qip_memory::heap::dump::write_dump;

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

/// The binary under the file name `name` (a symbolic link to it, as npm's `node_modules/.bin`
/// holds one for a package's bin; a copy where there are no links).
fn renamed(name: &str) -> PathBuf {
    let bin = Path::new(env!("CARGO_TARGET_TMPDIR")).join("heap-cli-bin");
    std::fs::create_dir_all(&bin).unwrap();
    let path = bin.join(name);
    if std::fs::symlink_metadata(&path).is_err() {
        #[cfg(unix)]
        let made = std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_qip-memory"), &path);
        #[cfg(not(unix))]
        let made = std::fs::copy(env!("CARGO_BIN_EXE_qip-memory"), &path).map(drop);
        // Another test may have made it meanwhile.
        if let Err(e) = made {
            assert_eq!(e.kind(), std::io::ErrorKind::AlreadyExists, "{e}");
        }
    }
    path
}

/// `as-heap-analyzer ARGS`: the binary started under WARPO's name.
fn run_as(d: &PathBuf, args: &[&str]) -> Output {
    Command::new(renamed("as-heap-analyzer"))
        .env("XDG_CACHE_HOME", concat!(env!("CARGO_TARGET_TMPDIR"), "/cache"))
        .current_dir(d)
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

/// Stderr of a failed run without its final newline: exit status 1, no stdout, one line.
fn failed(o: Output, args: &[&str]) -> String {
    assert_eq!(o.status.code(), Some(1), "{args:?}: {}", String::from_utf8_lossy(&o.stderr));
    assert!(o.stdout.is_empty(), "{args:?}");
    let line = String::from_utf8(o.stderr).unwrap().strip_suffix('\n').expect("a line").to_string();
    assert!(!line.contains('\n'), "{args:?}: {line}");
    line
}

/// Runs a failing `qip-memory heap` command and returns its line.
fn fail(d: &PathBuf, args: &[&str]) -> String {
    failed(run(d, args), args)
}

/// Runs a failing `as-heap-analyzer` command and returns its line.
fn fail_as(d: &PathBuf, args: &[&str]) -> String {
    failed(run_as(d, args), args)
}

/// A failure with WARPO's message `warpo`: alone from `as-heap-analyzer`, and from `qip-memory
/// heap` after `qip-memory: ` and the input file it is about, if any.
fn warpo_error(d: &PathBuf, args: &[&str], file: Option<&str>, warpo: &str) {
    assert_eq!(fail_as(d, args), warpo, "as-heap-analyzer {args:?}");
    let named = file.map(|f| format!("{f}: ")).unwrap_or_default();
    assert_eq!(fail(d, args), format!("qip-memory: {named}{warpo}"), "qip-memory heap {args:?}");
}

/// A failure with a message of our own, `ours`: the same from both, after `qip-memory: ` from
/// `qip-memory heap`.
fn our_error(d: &PathBuf, args: &[&str], ours: &str) {
    assert_eq!(fail_as(d, args), ours, "as-heap-analyzer {args:?}");
    assert_eq!(fail(d, args), format!("qip-memory: {ours}"), "qip-memory heap {args:?}");
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
    let top = "--top must be a positive integer";
    for t in ["0", "-1", "x", "0x10", ""] {
        warpo_error(&d, &["analyze", "s1.dump", "--wasm", "syn.wasm", "--top", t], None, top);
    }
    warpo_error(
        &d,
        &["analyze", "s1.dump", "--wasm", "syn.wasm", "--sort", "bogus"],
        None,
        "Invalid constructor sort field: bogus. Must be retained, shallow, or count.",
    );
    warpo_error(
        &d,
        &["diff", "s1.dump", "s2.dump", "--wasm", "syn_g.wasm", "--sort", "retained"],
        None,
        "Invalid comparison sort field: retained. Must be delta, alloc, freed, or count.",
    );
    // --top is checked before any file is read, so before --sort and before input errors.
    warpo_error(
        &d,
        &["analyze", "s1.dump", "--wasm", "syn.wasm", "--sort", "bogus", "--top", "0"],
        None,
        top,
    );
    warpo_error(&d, &["analyze", "missing.dump", "--wasm", "missing.wasm", "--top", "x"], None, top);
    warpo_error(&d, &["diff", "missing.dump", "s2.dump", "--wasm", "syn_g.wasm", "--top", "-3"], None, top);
    // Usage errors (clap's wording, WARPO's exit status 1).
    assert!(fail(&d, &["analyze", "s1.dump"]).contains("--wasm"));
    assert!(fail(&d, &["diff", "s1.dump", "--wasm", "syn.wasm"]).contains("AFTER"));
    assert!(fail(&d, &["analyze", "s1.dump", "--wasm", "syn.wasm", "--x"]).contains("--x"));
    // On one line, as commander's (docs/heap.md): `error: ` as commander's begin under WARPO's
    // name, `qip-memory: ` in its place otherwise.
    let args = ["analyze", "s1.dump", "--wasm", "syn.wasm", "--format", "bogus"];
    let message = "invalid value 'bogus' for '--format <FORMAT>' [possible values: json, table]";
    assert_eq!(fail(&d, &args), format!("qip-memory: {message}"));
    assert_eq!(fail_as(&d, &args), format!("error: {message}"));
    let args = ["retainers", "s1.dump", "--wasm", "syn.wasm"];
    let message = "the following required arguments were not provided: <--address <A>|--class <NAME>>";
    assert_eq!(fail(&d, &args), format!("qip-memory: {message}"));
    assert_eq!(fail_as(&d, &args), format!("error: {message}"));
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
        "qip-memory: Invalid constructor sort field: bogus. Must be retained, shallow, or count."
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
        let o = run_as(&d, &[flag]);
        assert!(o.status.success() && o.stderr.is_empty(), "{flag}");
        assert_eq!(String::from_utf8(o.stdout).unwrap(), concat!(env!("CARGO_PKG_VERSION"), "\n"));
    }
    // No subcommand and no flag: the help on stderr, exit 1; its usage line names the program
    // as it was started.
    for (o, usage) in [
        (run(&d, &[]), "Usage: qip-memory heap [COMMAND]"),
        (run_as(&d, &[]), "Usage: as-heap-analyzer [COMMAND]"),
    ] {
        assert_eq!(o.status.code(), Some(1));
        assert!(o.stdout.is_empty());
        let help = String::from_utf8(o.stderr).unwrap();
        assert!(help.contains(usage) && help.contains("analyze"), "{help}");
    }
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

    let a = |dump: &str, wasm: &str, file: &str, message: &str| {
        warpo_error(&d, &["analyze", dump, "--wasm", wasm], Some(file), message)
    };
    let too_small = "Dump file too small: expected at least 24 bytes, got 10";
    let magic = "Invalid dump magic: expected 0x44485341, got 0x44485300";
    let version = "Unsupported dump version: expected 2, got 99";
    a("short.dump", "syn.wasm", "short.dump", too_small);
    a("magic.dump", "syn.wasm", "magic.dump", magic);
    a("version.dump", "syn.wasm", "version.dump", version);
    a(
        "globals.dump",
        "syn.wasm",
        "globals.dump",
        "Dump file too small for 2 mutable i32 global values: expected at least 32 bytes, got 28",
    );
    a("s1.dump", "bare.wasm", "bare.wasm", NO_HEAP_INFO);
    a("s1.dump", "bad.wasm", "bad.wasm", "Failed to parse wasm binary");
    // The dump is parsed before the wasm; input errors win over a bad --sort.
    a("short.dump", "bad.wasm", "short.dump", too_small);
    warpo_error(
        &d,
        &["analyze", "s1.dump", "--wasm", "bare.wasm", "--sort", "bogus"],
        Some("bare.wasm"),
        NO_HEAP_INFO,
    );
    // Unreadable files (the OS text varies; the prefix is WARPO's and names the file).
    let read_error = |args: &[&str], warpo: &str| {
        assert!(fail_as(&d, args).starts_with(warpo), "{args:?}");
        assert!(fail(&d, args).starts_with(&format!("qip-memory: {warpo}")), "{args:?}");
    };
    read_error(&["analyze", "missing.dump", "--wasm", "syn.wasm"], "Error reading dump file: missing.dump: ");
    read_error(&["analyze", "s1.dump", "--wasm", "missing.wasm"], "Error reading wasm file: missing.wasm: ");
    read_error(
        &["diff", "missing.dump", "s2.dump", "--wasm", "syn.wasm"],
        "Error reading baseline dump file: missing.dump: ",
    );
    read_error(
        &["diff", "s1.dump", "missing.dump", "--wasm", "syn.wasm"],
        "Error reading current dump file: missing.dump: ",
    );
    // diff: before dump, then wasm, then after dump.
    let df = |b: &str, c: &str, w: &str, file: &str, message: &str| {
        warpo_error(&d, &["diff", b, c, "--wasm", w], Some(file), message)
    };
    df("s1.dump", "short.dump", "bare.wasm", "bare.wasm", NO_HEAP_INFO);
    df("magic.dump", "short.dump", "bare.wasm", "magic.dump", magic);
    df("s1.dump", "version.dump", "syn.wasm", "version.dump", version);
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
    our_error(
        &d,
        &["retainers", "s2.dump", "--wasm", "syn_g.wasm", "--address", "2625"],
        "No object at address 2625 (0xa41) in the dump: give an object's payload address, as analyze lists them",
    );
    our_error(
        &d,
        &["retainers", "s2.dump", "--wasm", "syn_g.wasm", "--class", "x/Nope"],
        "No live object of class x/Nope in the dump",
    );
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
    warpo_error(
        &d,
        &["snapshot", "bad.dump", "--wasm", "syn_g.wasm", "-o", "bad.heapsnapshot"],
        Some("bad.dump"),
        "Dump file too small: expected at least 24 bytes, got 4",
    );
    // An output in a directory that does not exist: one line naming it.
    let e = fail(&d, &["snapshot", "s2.dump", "--wasm", "syn_g.wasm", "-o", "no/such/dir/x.heapsnapshot"]);
    assert!(e.starts_with("qip-memory: cannot write no/such/dir/x.heapsnapshot: "), "{e}");
    // An output that is an input: refused, the input unchanged.
    let before = std::fs::read(d.join("s2.dump")).unwrap();
    let e = fail(&d, &["snapshot", "s2.dump", "--wasm", "syn_g.wasm", "-o", "./s2.dump"]);
    assert_eq!(e, "qip-memory: Refusing to write the snapshot over the input s2.dump");
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

/// Started as `as-heap-analyzer` (argv[0]'s file name without extension), the binary is
/// `qip-memory heap` under WARPO's name: the same JSON; only that exact name switches.
#[test]
fn as_heap_analyzer_is_the_heap_command_under_warpo_s_name() {
    let d = dir("as-heap-analyzer");
    for name in ["as-heap-analyzer", "as-heap-analyzer.exe"] {
        let o = Command::new(renamed(name))
            .current_dir(&d)
            .args(["diff", "s1.dump", "s2.dump", "--wasm", "syn_g.wasm"])
            .output()
            .unwrap();
        assert!(o.status.success() && o.stderr.is_empty(), "{name}");
        assert_eq!(String::from_utf8(o.stdout).unwrap(), format!("{S3_JSON}\n"), "{name}");
    }
    let o = run_as(&d, &["analyze", "s1.dump", "--wasm", "syn.wasm"]);
    assert!(o.status.success() && o.stderr.is_empty());
    assert_eq!(String::from_utf8(o.stdout).unwrap(), format!("{S1_JSON}\n"));
    // Another name is qip-memory itself, which has no `analyze` (clap's usage error, exit 2).
    let o = Command::new(renamed("as-heap-analyzer-old"))
        .current_dir(&d)
        .args(["analyze", "s1.dump", "--wasm", "syn.wasm"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8(o.stderr).unwrap().starts_with("error: unrecognized subcommand 'analyze'"));
}

/// A dump cut short is refused before any analysis, naming the file (docs/heap.md, "Command
/// line"); WARPO's tool analysed it into a negative heap size.
#[test]
fn a_dump_cut_short_is_refused() {
    let d = dir("cut");
    let s1 = s1_dump();
    // 1,000 bytes of S1: a 24-byte header without global values, so a memory image of 976
    // bytes, where the program's memory had 65,536 (WARPO: heap size 976 − 2604 = −1628).
    std::fs::write(d.join("cut.dump"), &s1[..1000]).unwrap();
    let cut = "cut.dump: the dump's memory image is 976 bytes, not a whole number of 64 KiB pages: the dump is truncated";
    for args in [
        &["analyze", "cut.dump", "--wasm", "syn.wasm"][..],
        &["dominators", "cut.dump", "--wasm", "syn.wasm"],
        &["retainers", "cut.dump", "--wasm", "syn.wasm", "--address", "2624"],
        &["snapshot", "cut.dump", "--wasm", "syn.wasm", "-o", "cut.heapsnapshot"],
        &["diff", "cut.dump", "s1.dump", "--wasm", "syn.wasm"],
        &["diff", "s1.dump", "cut.dump", "--wasm", "syn.wasm"],
        &["analyze", "cut.dump", "--wasm", "syn.wasm", "--sort", "count", "--top", "1"],
    ] {
        our_error(&d, args, cut);
    }
    assert!(!d.join("cut.heapsnapshot").exists());
    // Where WARPO's tool has a message for the input, it is the one printed: a bad --top before
    // anything is read, a bad --sort after the analysis, the current dump's header in a diff.
    let top = ["analyze", "cut.dump", "--wasm", "syn.wasm", "--top", "0"];
    warpo_error(&d, &top, None, "--top must be a positive integer");
    let sort = "Invalid constructor sort field: bogus. Must be retained, shallow, or count.";
    warpo_error(&d, &["analyze", "cut.dump", "--wasm", "syn.wasm", "--sort", "bogus"], None, sort);
    let sort = "Invalid comparison sort field: bogus. Must be delta, alloc, freed, or count.";
    warpo_error(&d, &["diff", "s1.dump", "cut.dump", "--wasm", "syn.wasm", "--sort", "bogus"], None, sort);
    std::fs::write(d.join("short.dump"), &s1[..10]).unwrap();
    let short = "Dump file too small: expected at least 24 bytes, got 10";
    warpo_error(&d, &["diff", "cut.dump", "short.dump", "--wasm", "syn.wasm"], Some("short.dump"), short);

    // Cut after the header and its global values: no memory at all.
    std::fs::write(d.join("bare.dump"), &s1[..24]).unwrap();
    std::fs::write(d.join("bare2.dump"), &s2_dump()[..28]).unwrap();
    our_error(
        &d,
        &["analyze", "bare.dump", "--wasm", "syn.wasm"],
        "bare.dump: the file ends after its 24-byte header, without a memory image: the dump is truncated",
    );
    our_error(
        &d,
        &["analyze", "bare2.dump", "--wasm", "syn_g.wasm"],
        "bare2.dump: the file ends after its 28-byte header, without a memory image: the dump is truncated",
    );

    // Whole pages, but a header address past them (each in the order of the header).
    let past =
        "past the end of its memory image (65536 bytes): the dump is truncated or its header is damaged";
    for (name, [data_end, heap_base, stack_pointer], what) in [
        ("data.dump", [70000, 1024, 1016], "__data_end is 70000"),
        ("base.dump", [1000, 70000, 1016], "__heap_base is 70000"),
        ("sp.dump", [1000, 1024, 65540], "__stack_pointer is 65540"),
    ] {
        let dump = write_dump(data_end, heap_base, stack_pointer, &[], &syn_memory());
        std::fs::write(d.join(name), dump).unwrap();
        our_error(
            &d,
            &["analyze", name, "--wasm", "syn.wasm"],
            &format!("{name}: the dump's {what}, {past}"),
        );
    }
    // __heap_base 64000 puts the first block at 64000 + 1580 = 65580, past the 65,536 bytes
    // (WARPO: heap size −44).
    let dump = write_dump(1000, 64000, 1016, &[], &syn_memory());
    std::fs::write(d.join("late.dump"), dump).unwrap();
    our_error(
        &d,
        &["analyze", "late.dump", "--wasm", "syn.wasm"],
        "late.dump: the heap's first block, at 65580 for __heap_base 64000, does not fit in the dump's memory \
         image (65536 bytes): the dump is truncated, or the program had not allocated yet",
    );
    // 63950 rounds up to 63952, so the first block is at 65532: its word is the last of the
    // memory (the tail block, size 0), so the heap has 4 bytes and no object.
    let dump = write_dump(1000, 63950, 1016, &[], &syn_memory());
    std::fs::write(d.join("edge.dump"), dump).unwrap();
    assert_eq!(
        ok(&d, &["analyze", "edge.dump", "--wasm", "syn.wasm"]),
        "{\n  \"totalHeapSize\": 4,\n  \"totalLiveSize\": 0,\n  \"constructors\": []\n}\n"
    );
}

/// The text of a module with `syn.wasm`'s DWARF and global `x/root` (index 0, mutable), an
/// immutable `__heap_base` that it exports, an immutable `~lib/memory/__data_end` named in its
/// `name` section, and a memory of `pages` pages.
fn named_wasm(heap_base: u32, data_end: u32, pages: u32) -> Vec<u8> {
    let mut wasm = wat::parse_str(format!(
        r#"(module
          (memory {pages})
          (global $x/root (mut i32) (i32.const 0))
          (global $base i32 (i32.const {heap_base}))
          (global $~lib/memory/__data_end i32 (i32.const {data_end}))
          (export "__heap_base" (global $base)))"#
    ))
    .unwrap();
    let [abbrev, info, strings] = fixtures::dwarf_sections(&syn_spec());
    for (name, data) in [("debug_abbrev", abbrev), ("debug_info", info), ("debug_str", strings)] {
        wasm.extend(fixtures::custom_section(name, &data));
    }
    wasm
}

/// A dump whose header does not match the module is refused, naming both files as given.
#[test]
fn a_dump_of_another_module_is_refused() {
    let d = dir("another");
    // S2 holds one global value; syn.wasm has no global.
    our_error(
        &d,
        &["analyze", "s2.dump", "--wasm", "syn.wasm"],
        "s2.dump: the dump holds 1 global value but syn.wasm has 0 mutable i32 globals: the dump was not \
         taken from this module",
    );
    // No global values at all is the format's shortcut: S1 with syn_g.wasm is S1 (x/root has no
    // value, so roots nothing).
    assert_eq!(ok(&d, &["analyze", "s1.dump", "--wasm", "syn_g.wasm"]), format!("{S1_JSON}\n"));
    // S2's header: __data_end 1000, __heap_base 1024, one 64 KiB page. The module that agrees
    // gives S2 and S3 unchanged.
    std::fs::write(d.join("own.wasm"), named_wasm(1024, 1000, 1)).unwrap();
    assert_eq!(ok(&d, &["analyze", "s2.dump", "--wasm", "own.wasm"]), format!("{S2_JSON}\n"));
    assert_eq!(ok(&d, &["diff", "s1.dump", "s2.dump", "--wasm", "own.wasm"]), format!("{S3_JSON}\n"));
    std::fs::create_dir(d.join("build")).unwrap();
    std::fs::write(d.join("build/other.wasm"), named_wasm(2048, 1000, 1)).unwrap();
    std::fs::write(d.join("rebuilt.wasm"), named_wasm(1024, 999, 1)).unwrap();
    std::fs::write(d.join("big.wasm"), named_wasm(1024, 1000, 2)).unwrap();
    let base = "the dump's __heap_base is 1024 but build/other.wasm's is 2048: the dump was not taken from this module";
    our_error(&d, &["analyze", "s2.dump", "--wasm", "build/other.wasm"], &format!("s2.dump: {base}"));
    our_error(
        &d,
        &["analyze", "s2.dump", "--wasm", "rebuilt.wasm"],
        "s2.dump: the dump's __data_end is 1000 but rebuilt.wasm's is 999: the dump was not taken from this module",
    );
    our_error(
        &d,
        &["analyze", "s2.dump", "--wasm", "big.wasm"],
        "s2.dump: the dump's memory image is 65536 bytes (1 page) but big.wasm's memory starts with 2 pages: \
         the dump is truncated or was not taken from this module",
    );
    // diff names the dump refused: the baseline first (the current one is not looked at), else
    // the current one.
    our_error(&d, &["diff", "s2.dump", "s1.dump", "--wasm", "build/other.wasm"], &format!("s2.dump: {base}"));
    our_error(&d, &["diff", "s1.dump", "s2.dump", "--wasm", "build/other.wasm"], &format!("s1.dump: {base}"));
    our_error(
        &d,
        &["diff", "s1.dump", "s2.dump", "--wasm", "syn.wasm"],
        "s2.dump: the dump holds 1 global value but syn.wasm has 0 mutable i32 globals: the dump was not \
         taken from this module",
    );
}

/// A file of `make as-fixtures` (tests/assemblyscript/build), copied into `d` so that commands
/// name it as `name`.
fn as_fixture(d: &Path, name: &str) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/assemblyscript/build").join(name);
    assert!(
        path.exists(),
        "missing {}: run `make as-fixtures` first (needs node and npm; `make test` does it)",
        path.display()
    );
    std::fs::copy(&path, d.join(name)).unwrap();
}

/// The header of a dump file: `__data_end`, `__heap_base`, `__stack_pointer` and N.
fn header(d: &Path, name: &str) -> [u32; 4] {
    let b = std::fs::read(d.join(name)).unwrap();
    let word = |i: usize| u32::from_le_bytes(b[i..i + 4].try_into().unwrap());
    [word(8), word(12), word(16), word(20)]
}

/// The AssemblyScript fixtures cut short or paired with another program's module. Their
/// headers, as `run.mjs` wrote them: `leak` `__heap_base` 35360 with 12 global values,
/// `sessions` 35448 with 13, `alloc_free` 33572 with 13, each in one 64 KiB page (8 MiB for
/// `sessions`); their modules (`asc` output) have as many mutable i32 globals as their dumps
/// hold values, and `~lib/memory/__heap_base` has the header's value; `dwarf_fixture`'s has 20.
#[test]
fn fixture_dumps_cut_short_or_of_another_program_are_refused() {
    let d = dir("fixtures");
    for f in [
        "leak.2.dump",
        "leak.wasm",
        "sessions.1.dump",
        "sessions.wasm",
        "alloc_free.1.dump",
        "dwarf_fixture.wasm",
    ] {
        as_fixture(&d, f);
    }
    assert_eq!(header(&d, "leak.2.dump")[1..], [35360, 35348, 12]);
    assert_eq!(header(&d, "sessions.1.dump")[1..], [35448, 35416, 13]);
    assert_eq!(header(&d, "alloc_free.1.dump")[1..], [33572, 33560, 13]);
    // leak.2.dump cut to 1,000 bytes: 24 + 4·12 = 72 of header, 928 of memory (WARPO: heap size
    // 928 − (35360 + 1580) = −36012, exit 0).
    let leak = std::fs::read(d.join("leak.2.dump")).unwrap();
    assert_eq!(leak.len(), 72 + 65536);
    std::fs::write(d.join("leak.cut.dump"), &leak[..1000]).unwrap();
    our_error(
        &d,
        &["analyze", "leak.cut.dump", "--wasm", "leak.wasm"],
        "leak.cut.dump: the dump's memory image is 928 bytes, not a whole number of 64 KiB pages: the dump is truncated",
    );
    // Two programs' dumps: the baseline is sessions' (13 values, leak.wasm has 12 globals);
    // WARPO's tool ran out of its scan limit on it.
    our_error(
        &d,
        &["diff", "sessions.1.dump", "leak.2.dump", "--wasm", "leak.wasm"],
        "sessions.1.dump: the dump holds 13 global values but leak.wasm has 12 mutable i32 globals: the dump \
         was not taken from this module",
    );
    // Same counts, another program: told apart by __heap_base.
    our_error(
        &d,
        &["analyze", "alloc_free.1.dump", "--wasm", "sessions.wasm"],
        "alloc_free.1.dump: the dump's __heap_base is 33572 but sessions.wasm's is 35448: the dump was not \
         taken from this module",
    );
    for view in ["analyze", "dominators"] {
        our_error(
            &d,
            &[view, "leak.2.dump", "--wasm", "dwarf_fixture.wasm"],
            "leak.2.dump: the dump holds 12 global values but dwarf_fixture.wasm has 20 mutable i32 globals: \
             the dump was not taken from this module",
        );
    }
    // `--class Session` is leak/Session, the program's only class of that name.
    let full = ok(&d, &["retainers", "leak.2.dump", "--wasm", "leak.wasm", "--class", "leak/Session"]);
    assert!(full.contains("\"className\": \"leak/Session\""), "{full}");
    assert_eq!(ok(&d, &["retainers", "leak.2.dump", "--wasm", "leak.wasm", "--class", "Session"]), full);
    our_error(
        &d,
        &["retainers", "leak.2.dump", "--wasm", "leak.wasm", "--class", "Sesion"],
        "No live object of class Sesion in the dump; did you mean leak/Session?",
    );
}

/// `--class` takes a class name without its module path when it names one live class; several
/// are listed, and a name that names none gets the classes it most likely meant.
#[test]
fn class_names_without_module_paths() {
    let d = dir("classes");
    let class = |name, rtid, templates| ClassSpec {
        name,
        rtid: Some(rtid),
        base: None,
        fields: &[],
        templates,
        byte_size: None,
    };
    let spec = DwarfSpec {
        base_types: &["i32"],
        classes: &[
            class("a/Session", 4, &[]),
            class("b/Session", 5, &[]),
            class("x/SessionStore", 6, &[]),
            class("~lib/array/Array<a/Session>", 7, &["a/Session"]),
            class("x/Garbage", 8, &[]),
        ],
        globals: &[],
    };
    std::fs::write(d.join("classes.wasm"), wasm_with_dwarf(&spec, &[])).unwrap();
    // Pinned (so live) objects from the first block at 2604: a/Session at 2624, two b/Session
    // at 2656 and 2688, x/SessionStore at 2720 (12-byte payloads, 32-byte blocks), the Array
    // at 2752 (16 bytes, 48); then an x/Garbage at 2800 that nothing holds.
    let mut h = HeapBuilder::new(65536, 1024);
    let placed: Vec<u32> = [(4, 12, 3), (5, 12, 3), (5, 12, 3), (6, 12, 3), (7, 16, 3), (8, 12, 0)]
        .into_iter()
        .map(|(rtid, size, color)| h.alloc(rtid, size, color))
        .collect();
    assert_eq!(placed, [2624, 2656, 2688, 2720, 2752, 2800]);
    std::fs::write(d.join("classes.dump"), write_dump(1000, 1024, 1024, &[], &h.finish())).unwrap();
    let object = |class: &str| {
        let args = ["retainers", "classes.dump", "--wasm", "classes.wasm", "--class", class];
        let v: serde_json::Value = serde_json::from_str(&ok(&d, &args)).unwrap();
        (v["object"]["className"].as_str().unwrap().to_string(), v["object"]["address"].as_u64().unwrap())
    };
    assert_eq!(object("a/Session"), ("a/Session".into(), 2624));
    // Equal retained sizes (32): the lower address.
    assert_eq!(object("b/Session"), ("b/Session".into(), 2656));
    assert_eq!(object("SessionStore"), ("x/SessionStore".into(), 2720));
    assert_eq!(object("Array<Session>"), ("~lib/array/Array<a/Session>".into(), 2752));
    assert_eq!(object("array/Array<a/Session>"), ("~lib/array/Array<a/Session>".into(), 2752));
    let asked = |class: &str, message: &str| {
        our_error(&d, &["retainers", "classes.dump", "--wasm", "classes.wasm", "--class", class], message)
    };
    asked(
        "Session",
        "Class name Session is ambiguous: it is short for 2 live classes, a/Session and b/Session; give the full name",
    );
    // Nothing by that name: the nearest names, if any.
    asked("Sesion", "No live object of class Sesion in the dump; did you mean a/Session or b/Session?");
    asked("c/Session", "No live object of class c/Session in the dump; did you mean a/Session or b/Session?");
    asked("sessionstore", "No live object of class sessionstore in the dump; did you mean x/SessionStore?");
    asked("Arr", "No live object of class Arr in the dump; did you mean ~lib/array/Array<a/Session>?");
    // x/Garbage exists, but none of its objects is alive.
    asked("x/Garbage", "No live object of class x/Garbage in the dump");
    asked("Nope", "No live object of class Nope in the dump");
}
