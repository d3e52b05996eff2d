//! The profile exports (`qip_memory::tools::export`, `--pprof` and `--callgrind` of `report`
//! and `count`, docs/report.md "pprof and callgrind"), read by the tools people read them
//! with:
//!
//! * `callgrind_annotate` (Debian's valgrind) on the callgrind file: its PROGRAM TOTALS (from
//!   our `summary:` line, and again computed by the tool from the cost lines once that line is
//!   removed) equal the run's counters; per function, its self and (with `--inclusive=yes`)
//!   inclusive costs;
//! * `go tool pprof -top` (Debian's golang-go) on the pprof file: for every sample type, the
//!   total it prints ("of N total") equals the run's counter; per function, the flat and
//!   cumulative values `-top` lists.
//!
//! Two runs: a WAT module whose every cost is counted by hand in its comments (instructions as
//! the interpreter counts them: every executed operator, each `end` included, docs/counting.md),
//! under `count`; and the real C program `tests/programs/c-wasi.wasm` (`make programs`) on the
//! shared fixture under `report`, whose counters come from the report's embedded data object
//! (and its bytes from the call tree there) and from `count`.
//!
//! `make test` installs both tools (`make apt-packages`); run alone, a missing tool fails with
//! a hint.

mod common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use common::programs::{C, TempDir, fixture, program};
use common::report::{data_of, u};
use serde_json::Value;

// ------------------------------------------------------------------ tools

/// `name` on the `PATH` (or the path in the environment variable `var`); missing, a failure
/// with the hint.
fn tool(name: &str, var: &str, hint: &str) -> PathBuf {
    let found = match std::env::var_os(var) {
        Some(p) => Some(PathBuf::from(p)).filter(|p| p.is_file()),
        None => {
            let path = std::env::var_os("PATH").unwrap_or_default();
            std::env::split_paths(&path).map(|d| d.join(name)).find(|p| p.is_file())
        }
    };
    found.unwrap_or_else(|| panic!("{name} is missing: {hint} (or set {var} to its path)"))
}

fn callgrind_annotate() -> PathBuf {
    tool(
        "callgrind_annotate",
        "CALLGRIND_ANNOTATE",
        "`make apt-packages` installs Debian's valgrind, which has it",
    )
}

fn go() -> PathBuf {
    tool("go", "GO", "`make apt-packages` installs Debian's golang-go, whose `go tool pprof` reads the file")
}

fn run(c: &mut Command) -> Output {
    let out = c.output().unwrap_or_else(|e| panic!("{c:?}: {e}"));
    assert!(out.status.success(), "{c:?}: {}\n{}", out.status, String::from_utf8_lossy(&out.stderr));
    out
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// The binary under test.
fn qip_memory() -> Command {
    Command::new(env!("CARGO_BIN_EXE_qip-memory"))
}

/// `1,234,567` → 1234567; `.` (callgrind_annotate's empty cell) → 0.
fn number(s: &str) -> u64 {
    if s == "." {
        return 0;
    }
    s.replace(',', "").parse().unwrap_or_else(|_| panic!("not a number: {s:?}"))
}

// ------------------------------------------------------------------ callgrind_annotate

/// What `callgrind_annotate` printed: the five PROGRAM TOTALS and, per `file:function`, the
/// five costs (Ir Loads Stores BytesRead BytesWritten).
#[derive(Debug)]
struct Annotated {
    totals: [u64; 5],
    functions: Vec<(String, [u64; 5])>,
}

impl Annotated {
    /// The costs of the function `name`: the one whose `file:function [object]` (the object
    /// left out after `fi=`) has that function.
    fn function(&self, name: &str) -> [u64; 5] {
        let suffix = format!(":{name}");
        let bare = |n: &str| n.rsplit_once(" [").map_or(n, |(n, _)| n).to_string();
        let found: Vec<_> = self.functions.iter().filter(|(n, _)| bare(n).ends_with(&suffix)).collect();
        assert_eq!(found.len(), 1, "one function {name} in {:?}", self.functions);
        found[0].1
    }
}

/// `callgrind_annotate --threshold=100 --show-percs=no --auto=no [OPTIONS] FILE`, parsed:
/// every line of five numbers (or `.`) and a name is a function, the one whose name starts
/// with `PROGRAM TOTALS` the totals.
fn annotate(file: &Path, options: &[&str]) -> Annotated {
    let out = run(Command::new(callgrind_annotate())
        .args(["--threshold=100", "--show-percs=no", "--auto=no"])
        .args(options)
        .arg(file));
    let stdout = text(&out.stdout);
    assert!(!text(&out.stderr).contains("WARNING"), "callgrind_annotate warns:\n{}", text(&out.stderr));
    let mut totals = None;
    let mut functions = Vec::new();
    for line in stdout.lines() {
        let words: Vec<&str> = line.split_whitespace().collect();
        if words.len() < 6
            || !words[..5].iter().all(|w| *w == "." || w.replace(',', "").parse::<u64>().is_ok())
        {
            continue;
        }
        let costs: [u64; 5] = std::array::from_fn(|i| number(words[i]));
        let name = words[5..].join(" ");
        if name.starts_with("PROGRAM TOTALS") {
            totals = Some(costs);
        } else {
            functions.push((name, costs));
        }
    }
    Annotated { totals: totals.unwrap_or_else(|| panic!("no PROGRAM TOTALS in\n{stdout}")), functions }
}

/// The callgrind file without its `summary:` and `totals:` lines, so that `callgrind_annotate`
/// adds the totals up from the cost lines itself.
fn without_totals(file: &Path) -> PathBuf {
    let kept: String = std::fs::read_to_string(file)
        .unwrap()
        .lines()
        .filter(|l| !l.starts_with("summary:") && !l.starts_with("totals:"))
        .map(|l| format!("{l}\n"))
        .collect();
    let out = file.with_extension("no-totals");
    std::fs::write(&out, kept).unwrap();
    out
}

// ------------------------------------------------------------------ go tool pprof

/// The sample types, as `-sample_index` names them, in the file's order.
const SAMPLE_TYPES: [&str; 6] = ["instructions", "loads", "stores", "bytes_read", "bytes_written", "calls"];

/// A value as `pprof -top` prints it: a count, or bytes with `B` (`-unit=B` keeps them
/// unscaled).
fn pprof_value(s: &str) -> u64 {
    number(s.strip_suffix('B').unwrap_or(s))
}

/// `go tool pprof -top -sample_index=INDEX -unit=B FILE`: the total of its header line
/// (`Showing nodes accounting for X, P% of TOTAL total`) and the rows `(flat, cum, name)`.
fn pprof_top(file: &Path, index: &str) -> (u64, Vec<(u64, u64, String)>) {
    let out = run(Command::new(go())
        .args(["tool", "pprof", "-top", "-nodecount=100000", "-nodefraction=0", "-edgefraction=0", "-unit=B"])
        .arg(format!("-sample_index={index}"))
        .arg(file)
        .env("PPROF_TMPDIR", file.parent().unwrap()));
    let stdout = text(&out.stdout);
    let header = stdout
        .lines()
        .find(|l| l.starts_with("Showing nodes accounting for"))
        .unwrap_or_else(|| panic!("no header in\n{stdout}\n{}", text(&out.stderr)));
    let total = header.strip_suffix(" total").and_then(|h| h.rsplit_once(" of ")).map(|(_, t)| t);
    let total = pprof_value(total.unwrap_or_else(|| panic!("no total in {header:?}")));
    let mut rows = Vec::new();
    let mut in_rows = false;
    for line in stdout.lines() {
        if line.trim_start().starts_with("flat") {
            in_rows = true;
            continue;
        }
        if !in_rows {
            continue;
        }
        // flat flat% sum% cum cum% name…
        let words: Vec<&str> = line.split_whitespace().collect();
        rows.push((pprof_value(words[0]), pprof_value(words[3]), words[5..].join(" ")));
    }
    (total, rows)
}

// ------------------------------------------------------------------ a WAT module by hand

/// `main` calls `pair` twice and `leaf` three times in a loop; `pair` calls `leaf` twice.
///
/// * `leaf`: 4 instructions per entry, 1 store of 1 byte; entered 4 times from `pair` and 3
///   times from `main`: 28 instructions, 7 stores, 7 bytes written.
/// * `pair`: 10 instructions per entry, 1 load of 8 bytes, 2 calls; entered twice: 20
///   instructions, 2 loads, 16 bytes read, 4 calls; inclusive 20 + 4 × 4 = 36 instructions.
/// * `main`: 4 before the loop, `loop` 1, 9 per iteration × 3, the loop's `end` 1, 3 after:
///   36 instructions; 1 load of 4 bytes; 2 + 3 = 5 calls.
/// * The run: 84 instructions, 3 loads, 7 stores, 20 bytes read, 7 bytes written, 9 calls.
const CALLS: &str = r#"(module
  (memory 1)
  (func $leaf (param i32)
    local.get 0          ;; 1
    i32.const 7          ;; 2
    i32.store8)          ;; 3, end 4
  (func $pair (param i32)
    local.get 0          ;; 1
    call $leaf           ;; 2
    local.get 0          ;; 3
    i32.const 1          ;; 4
    i32.add              ;; 5
    call $leaf           ;; 6
    local.get 0          ;; 7
    i64.load             ;; 8: 8 bytes
    drop)                ;; 9, end 10
  (func $main (export "main") (result i32)
    (local $i i32)
    i32.const 16         ;; 1
    call $pair           ;; 2
    i32.const 32         ;; 3
    call $pair           ;; 4
    loop $again          ;; 5
      local.get $i       ;; +1
      call $leaf         ;; +2
      local.get $i       ;; +3
      i32.const 1        ;; +4
      i32.add            ;; +5
      local.tee $i       ;; +6
      i32.const 3        ;; +7
      i32.lt_u           ;; +8
      br_if $again       ;; +9: taken for i = 1, 2; 3 iterations, 27 instructions
    end                  ;; 33
    i32.const 16         ;; 34
    i32.load)            ;; 35: 4 bytes, end 36
)"#;

/// Hand counts: (Ir, Loads, Stores, BytesRead, BytesWritten) per function, self and inclusive.
const MAIN_SELF: [u64; 5] = [36, 1, 0, 4, 0];
const PAIR_SELF: [u64; 5] = [20, 2, 0, 16, 0];
const LEAF_SELF: [u64; 5] = [28, 0, 7, 0, 7];
const RUN: [u64; 5] = [84, 3, 7, 20, 7];
/// `pair` with its four calls of `leaf` (4 instructions and a 1-byte store each).
const PAIR_INCLUSIVE: [u64; 5] = [36, 2, 4, 16, 4];
/// Calls per function: `main` 5, `pair` 4; 9 in all.
const CALLS_RUN: u64 = 9;

/// The counters `count` printed, `name value` per line.
fn counter(stdout: &str, name: &str) -> u64 {
    stdout
        .lines()
        .find_map(|l| l.strip_prefix(name).and_then(|v| v.strip_prefix(' ')))
        .unwrap_or_else(|| panic!("no {name} in\n{stdout}"))
        .parse()
        .unwrap()
}

#[test]
fn count_writes_a_hand_counted_module_as_callgrind_and_pprof() {
    let dir = TempDir::new("export-wat");
    let wat = dir.0.join("calls.wat");
    std::fs::write(&wat, CALLS).unwrap();
    let (cg, pb) = (dir.0.join("calls.callgrind"), dir.0.join("calls.pb.gz"));
    let plain = run(qip_memory().arg("count").arg(&wat).args(["--invoke", "main"]));
    let out = run(qip_memory()
        .arg("count")
        .arg(&wat)
        .args(["--invoke", "main", "--callgrind"])
        .arg(&cg)
        .arg("--pprof")
        .arg(&pb));
    // The counters and the result as without the files; stderr as before (its timing line).
    assert_eq!(text(&out.stdout), text(&plain.stdout));
    assert_eq!(text(&out.stderr).lines().count(), 1, "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    assert_eq!(counter(&stdout, "instructions"), RUN[0]);
    assert_eq!(counter(&stdout, "memory_reads"), RUN[1]);
    assert_eq!(counter(&stdout, "memory_writes"), RUN[2]);
    assert_eq!(counter(&stdout, "calls"), CALLS_RUN);

    // callgrind_annotate: totals from our summary, and added up by the tool.
    let a = annotate(&cg, &[]);
    assert_eq!(a.totals, RUN);
    assert_eq!(annotate(&without_totals(&cg), &[]).totals, RUN);
    assert_eq!(a.functions.len(), 3, "{:?}", a.functions);
    assert_eq!(a.function("main"), MAIN_SELF);
    assert_eq!(a.function("pair"), PAIR_SELF);
    assert_eq!(a.function("leaf"), LEAF_SELF);
    let inclusive = annotate(&cg, &["--inclusive=yes"]);
    assert_eq!(inclusive.function("main"), RUN);
    assert_eq!(inclusive.function("pair"), PAIR_INCLUSIVE);
    assert_eq!(inclusive.function("leaf"), LEAF_SELF);

    // pprof: every sample type's total, and the instructions per function.
    let totals: Vec<u64> = SAMPLE_TYPES.iter().map(|t| pprof_top(&pb, t).0).collect();
    assert_eq!(totals, [RUN[0], RUN[1], RUN[2], RUN[3], RUN[4], CALLS_RUN]);
    let (_, rows) = pprof_top(&pb, "instructions");
    let mut rows: Vec<(String, u64, u64)> = rows.into_iter().map(|(f, c, n)| (n, f, c)).collect();
    rows.sort();
    assert_eq!(
        rows,
        [
            ("leaf".into(), LEAF_SELF[0], LEAF_SELF[0]),
            ("main".into(), MAIN_SELF[0], RUN[0]),
            ("pair".into(), PAIR_SELF[0], PAIR_INCLUSIVE[0])
        ]
    );
    let (_, calls) = pprof_top(&pb, "calls");
    let calls: Vec<(String, u64)> = calls.into_iter().filter(|r| r.0 > 0).map(|(f, _, n)| (n, f)).collect();
    assert_eq!(calls, [("main".to_string(), 5), ("pair".to_string(), 4)]);
}

// ------------------------------------------------------------------ the C program

/// `sortuniq harbour.txt out.txt` in a fresh directory under `SUBCOMMAND`, with `OPTIONS`
/// (paths relative to the directory); the output and the directory.
fn c_program(subcommand: &str, options: &[&str]) -> (Output, TempDir) {
    let root = TempDir::new(&format!("export-c-{subcommand}"));
    let data = root.0.join("data");
    std::fs::create_dir(&data).unwrap();
    std::fs::write(data.join("harbour.txt"), fixture()).unwrap();
    let out = run(qip_memory()
        .arg(subcommand)
        .arg(program(C))
        .arg("--dir")
        .arg(format!("{}::.", data.display()))
        .args(options)
        .args(["--", "harbour.txt", "out.txt"])
        .current_dir(&root.0));
    (out, root)
}

/// One row of the report's functions table.
struct FunctionRow {
    /// Ir Loads Stores BytesRead BytesWritten of its own code.
    self_costs: [u64; 5],
    /// Its inclusive instructions.
    total_instructions: u64,
}

/// The report's functions table by the name the exports give each function: its name, or,
/// when two functions share it, its name and ` (func[N])` (docs/report.md).
fn functions_table(data: &Value) -> BTreeMap<String, FunctionRow> {
    let rows = data["functions"].as_array().unwrap();
    let name = |r: &Value| r["name"].as_str().unwrap().to_string();
    let mut out = BTreeMap::new();
    for r in rows {
        let shared = rows.iter().filter(|o| name(o) == name(r)).count() > 1;
        let key = if shared { format!("{} (func[{}])", name(r), u(&r["index"])) } else { name(r) };
        let row = FunctionRow {
            self_costs: [
                u(&r["self_instructions"]),
                u(&r["loads"]),
                u(&r["stores"]),
                u(&r["bytes_read"]),
                u(&r["bytes_written"]),
            ],
            total_instructions: u(&r["instructions_total"]),
        };
        assert!(out.insert(key, row).is_none());
    }
    out
}

#[test]
fn the_c_programs_report_and_count_profiles_add_up_to_its_counters() {
    let (_, dir) = c_program("report", &["-o", "r.html", "--callgrind", "c.callgrind", "--pprof", "c.pb.gz"]);
    let data = data_of(&std::fs::read_to_string(dir.0.join("r.html")).unwrap());
    let counters = &data["counters"];
    let sum = |key: &str| data["call_tree"].as_array().unwrap().iter().map(|n| u(&n[key])).sum::<u64>();
    let run = [
        u(&counters["instructions"]),
        u(&counters["memory_reads"]),
        u(&counters["memory_writes"]),
        sum("bytes_read_self"),
        sum("bytes_written_self"),
    ];
    assert!(run[0] > 100_000 && run[3] >= 1217, "{run:?}");

    let cg = dir.0.join("c.callgrind");
    let a = annotate(&cg, &[]);
    assert_eq!(a.totals, run);
    assert_eq!(annotate(&without_totals(&cg), &[]).totals, run);
    // The entry function's inclusive costs are the run's: the tree's one root, the export
    // `_start` (wasm-ld's wrapper of the C runtime's `_start`).
    let roots: Vec<&Value> =
        data["call_tree"].as_array().unwrap().iter().filter(|n| n["parent"].is_null()).collect();
    assert_eq!(roots.len(), 1);
    let entry = data["functions"][u(&roots[0]["function"]) as usize]["name"].as_str().unwrap().to_string();
    assert_eq!(annotate(&cg, &["--inclusive=yes"]).function(&entry), run);
    // With line tables, `main` has its file.
    assert!(
        a.functions.iter().any(|(n, _)| n.starts_with("tests/programs/c-wasi/sortuniq.c:main ")),
        "{:?}",
        a.functions
    );

    // Per function, the lines of each file the tool lists (a function's inlined lines are
    // listed under their own file) add up to the report's functions table.
    let expected = functions_table(&data);
    let mut listed: BTreeMap<String, [u64; 5]> = BTreeMap::new();
    for (name, costs) in &a.functions {
        let (_, function) = name.split_once(':').unwrap();
        let function = function.rsplit_once(" [").map_or(function, |(f, _)| f);
        let sum = listed.entry(function.to_string()).or_default();
        for (s, c) in sum.iter_mut().zip(costs) {
            *s += c;
        }
    }
    let selfs: BTreeMap<String, [u64; 5]> = expected.iter().map(|(n, f)| (n.clone(), f.self_costs)).collect();
    assert_eq!(listed, selfs);

    let pb = dir.0.join("c.pb.gz");
    let totals: Vec<u64> = SAMPLE_TYPES.iter().map(|t| pprof_top(&pb, t).0).collect();
    assert_eq!(totals, [run[0], run[1], run[2], run[3], run[4], u(&counters["calls"])]);
    let (_, rows) = pprof_top(&pb, "instructions");
    let start = rows.iter().find(|r| r.2 == entry).unwrap_or_else(|| panic!("{entry} in {rows:?}"));
    assert_eq!(start.1, run[0], "{entry}'s cumulative instructions");
    // Per function, flat and cumulative instructions are the functions table's self and
    // inclusive ones (pprof counts a function once per stack, as the table counts recursion);
    // it leaves out the functions without instructions (the WASI imports).
    let top: BTreeMap<String, (u64, u64)> = rows.into_iter().map(|(f, c, n)| (n, (f, c))).collect();
    let table: BTreeMap<String, (u64, u64)> = expected
        .iter()
        .map(|(n, f)| (n.clone(), (f.self_costs[0], f.total_instructions)))
        .filter(|(_, costs)| *costs != (0, 0))
        .collect();
    assert_eq!(top, table);

    // `count` on the same run: the same instruction count, the same files.
    let (out, counted) = c_program("count", &["--callgrind", "c.callgrind", "--pprof", "c.pb.gz"]);
    assert_eq!(counter(&text(&out.stderr), "instructions"), run[0]);
    for f in ["c.callgrind", "c.pb.gz"] {
        assert!(std::fs::read(counted.0.join(f)).unwrap() == std::fs::read(dir.0.join(f)).unwrap(), "{f}");
    }
}

// ------------------------------------------------------------------ the output rules

#[test]
fn profile_files_are_written_with_the_report_all_or_none() {
    let dir = TempDir::new("export-none");
    let wat = dir.0.join("calls.wat");
    std::fs::write(&wat, CALLS).unwrap();
    let html = dir.0.join("r.html");
    let out = qip_memory()
        .arg("report")
        .arg(&wat)
        .args(["--invoke", "main", "-o"])
        .arg(&html)
        .arg("--callgrind")
        .arg(dir.0.join("c.callgrind"))
        .arg("--pprof")
        .arg(dir.0.join("missing/p.pb.gz"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains("cannot write"), "{}", text(&out.stderr));
    // Neither the report nor the callgrind file was written.
    assert_eq!(std::fs::read_dir(&dir.0).unwrap().count(), 1, "only calls.wat");

    // `--dump-ir` runs nothing, so it takes no profile file (a usage error).
    let out = qip_memory()
        .arg("count")
        .arg(&wat)
        .args(["--dump-ir", "main", "--pprof", "p.pb.gz"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
}
