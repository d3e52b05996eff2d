//! Source lines (`qip_memory::profile::lines`, docs/report.md "Source lines"):
//!
//! * the line table read with gimli equals what LLVM's own reader, `llvm-dwarfdump
//!   --debug-line` (Debian's `llvm-14`, installed with clang by `make test`), prints for the C
//!   program built with `-g`: every row's address (made a module offset by adding the code
//!   section's start, read with wasmparser) looks up the row's file and line, and line 0 looks
//!   up nothing;
//! * a report of a real program with line tables: the costs per line add up to the counters,
//!   as do the call tree's self costs; every function row, hot byte and call site has a line
//!   of a file the table names;
//! * a report of a target without DWARF has no lines.

mod common;

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

use common::programs::TempDir;
use common::report::{data_of, u};
use qip_memory::profile::lines::LineTable;
use serde_json::Value;

const C: &str = "tests/programs/c-wasi.wasm";

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn program(rel: &str) -> Vec<u8> {
    common::content::read(rel)
}

/// The code section's contents start (a module offset), read with wasmparser.
fn code_start(module: &[u8]) -> u64 {
    for p in wasmparser::Parser::new(0).parse_all(module) {
        if let wasmparser::Payload::CodeSectionStart { unchecked_range: range, .. } = p.unwrap() {
            return range.start;
        }
    }
    panic!("no code section")
}

/// One row of `llvm-dwarfdump --debug-line`: address, line, the file's name, end of sequence.
#[derive(Debug, Clone)]
struct DumpRow {
    address: u64,
    line: u32,
    file: String,
    end: bool,
}

/// The rows of every line table `llvm-dwarfdump --debug-line` prints for `path`, with file
/// numbers resolved to names by each table's own `file_names[N]` entries.
fn dwarfdump_rows(path: &Path) -> Vec<DumpRow> {
    let tool = ["llvm-dwarfdump", "llvm-dwarfdump-14"]
        .into_iter()
        .find(|t| Command::new(t).arg("--version").output().is_ok_and(|o| o.status.success()))
        .expect("llvm-dwarfdump is needed (Debian's llvm-14, which clang installs: make wasi-c-toolchain)");
    let o = Command::new(tool).arg("--debug-line").arg(path).output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = String::from_utf8(o.stdout).unwrap();
    let mut rows = Vec::new();
    let mut files: BTreeMap<u64, String> = BTreeMap::new();
    let mut pending_file: Option<u64> = None;
    for line in text.lines() {
        let t = line.trim();
        if t.starts_with("debug_line[") {
            files.clear();
        } else if let Some(rest) = t.strip_prefix("file_names[") {
            let n = rest.split(']').next().unwrap().trim().parse().unwrap();
            pending_file = Some(n);
        } else if let (Some(n), Some(name)) = (pending_file, t.strip_prefix("name: ")) {
            files.insert(n, name.trim_matches('"').to_owned());
            pending_file = None;
        } else if t.starts_with("0x") {
            let f: Vec<&str> = t.split_whitespace().collect();
            rows.push(DumpRow {
                address: u64::from_str_radix(&f[0][2..], 16).unwrap(),
                line: f[1].parse().unwrap(),
                file: files.get(&f[3].parse::<u64>().unwrap()).cloned().unwrap_or_default(),
                end: f.contains(&"end_sequence"),
            });
        }
    }
    rows
}

#[test]
fn the_line_table_equals_llvm_dwarfdump() {
    let module = program(C);
    let table = LineTable::read(&module).expect("the C program has line tables");
    let start = code_start(&module);
    // Per address, what a lookup must give: the last row listed there, a row with a line
    // before an end of sequence (one sequence may end where the next begins).
    let mut expected: BTreeMap<u64, Option<(String, u32)>> = BTreeMap::new();
    for r in dwarfdump_rows(&root().join(C)) {
        let want = (!r.end && r.line > 0).then(|| (r.file.clone(), r.line));
        match expected.get(&r.address) {
            Some(Some(_)) if want.is_none() && r.end => {}
            _ => {
                expected.insert(r.address, want);
            }
        }
    }
    assert!(expected.len() > 500, "{} rows", expected.len());
    let mut lined = 0;
    for (address, want) in &expected {
        let got = table.lookup((start + address) as u32).map(|l| {
            let path = &table.files[l.file as usize];
            (path.rsplit('/').next().unwrap().to_owned(), l.line)
        });
        let want = want.as_ref().map(|(f, l)| (f.rsplit('/').next().unwrap().to_owned(), *l));
        assert_eq!(got, want, "address 0x{address:x}");
        lined += usize::from(want.is_some());
    }
    assert!(lined > 400);
    // Before the first row there is no line.
    assert_eq!(table.lookup(start as u32), None);
}

/// The report of the C program on the fixture, as its data object.
fn c_report() -> Value {
    let dir = TempDir::with("lines", &[("harbour.txt", &common::programs::fixture())]);
    let html = dir.0.join("r.html");
    let o = Command::new(env!("CARGO_BIN_EXE_qip-memory"))
        .args(["report", root().join(C).to_str().unwrap(), "--dir"])
        .arg(format!("{}::.", dir.0.display()))
        .arg("-o")
        .arg(&html)
        .args(["--", "harbour.txt", "out.txt"])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    data_of(&std::fs::read_to_string(&html).unwrap())
}

#[test]
fn a_report_with_lines_adds_up_to_the_counters() {
    let d = c_report();
    let c = &d["counters"];
    let lines = &d["lines"];
    let sum = |k: &str| {
        lines["rows"].as_array().unwrap().iter().map(|r| u(&r[k])).sum::<u64>() + u(&lines["unlined"][k])
    };
    assert_eq!(sum("instructions"), u(&c["instructions"]));
    assert_eq!(sum("loads"), u(&c["memory_reads"]));
    assert_eq!(sum("stores"), u(&c["memory_writes"]));
    // Most of the C program's instructions have a line (its own code and wasi-libc's are
    // built with -g).
    assert!(u(&lines["unlined"]["instructions"]) * 10 < u(&c["instructions"]), "{}", lines["unlined"]);
    let tree = d["call_tree"].as_array().unwrap();
    let node_sum = |k: &str| tree.iter().map(|n| u(&n[k])).sum::<u64>();
    assert_eq!(node_sum("instructions_self"), u(&c["instructions"]));
    assert_eq!(node_sum("calls_self"), u(&c["calls"]));
    assert_eq!(node_sum("loads_self"), u(&c["memory_reads"]));
    assert_eq!(node_sum("stores_self"), u(&c["memory_writes"]));
    // A node's total is its self plus its children's totals.
    let mut children_total = vec![0u64; tree.len()];
    for n in tree {
        if let Some(p) = n["parent"].as_u64() {
            children_total[p as usize] += u(&n["instructions_total"]);
        }
    }
    for (i, n) in tree.iter().enumerate() {
        assert_eq!(u(&n["instructions_total"]), u(&n["instructions_self"]) + children_total[i], "node {i}");
    }
    // Lines name files of the table: every function row, every hot byte with a writer, and
    // the call sites of `main`'s callees.
    let files: Vec<&str> = lines["files"].as_array().unwrap().iter().map(|f| f.as_str().unwrap()).collect();
    let known = |v: &Value| {
        let text = v.as_str().unwrap_or_else(|| panic!("no line: {v}"));
        let (file, line) = text.rsplit_once(':').unwrap();
        files.contains(&file) && line.parse::<u32>().unwrap() > 0
    };
    let functions = d["functions"].as_array().unwrap();
    let main = functions.iter().position(|f| f["name"] == "main").expect("main ran");
    assert!(known(&functions[main]["line"]), "{}", functions[main]);
    assert!(functions[main]["line"].as_str().unwrap().contains("sortuniq.c:"));
    for h in d["hottest"].as_array().unwrap().iter().filter(|h| !h["node"].is_null()) {
        assert!(known(&h["line"]), "{h}");
    }
    let under_main: Vec<&Value> = tree
        .iter()
        .filter(|n| n["parent"].as_u64().is_some_and(|p| u(&tree[p as usize]["function"]) == main as u64))
        .collect();
    assert!(!under_main.is_empty());
    for n in under_main {
        assert!(n["line"].as_str().is_some_and(|l| l.contains("sortuniq.c:")), "{n}");
    }
}

#[test]
fn a_target_without_dwarf_has_no_lines() {
    let qr = program("tests/targets/url-to-qr-svg.wasm");
    assert!(LineTable::read(&qr).is_none());
}
