//! The real WASI preview 1 programs of `tests/programs/` (Rust std, C with wasi-libc, Zig;
//! tests/programs/README.md) run by the `qip-memory` binary, as a user runs them
//! (docs/programs.md), beside the reference runner, wasmtime (`common::wasmtime_wasi`):
//!
//! 1. `page-writes PROGRAM --dir … -o CSV [--env …] [--stdin FILE] -- ARGS` leaves the
//!    program's stdout, stderr, exit code and every file in its preopened directories exactly
//!    as wasmtime does, for each program and several invocations (a file in a preopen, stdin,
//!    `--exit CODE`, two preopens, a missing input, no input, a usage error); so do
//!    `thermal --view` and `report -o` (the report adding only its `wrote …` line).
//! 2. `count` is deterministic: two runs in identical fresh directories print the same counter
//!    and statistics lines; `--seed` changes no output of the programs, and changes the
//!    counters of the Rust program only (its `HashMap` keys come from `random_get`).
//! 3. For the C program (data first, a 64 KiB stack after it): the `--stats` lines of the stack
//!    pointer and the heap, and the page table's rows, against the module as wasmparser reads
//!    it (global 0's initializer, the data segments, the `name` section).
//! 4. The report of the Rust program opened in headless chromium (tests/browser/report.mjs):
//!    no errors, and its data object describes the run `count` counts.
//! 5. Small WAT modules: unresolved imports and `--stub`, the kind rules, `.wat` targets.
//! 6. `--max-module-size`.
//!
//! The programs' expected outputs are wasmtime's (tests/programs.rs proves those against
//! independent implementations of each program's contract); every other expected value is
//! derived here by hand or read from the module with wasmparser, never from our output.

mod common;

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use common::programs::{C, C_TAIL, RUST, TempDir, ZIG, files_in, fixture, program};
use common::report::{data_of, u};
use common::wasmtime_wasi::{Reference, run_in_wasmtime};
use serde_json::Value;

// ------------------------------------------------------------------ invocations

/// The files of one directory by name, as [`files_in`] reads them.
type Files = BTreeMap<String, Vec<u8>>;

/// A preopened directory: its guest name and the files (name, contents) it starts with.
type Preopen = (&'static str, Vec<(&'static str, Vec<u8>)>);

/// One command line of a program: its arguments, environment, preopened directories (guest
/// name and the files each starts with) and stdin (`None`: none given, an empty stream).
struct Invocation {
    /// Names the invocation in messages.
    name: &'static str,
    /// One of [`RUST`], [`C`], [`ZIG`].
    program: &'static str,
    args: Vec<&'static str>,
    env: Vec<(&'static str, &'static str)>,
    dirs: Vec<Preopen>,
    stdin: Option<Vec<u8>>,
}

impl Invocation {
    fn new(name: &'static str, program: &'static str, args: &[&'static str]) -> Invocation {
        Invocation { name, program, args: args.to_vec(), env: Vec::new(), dirs: Vec::new(), stdin: None }
    }

    fn env(mut self, key: &'static str, value: &'static str) -> Invocation {
        self.env.push((key, value));
        self
    }

    fn dir(mut self, guest: &'static str, files: &[(&'static str, &[u8])]) -> Invocation {
        self.dirs.push((guest, files.iter().map(|(n, b)| (*n, b.to_vec())).collect()));
        self
    }

    fn stdin(mut self, bytes: &[u8]) -> Invocation {
        self.stdin = Some(bytes.to_vec());
        self
    }
}

/// `wordfreq`: a file in the preopen, stdin, two preopens with `--iterations`, `--exit 7` and
/// an absolute guest path, a missing input (exit 1), no words (exit 3), a usage error (exit 2).
fn rust_invocations() -> Vec<Invocation> {
    let text = fixture();
    vec![
        Invocation::new("file", RUST, &["harbour.txt", "ranking.txt"]).dir(".", &[("harbour.txt", &text)]),
        Invocation::new("stdin", RUST, &["-", "out.txt"])
            .env("WORDFREQ_TOP", "0")
            .dir(".", &[])
            .stdin(b"To be, or not to be: that is the question.\nTO BE 2 or 2B\n"),
        Invocation::new(
            "exit",
            RUST,
            &["--iterations", "2", "harbour.txt", "/out/ranking.txt", "--exit", "7"],
        )
        .env("WORDFREQ_TOP", "3")
        .dir(".", &[("harbour.txt", &text)])
        .dir("/out", &[("old.txt", b"kept")]),
        Invocation::new("missing", RUST, &["missing.txt", "out.txt"]).dir(".", &[]),
        Invocation::new("no-words", RUST, &["-", "out.txt"]).dir(".", &[]).stdin(b" -- ... !\n"),
        Invocation::new("usage", RUST, &["only-one"]),
    ]
}

/// `sortuniq`: a file, stdin with `SORTUNIQ_MIN` and `--exit 5` into `/data`, a missing input,
/// empty stdin (exit 3), a usage error.
fn c_invocations() -> Vec<Invocation> {
    let text = fixture();
    vec![
        Invocation::new("file", C, &["harbour.txt", "sorted.txt"]).dir(".", &[("harbour.txt", &text)]),
        Invocation::new("stdin-exit", C, &["--exit", "5", "-", "/data/uniq.txt"])
            .env("SORTUNIQ_MIN", "2")
            .dir("/data", &[("keep.txt", b"x")])
            .stdin(b"b\na\nb\n\nc\nb\na"),
        Invocation::new("missing", C, &["missing.txt", "out.txt"]).dir(".", &[]),
        Invocation::new("empty", C, &["-", "out.txt"]).dir(".", &[]).stdin(b""),
        Invocation::new("usage", C, &["a", "b", "c"]),
    ]
}

/// `charclass` (C with tail calls): a file, 30,000 bytes of stdin, a missing input, a usage
/// error.
fn c_tail_invocations() -> Vec<Invocation> {
    let text = fixture();
    let long: Vec<u8> = b"tail 42, call; ".iter().copied().cycle().take(30_000).collect();
    vec![
        Invocation::new("file", C_TAIL, &["harbour.txt"]).dir(".", &[("harbour.txt", &text)]),
        Invocation::new("stdin", C_TAIL, &["-"]).stdin(&long),
        Invocation::new("missing", C_TAIL, &["missing.txt"]).dir(".", &[]),
        Invocation::new("usage", C_TAIL, &["a", "b"]),
    ]
}

/// `revlines` (relative paths through the first preopen): a file with a prefix, stdin with
/// `--exit 9`, a missing input, empty stdin, `--exit 256` (a usage error).
fn zig_invocations() -> Vec<Invocation> {
    let text = fixture();
    vec![
        Invocation::new("file", ZIG, &["harbour.txt", "reversed.txt"])
            .env("REVLINES_PREFIX", "> ")
            .dir(".", &[("harbour.txt", &text)]),
        Invocation::new("stdin-exit", ZIG, &["--exit", "9", "-", "out.txt"])
            .dir(".", &[])
            .stdin(b"one\ntwo\n\nfour"),
        Invocation::new("missing", ZIG, &["missing.txt", "out.txt"]).dir(".", &[]),
        Invocation::new("empty", ZIG, &["-", "out.txt"]).dir(".", &[]).stdin(b""),
        Invocation::new("usage", ZIG, &["--exit", "256", "a", "b"]),
    ]
}

/// An invocation's files laid out in a fresh directory: preopen `i` is `ROOT/p{i}`, the stdin
/// file `ROOT/stdin`, and our outputs (CSV, PNG, HTML) go to `ROOT` itself, outside every
/// preopen, so that the programs' directory listings do not see them.
struct Staged {
    root: TempDir,
    hosts: Vec<PathBuf>,
    stdin: Option<PathBuf>,
}

impl Staged {
    fn new(inv: &Invocation, label: &str) -> Staged {
        let program = Path::new(inv.program).file_stem().unwrap().to_str().unwrap();
        let root = TempDir::new(&format!("{program}-{}-{label}", inv.name));
        let mut hosts = Vec::new();
        for (i, (_, files)) in inv.dirs.iter().enumerate() {
            let host = root.0.join(format!("p{i}"));
            std::fs::create_dir(&host).unwrap();
            for (name, bytes) in files {
                std::fs::write(host.join(name), bytes).unwrap();
            }
            hosts.push(host);
        }
        let stdin = inv.stdin.as_ref().map(|bytes| {
            let p = root.0.join("stdin");
            std::fs::write(&p, bytes).unwrap();
            p
        });
        Staged { root, hosts, stdin }
    }

    /// A path for one of our outputs, outside the preopens.
    fn out(&self, name: &str) -> PathBuf {
        self.root.0.join(name)
    }

    /// The files of each preopened directory, in `--dir` order.
    fn preopens(&self) -> Vec<Files> {
        self.hosts.iter().map(|h| files_in(h)).collect()
    }
}

/// The binary under test, with its cache under cargo's temporary directory.
fn qip_memory() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_qip-memory"));
    c.env("XDG_CACHE_HOME", concat!(env!("CARGO_TARGET_TMPDIR"), "/cache"));
    c
}

/// Runs `qip-memory SUBCOMMAND PROGRAM --dir HOST::GUEST... --env K=V... [--stdin FILE]
/// OPTIONS... -- ARGS` in the staged directories (our stdin: none).
fn ours(inv: &Invocation, staged: &Staged, subcommand: &str, options: &[OsString]) -> Output {
    let mut args: Vec<OsString> = vec![subcommand.into(), program(inv.program).into()];
    for ((guest, _), host) in inv.dirs.iter().zip(&staged.hosts) {
        let mut dir = host.clone().into_os_string();
        dir.push(format!("::{guest}"));
        args.extend(["--dir".into(), dir]);
    }
    for (k, v) in &inv.env {
        args.extend(["--env".into(), format!("{k}={v}").into()]);
    }
    if let Some(p) = &staged.stdin {
        args.extend(["--stdin".into(), p.clone().into_os_string()]);
    }
    args.extend(options.iter().cloned());
    args.push("--".into());
    args.extend(inv.args.iter().map(OsString::from));
    qip_memory()
        .args(&args)
        .current_dir(&staged.root.0)
        .stdin(Stdio::null())
        .output()
        .expect("the binary runs")
}

/// The invocation under wasmtime, in its own fresh directories; returns the run and the
/// files left in each preopen.
fn reference(inv: &Invocation) -> (Reference, Vec<Files>) {
    let staged = Staged::new(inv, "wasmtime");
    let dirs: Vec<(&Path, &str)> =
        inv.dirs.iter().zip(&staged.hosts).map(|((guest, _), host)| (host.as_path(), *guest)).collect();
    let got = run_in_wasmtime(
        &program(inv.program),
        &inv.args,
        &inv.env,
        &dirs,
        inv.stdin.as_deref().unwrap_or_default(),
    );
    assert_eq!(got.trap, None, "{}: trapped under wasmtime", inv.name);
    (got, staged.preopens())
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn os(s: impl Into<OsString>) -> OsString {
    s.into()
}

/// Asserts that our run left what wasmtime's left: stdout, stderr (`got_stderr`: ours with any
/// line of our own after the program's removed by the caller), exit status, and the files in
/// every preopened directory.
#[track_caller]
fn assert_same_as_wasmtime(
    what: &str,
    want: &(Reference, Vec<Files>),
    got: &Output,
    got_stderr: &[u8],
    got_files: &[Files],
) {
    let (reference, files) = want;
    assert_eq!(text(&got.stdout), text(&reference.stdout), "{what}: stdout");
    assert_eq!(got.stdout, reference.stdout, "{what}: stdout bytes");
    assert_eq!(text(got_stderr), text(&reference.stderr), "{what}: stderr");
    assert_eq!(got_stderr, &reference.stderr[..], "{what}: stderr bytes");
    assert_eq!(got.status.code(), Some(reference.exit_code), "{what}: exit status");
    assert_eq!(got_files, &files[..], "{what}: files in the preopened directories");
}

/// Every invocation under `page-writes -o CSV` (no `--stats`: the process's stdout and stderr
/// are the program's alone) against wasmtime; the CSV starts with the page table's header.
fn page_writes_equals_wasmtime(invocations: &[Invocation]) {
    for inv in invocations {
        let what = format!("{} {}", inv.program, inv.name);
        let want = reference(inv);
        let staged = Staged::new(inv, "ours");
        let csv = staged.out("pages.csv");
        let got = ours(inv, &staged, "page-writes", &[os("-o"), csv.clone().into()]);
        assert_same_as_wasmtime(&what, &want, &got, &got.stderr, &staged.preopens());
        let table = std::fs::read_to_string(&csv).unwrap_or_else(|e| panic!("{what}: the CSV: {e}"));
        assert!(table.starts_with(&format!("{HEADER}\n")), "{what}: {table}");
    }
}

const HEADER: &str = "page,region,initialized_bytes,reads,bytes_read,writes,bytes_written,distinct_bytes_written,rewrite_ratio";

// ------------------------------------------------------------------ 1. ours equals wasmtime

#[test]
fn rust_program_under_page_writes_equals_wasmtime() {
    page_writes_equals_wasmtime(&rust_invocations());
}

#[test]
fn c_program_under_page_writes_equals_wasmtime() {
    page_writes_equals_wasmtime(&c_invocations());
}

/// The C program built with tail calls hands over between its states by `return_call` and
/// `return_call_indirect` (wasmparser finds both in it), and runs as under wasmtime.
#[test]
fn c_tail_call_program_under_page_writes_equals_wasmtime() {
    let bytes = std::fs::read(program(C_TAIL)).unwrap();
    let (mut direct, mut indirect) = (0, 0);
    for payload in wasmparser::Parser::new(0).parse_all(&bytes) {
        if let wasmparser::Payload::CodeSectionEntry(body) = payload.unwrap() {
            for op in body.get_operators_reader().unwrap() {
                match op.unwrap() {
                    wasmparser::Operator::ReturnCall { .. } => direct += 1,
                    wasmparser::Operator::ReturnCallIndirect { .. } => indirect += 1,
                    _ => {}
                }
            }
        }
    }
    assert!(direct > 0 && indirect > 0, "return_call {direct}, return_call_indirect {indirect}");
    page_writes_equals_wasmtime(&c_tail_invocations());
}

#[test]
fn zig_program_under_page_writes_equals_wasmtime() {
    page_writes_equals_wasmtime(&zig_invocations());
}

/// `thermal --view` prints nothing of its own on success; `report -o` adds one line after the
/// program's stderr, `wrote PATH (N bytes: F functions, T tiles, I instructions)`, whose
/// numbers are the file's size and its data object's. Both pass the exit code on.
#[test]
fn thermal_and_report_leave_the_program_output_as_wasmtime_does() {
    // sortuniq from stdin, exiting with 5, under thermal --view.
    let inv = &c_invocations()[1];
    let want = reference(inv);
    assert_eq!(want.0.exit_code, 5);
    let staged = Staged::new(inv, "thermal");
    let view = staged.out("view.png");
    let got = ours(inv, &staged, "thermal", &[os("--view"), view.clone().into()]);
    assert_same_as_wasmtime("thermal --view", &want, &got, &got.stderr, &staged.preopens());
    let png = std::fs::read(&view).unwrap();
    assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n", "a PNG file");

    // revlines from stdin, exiting with 9, under report.
    let inv = &zig_invocations()[1];
    let want = reference(inv);
    assert_eq!(want.0.exit_code, 9);
    let staged = Staged::new(inv, "report");
    let html_path = staged.out("r.html");
    let got = ours(inv, &staged, "report", &[os("-o"), html_path.clone().into()]);
    let html = std::fs::read_to_string(&html_path).unwrap();
    let d = data_of(&html);
    let wrote = format!(
        "wrote {} ({} bytes: {} functions, {} tiles, {} instructions)\n",
        html_path.display(),
        html.len(),
        d["functions"].as_array().unwrap().len(),
        d["tiles"].as_array().unwrap().len(),
        u(&d["counters"]["instructions"])
    );
    let program_stderr = got
        .stderr
        .strip_suffix(wrote.as_bytes())
        .unwrap_or_else(|| panic!("report's stderr does not end with {wrote:?}:\n{}", text(&got.stderr)));
    assert_same_as_wasmtime("report", &want, &got, program_stderr, &staged.preopens());
    assert_eq!(d["program"]["end"]["exit_code"], 9);
}

// ------------------------------------------------------------------ 2. determinism

/// `count`'s stderr for a program that links WASI: the program's own bytes, then our timing
/// line (`load … ms, run … ms (… M instructions/s)`), then our lines: the counters in the
/// order of docs/counting.md, `exit_code`, `stack_pointer`, `heap_start`, `io_ranges`.
struct Counted {
    program_stderr: Vec<u8>,
    lines: Vec<String>,
}

impl Counted {
    fn of(o: &Output) -> Counted {
        let e = &o.stderr;
        let timing = (0..e.len())
            .rev()
            .find(|&i| (i == 0 || e[i - 1] == b'\n') && e[i..].starts_with(b"load "))
            .unwrap_or_else(|| panic!("no timing line in {}", text(e)));
        let rest = text(&e[timing..]);
        let mut lines = rest.lines();
        let timing_line = lines.next().unwrap();
        assert!(
            timing_line.contains(" ms, run ") && timing_line.ends_with(" M instructions/s)"),
            "{timing_line}"
        );
        let lines: Vec<String> = lines.map(str::to_owned).collect();
        let names: Vec<&str> = lines.iter().take(8).map(|l| l.split(' ').next().unwrap()).collect();
        assert_eq!(
            names,
            [
                "instructions",
                "calls",
                "indirect_calls",
                "returns",
                "branches",
                "loop_iterations",
                "memory_reads",
                "memory_writes"
            ],
            "{rest}"
        );
        assert!(lines[8].starts_with("exit_code "), "{rest}");
        Counted { program_stderr: e[..timing].to_vec(), lines }
    }

    /// The value of the line `name value`.
    fn get(&self, name: &str) -> u64 {
        let line = self.lines.iter().find(|l| l.split(' ').next() == Some(name)).unwrap();
        line.split(' ').nth(1).unwrap().parse().unwrap()
    }

    fn counters(&self) -> &[String] {
        &self.lines[..8]
    }
}

/// Runs `count` for the invocation in fresh directories, with `--seed` when given.
fn count(inv: &Invocation, seed: Option<u64>, label: &str) -> (Output, Counted, Vec<Files>) {
    let staged = Staged::new(inv, label);
    let options: Vec<OsString> = seed.map(|s| vec![os("--seed"), os(s.to_string())]).unwrap_or_default();
    let got = ours(inv, &staged, "count", &options);
    let counted = Counted::of(&got);
    (got, counted, staged.preopens())
}

/// Two `count` runs of the same invocation (default seed) print the same lines, and so does a
/// run with `--seed 0`; a run with another seed prints and writes the same as the program, and
/// its counters equal the first run's exactly when `seed_changes_counters` is false.
fn count_determinism(inv: &Invocation, seed_changes_counters: bool) {
    let (a, ca, fa) = count(inv, None, "count-a");
    let (b, cb, fb) = count(inv, None, "count-b");
    assert!(a.status.success(), "{}", text(&a.stderr));
    assert_eq!(a.stdout, b.stdout);
    assert_eq!(ca.program_stderr, cb.program_stderr);
    assert_eq!(ca.lines, cb.lines, "every line but the timing line");
    assert_eq!(fa, fb);
    assert!(ca.get("instructions") > 0);
    // The default seed is 0.
    let (z, cz, fz) = count(inv, Some(0), "count-seed-0");
    assert_eq!(
        (z.stdout, cz.program_stderr, cz.lines, fz),
        (a.stdout.clone(), ca.program_stderr.clone(), ca.lines.clone(), fa.clone())
    );

    let (s, cs, fs) = count(inv, Some(0x5eed_1234_5678_9abc), "count-seed");
    assert_eq!(s.status.code(), a.status.code());
    assert_eq!(text(&s.stdout), text(&a.stdout), "stdout with another seed");
    assert_eq!(cs.program_stderr, ca.program_stderr, "the program's stderr with another seed");
    assert_eq!(fs, fa, "files with another seed");
    println!(
        "{}: instructions {} with seed 0, {} with seed 0x5eed123456789abc",
        inv.program,
        ca.get("instructions"),
        cs.get("instructions")
    );
    if seed_changes_counters {
        assert_ne!(cs.counters(), ca.counters(), "{}: another seed, other hash keys", inv.program);
    } else {
        assert_eq!(cs.counters(), ca.counters(), "{}: nothing depends on the random bytes", inv.program);
    }
    // The statistics after the counters do not depend on the seed.
    assert_eq!(cs.lines[8..], ca.lines[8..]);
}

/// `wordfreq`'s `HashMap` draws its `RandomState` keys from `random_get`: another seed hashes
/// the words to other buckets, and the probing costs other instruction counts.
#[test]
fn rust_program_counts_are_deterministic_and_follow_the_seed() {
    count_determinism(&rust_invocations()[0], true);
}

/// `sortuniq` calls `getentropy` and prints only whether it succeeded; its hash table's
/// `hash()` takes no seed: the counters do not depend on the random bytes.
#[test]
fn c_program_counts_are_deterministic_and_ignore_the_seed() {
    count_determinism(&c_invocations()[0], false);
}

/// `revlines` does not import `random_get` at all.
#[test]
fn zig_program_counts_are_deterministic_and_ignore_the_seed() {
    let module = std::fs::read(program(ZIG)).unwrap();
    assert!(!imports(&module).iter().any(|(m, n)| m == "wasi_snapshot_preview1" && n == "random_get"));
    count_determinism(&zig_invocations()[0], false);
}

// ------------------------------------------------------------------ 3. the C program's layout

/// What wasmparser reads of a module: global 0's `i32.const` initializer, the `name`
/// section's name of global 0, and the active data segments of memory 0 `(offset, length)`.
struct Facts {
    global0: i32,
    global0_name: Option<String>,
    data: Vec<(u64, u64)>,
}

/// The module's imports `(module, name)`, read by wasmparser.
fn imports(module: &[u8]) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for p in wasmparser::Parser::new(0).parse_all(module) {
        if let wasmparser::Payload::ImportSection(r) = p.unwrap() {
            for i in r.into_imports() {
                let i = i.unwrap();
                out.push((i.module.to_owned(), i.name.to_owned()));
            }
        }
    }
    out
}

fn facts(module: &[u8]) -> Facts {
    use wasmparser::{DataKind, KnownCustom, Name, Operator, Payload};
    let mut global0 = None;
    let mut global0_name = None;
    let mut data = Vec::new();
    let const_of = |expr: &wasmparser::ConstExpr<'_>| {
        let mut ops = expr.get_operators_reader();
        match ops.read().unwrap() {
            Operator::I32Const { value } => value,
            op => panic!("not an i32.const: {op:?}"),
        }
    };
    for p in wasmparser::Parser::new(0).parse_all(module) {
        match p.unwrap() {
            Payload::GlobalSection(r) => {
                let g = r.into_iter().next().unwrap().unwrap();
                global0 = Some(const_of(&g.init_expr));
            }
            Payload::DataSection(r) => {
                for d in r {
                    let d = d.unwrap();
                    if let DataKind::Active { memory_index: 0, offset_expr } = d.kind {
                        data.push((const_of(&offset_expr) as u32 as u64, d.data.len() as u64));
                    }
                }
            }
            Payload::CustomSection(c) => {
                if let KnownCustom::Name(names) = c.as_known() {
                    for n in names {
                        if let Name::Global(map) = n.unwrap() {
                            for naming in map {
                                let naming = naming.unwrap();
                                if naming.index == 0 {
                                    global0_name = Some(naming.name.to_owned());
                                }
                            }
                        }
                    }
                }
            }
            _ => {}
        }
    }
    Facts { global0: global0.expect("a global 0"), global0_name, data }
}

/// One row of the page table, read by the `csv` crate.
#[derive(Debug)]
struct Row {
    page: u64,
    region: String,
    initialized_bytes: u64,
    reads: u64,
    bytes_read: u64,
    writes: u64,
    bytes_written: u64,
    distinct_bytes_written: u64,
    rewrite_ratio: String,
}

fn rows(csv_text: &str) -> Vec<Row> {
    let mut r = csv::ReaderBuilder::new().has_headers(true).from_reader(csv_text.as_bytes());
    assert_eq!(r.headers().unwrap().iter().collect::<Vec<_>>().join(","), HEADER);
    r.records()
        .map(|rec| {
            let rec = rec.unwrap();
            let n = |i: usize| rec[i].parse::<u64>().unwrap();
            Row {
                page: n(0),
                region: rec[1].to_owned(),
                initialized_bytes: n(2),
                reads: n(3),
                bytes_read: n(4),
                writes: n(5),
                bytes_written: n(6),
                distinct_bytes_written: n(7),
                rewrite_ratio: rec[8].to_owned(),
            }
        })
        .collect()
}

/// `bytes_written / distinct` with two decimals, rounded half away from zero (both positive):
/// hundredths = floor((200 × written + distinct) / (2 × distinct)).
fn ratio(written: u64, distinct: u64) -> String {
    let h = (200 * written + distinct) / (2 * distinct);
    format!("{}.{:02}", h / 100, h % 100)
}

const PAGE: u64 = 65_536;

/// The C program as wasm-ld lays out a C program by default: data first from 1,024, then a
/// 64 KiB stack growing down from global 0's initial value, then the heap. Checked against the
/// module as wasmparser reads it; the heap start follows docs/programs.md ("Regions": without
/// `__heap_base`, the first 16-byte aligned byte after the data segments and the stack).
#[test]
fn c_program_stack_heap_and_page_table_follow_the_module() {
    let module = std::fs::read(program(C)).unwrap();
    let f = facts(&module);
    assert_eq!(f.global0_name.as_deref(), Some("__stack_pointer"));
    let top = u64::try_from(f.global0).unwrap();
    // Data first: every segment lies below the 64 KiB stack (when this was written the segments
    // ended at 4,572, zero-initialized data without a segment followed, and the stack took
    // [7,232, 72,768)). The segments do not overlap.
    let data_end = f.data.iter().map(|(o, l)| o + l).max().unwrap();
    assert!(data_end <= top - PAGE, "data below a 64 KiB stack: {:?}, top {top}", f.data);
    let mut sorted = f.data.clone();
    sorted.sort();
    assert!(sorted.windows(2).all(|w| w[0].0 + w[0].1 <= w[1].0), "{sorted:?}");
    let heap_start = top.max(data_end).next_multiple_of(16);

    let inv = &c_invocations()[0];
    let staged = Staged::new(inv, "stats");
    let csv_path = staged.out("pages.csv");
    let got = ours(inv, &staged, "page-writes", &[os("-o"), csv_path.clone().into(), os("--stats")]);
    assert_eq!(got.status.code(), Some(0), "{}", text(&got.stderr));
    let stderr = text(&got.stderr);
    let lines: Vec<&str> = stderr.lines().collect();
    // The program's line, the 8 counters, then ours.
    assert_eq!(lines[0], "sortuniq: read 1217 bytes from harbour.txt");
    assert_eq!(lines[9], "exit_code 0");
    assert_eq!(lines[10], format!("stack_pointer global 0 (named __stack_pointer), top {top}"));
    assert_eq!(lines[11], format!("heap_start {heap_start} (after the data and the stack)"));
    let io_ranges: u64 = lines[12].strip_prefix("io_ranges ").unwrap().parse().unwrap();
    assert!(io_ranges > 0, "{}", lines[12]);
    assert_eq!(lines.len(), 13, "{stderr}");

    let rows = rows(&std::fs::read_to_string(&csv_path).unwrap());
    assert!(!rows.is_empty());
    // Pages ascending, each listed for a reason.
    for w in rows.windows(2) {
        assert!(w[0].page < w[1].page, "{:?} before {:?}", w[0], w[1]);
    }
    // The data segments' bytes on a page (they do not overlap, so each byte once).
    let data_on = |page: u64| -> u64 {
        f.data.iter().map(|&(o, l)| (o + l).min((page + 1) * PAGE).saturating_sub(o.max(page * PAGE))).sum()
    };
    for r in &rows {
        assert!(r.reads > 0 || r.writes > 0 || r.initialized_bytes > 0, "{r:?}");
        assert_eq!(r.initialized_bytes, data_on(r.page), "{r:?}");
        let labels: Vec<&str> = r.region.split('+').collect();
        assert_eq!(labels.contains(&"data"), data_on(r.page) > 0, "{r:?}");
        // The heap runs from heap_start to the end of memory.
        assert_eq!(labels.contains(&"heap"), (r.page + 1) * PAGE > heap_start, "{r:?}");
        assert!(r.bytes_read >= r.reads && r.bytes_written >= r.writes, "{r:?}");
        assert!(r.distinct_bytes_written <= r.bytes_written.min(PAGE), "{r:?}");
        if r.writes == 0 {
            assert_eq!(r.rewrite_ratio, "", "{r:?}");
        } else {
            assert_eq!(r.rewrite_ratio, ratio(r.bytes_written, r.distinct_bytes_written), "{r:?}");
        }
    }
    // Every page holding data bytes is listed: here page 0 alone, with all of them (when this
    // was written: .rodata [1,024, 4,202) and .data [4,208, 4,572), 3,178 + 364 = 3,542 bytes).
    let data_pages: Vec<u64> = rows.iter().filter(|r| r.initialized_bytes > 0).map(|r| r.page).collect();
    let want: Vec<u64> = (0..=data_end / PAGE).filter(|&p| data_on(p) > 0).collect();
    assert_eq!(data_pages, want);
    assert_eq!(rows[0].initialized_bytes, f.data.iter().map(|(_, l)| l).sum::<u64>());
    // The stack's highest byte, top − 1, lies on a page labelled stack.
    let stack_page = (top - 1) / PAGE;
    let row = rows.iter().find(|r| r.page == stack_page).expect("the stack's page");
    assert!(row.region.split('+').any(|l| l == "stack"), "{row:?}");
    assert!(row.writes > 0, "{row:?}");
    // The WASI calls' buffers (iovecs, the file's bytes, paths) somewhere.
    assert!(rows.iter().any(|r| r.region.split('+').any(|l| l == "io")), "{rows:?}");
}

#[test]
fn ratio_rounds_half_away_from_zero() {
    assert_eq!(ratio(4, 4), "1.00");
    assert_eq!(ratio(1, 3), "0.33");
    assert_eq!(ratio(2, 3), "0.67");
    // 1 / 8 = 0.125 → 0.13; 3 / 8 = 0.375 → 0.38.
    assert_eq!(ratio(1, 8), "0.13");
    assert_eq!(ratio(3, 8), "0.38");
    assert_eq!(ratio(346_080, 400), "865.20");
}

// ------------------------------------------------------------------ 4. the report in chromium

/// Chromium as tests/browser.rs finds it: `CHROMIUM`, else Debian's; missing, a failure with
/// the hint (as there, no skipping).
fn chromium() -> PathBuf {
    let p = PathBuf::from(std::env::var("CHROMIUM").unwrap_or_else(|_| "/usr/bin/chromium".into()));
    assert!(
        p.exists(),
        "{} is missing: `make chromium` installs Debian's chromium (or set CHROMIUM)",
        p.display()
    );
    p
}

/// tests/browser/report.mjs, with its npm packages installed (`make browser-deps`) when missing.
fn driver() -> PathBuf {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = root.join("tests/browser");
    if !dir.join("node_modules/puppeteer-core").exists() {
        let s = Command::new("make").arg("browser-deps").current_dir(root).status().expect("make");
        assert!(s.success(), "make browser-deps");
    }
    dir.join("report.mjs")
}

/// The report of each program on the fixture, opened in chromium: named by its file (not by
/// the module's own name, which for `wordfreq` is rustc's `wordfreq-<hash>.wasm`).
#[test]
fn program_reports_in_chromium() {
    for (inv, file) in [
        (&rust_invocations()[0], "rust-wasi.wasm"),
        (&c_invocations()[0], "c-wasi.wasm"),
        (&zig_invocations()[0], "zig-wasi.wasm"),
    ] {
        report_in_chromium(inv, file);
    }
}

/// The report of `inv` (its program's file name `file`) opens in headless chromium without a
/// console or page error, draws every tile, names the program in its title and counts what
/// `count` counts.
fn report_in_chromium(inv: &Invocation, file: &str) {
    let staged = Staged::new(inv, "browser");
    let html_path = staged.out("report.html");
    let got = ours(inv, &staged, "report", &[os("-o"), html_path.clone().into()]);
    assert_eq!(got.status.code(), Some(0), "{file}: {}", text(&got.stderr));
    let html = std::fs::read_to_string(&html_path).unwrap();
    let d = data_of(&html);
    assert_eq!(d["program"]["kind"], "command");
    assert_eq!(d["program"]["end"]["exit_code"], 0);
    // The same invocation under `count`, in fresh directories: the same instructions.
    let (_, counted, _) = count(inv, None, "browser-count");
    assert_eq!(u(&d["counters"]["instructions"]), counted.get("instructions"), "{file}");

    let shot = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("{file}-report.png"));
    let o = Command::new("node")
        .arg(driver())
        .arg(&html_path)
        .arg(&shot)
        .env("CHROMIUM", chromium())
        .output()
        .expect("node runs");
    assert!(o.status.success(), "driver failed: {}", text(&o.stderr));
    let seen: Value = serde_json::from_slice(&o.stdout).expect("the driver's JSON");
    assert_eq!(seen["console_errors"], Value::Array(vec![]), "{file}");
    assert_eq!(seen["page_errors"], Value::Array(vec![]), "{file}");
    // Every tile the data lists is drawn.
    let tiles = seen["tiles"].as_array().unwrap();
    assert_eq!(tiles.len(), d["tiles"].as_array().unwrap().len());
    assert!(tiles.iter().all(|t| u(&t["drawn"]) > 0), "{file}: {tiles:?}");
    let title = seen["title"].as_str().expect("the driver reports the title");
    eprintln!(
        "{file} report: {} bytes of HTML, loaded and drawn in {} ms, title {title:?}; screenshot {}",
        html.len(),
        u(&seen["load_and_draw_ms"]),
        shot.display()
    );
    assert_eq!(d["target"]["name"], file);
    assert!(title.contains(file), "{title}");
}

// ------------------------------------------------------------------ 5. imports, stubs, kinds

/// A fresh directory for one test's files under cargo's temporary directory.
fn scratch(test: &str) -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR")).join("programs_profiled").join(test);
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn write(dir: &Path, name: &str, bytes: &[u8]) -> String {
    let p = dir.join(name);
    std::fs::write(&p, bytes).unwrap();
    p.to_str().unwrap().to_owned()
}

fn run(args: &[&str]) -> Output {
    qip_memory().args(args).stdin(Stdio::null()).output().expect("the binary runs")
}

/// Asserts exit status 1, nothing on stdout and exactly one line on stderr; returns it.
#[track_caller]
fn one_line_failure(o: &Output) -> String {
    assert_eq!(o.status.code(), Some(1), "stderr: {}", text(&o.stderr));
    assert!(o.stdout.is_empty(), "stdout: {}", text(&o.stdout));
    let e = text(&o.stderr);
    assert!(e.ends_with('\n') && e.matches('\n').count() == 1, "not one line: {e:?}");
    e.trim_end().to_owned()
}

/// Two host imports; `f` calls one, `g` calls none. Counted by hand:
/// f: `call` (1, 1 call), the final `end` (2, 1 return); the host function runs no Wasm.
/// g: `i32.const`, `i32.const`, `i32.add`, `end`: 4 instructions, 1 return.
const HOST_IMPORTS: &str = r#"(module
  (import "env" "host_answer" (func $host_answer (result i32)))
  (import "env" "log" (func $log (param i32 i32)))
  (func $f (export "f") (result i32)
    call $host_answer)
  (func $g (export "g") (result i32)
    i32.const 40
    i32.const 2
    i32.add))"#;

/// `count`'s counter lines, in the order of docs/counting.md.
fn counters(instructions: u64, calls: u64, returns: u64) -> String {
    format!(
        "instructions {instructions}\ncalls {calls}\nindirect_calls 0\nreturns {returns}\nbranches 0\n\
         loop_iterations 0\nmemory_reads 0\nmemory_writes 0\n"
    )
}

#[test]
fn unresolved_imports_are_named_and_stubs_provide_them() {
    let d = scratch("stubs");
    let m = write(&d, "m.wat", HOST_IMPORTS.as_bytes());
    let line = one_line_failure(&run(&["count", &m, "--invoke", "f"]));
    assert_eq!(
        line,
        format!(
            "qip-memory: {m}: 2 unresolved imports: env.host_answer: () -> i32, env.log: (i32, i32) -> (); \
             provide them with --stub MODULE.NAME=zero|trap (`*` matches any characters: --stub 'env.*=trap')"
        )
    );

    // zero: host_answer returns 0.
    let o = run(&["count", &m, "--invoke", "f", "--stub", "env.*=zero"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    assert_eq!(text(&o.stdout), format!("{}result i32:0\n", counters(2, 1, 1)));

    // trap: f's call traps in the stub; the line names it and where the call is.
    let o = run(&["count", &m, "--invoke", "f", "--stub", "env.*=trap"]);
    assert_eq!(o.status.code(), Some(1));
    let stderr = text(&o.stderr);
    let last = stderr.lines().last().unwrap();
    // Defined function 0 is f (`f` in the name section); its first operator is the call. The
    // call ran (1 instruction, 1 call), f's `end` did not. `host function error` is the
    // interpreter's name of a trap raised by a host function.
    let call = common::instruction_offsets(&wat::parse_str(HOST_IMPORTS).unwrap(), 0)[0];
    assert_eq!(
        last,
        format!(
            "qip-memory: {m}: f: trapped in `f` at module offset 0x{call:x}: the stub for env.host_answer \
             was called (it traps) (host function error), after 1 instructions"
        )
    );
    // count's own lines: the timing line, then this one.
    assert_eq!(stderr.lines().count(), 2, "{stderr}");
    assert_eq!(text(&o.stdout), counters(1, 1, 0));

    // An export that does not call out runs with every import trapping.
    let o = run(&["count", &m, "--invoke", "g", "--stub", "env.*=trap"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    assert_eq!(text(&o.stdout), format!("{}result i32:42\n", counters(4, 0, 1)));
}

/// A Content target (docs/content.md) in text: memory 2 pages, no data, no globals; render
/// stores 4 bytes at 70,000 (page 1, since 70,000 / 65,536 = 1) and returns an empty output.
const STORE_TARGET: &str = r#"(module
  (memory (export "memory") 2 2)
  (func (export "output_bytes_cap") (result i32) i32.const 16)
  (func (export "render") (param i32) (result i64)
    i32.const 70000
    i32.const 7
    i32.store
    i64.const 0))"#;

#[test]
fn kinds_are_decided_or_refused_with_the_option_to_give() {
    let d = scratch("kinds");
    let both = write(
        &d,
        "both.wat",
        br#"(module
  (memory (export "memory") 1 1)
  (func (export "_start"))
  (func (export "output_bytes_cap") (result i32) i32.const 0)
  (func (export "render") (param i32) (result i64) i64.const 0))"#,
    );
    let line = one_line_failure(&run(&["page-writes", &both]));
    assert_eq!(
        line,
        format!(
            "qip-memory: {both}: the module exports both _start and render: run it as a WASI command with \
             --kind command, or as a Content target with --kind content"
        )
    );
    assert!(line.contains("--kind command") && line.contains("--kind content"));

    let neither = write(&d, "neither.wat", br#"(module (func (export "other") (result i32) i32.const 1))"#);
    let line = one_line_failure(&run(&["count", &neither]));
    assert_eq!(
        line,
        format!(
            "qip-memory: {neither}: neither a WASI command (no _start) nor a Content target (no render): name \
             the export to run with --invoke NAME (exported: other () -> (i32))"
        )
    );

    let target = write(&d, "store.wat", STORE_TARGET.as_bytes());
    let dir = d.to_str().unwrap();
    let line = one_line_failure(&run(&["page-writes", &target, "--dir", &format!("{dir}::.")]));
    assert_eq!(
        line,
        format!("qip-memory: {target}: --dir does not apply: the module runs as a Content target")
    );
}

/// The text target under `page-writes` (its one row counted by hand) and `thermal` (the same
/// KTX2 bytes as the binary module compiled by the `wat` crate here).
#[test]
fn wat_targets_run_under_page_writes_and_thermal() {
    let d = scratch("wat");
    let text_target = write(&d, "store.wat", STORE_TARGET.as_bytes());
    let binary_target = write(&d, "store.wasm", &wat::parse_str(STORE_TARGET).unwrap());
    let o = run(&["page-writes", &text_target]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    // Page 1: no known range ("other"); 1 write of 4 bytes, 4 distinct, ratio 1.00.
    assert_eq!(text(&o.stdout), format!("{HEADER}\n1,other,0,0,0,1,4,4,1.00\n"));

    let from_text = d.join("text.ktx2");
    let from_binary = d.join("binary.ktx2");
    for (t, out) in [(&text_target, &from_text), (&binary_target, &from_binary)] {
        let o = run(&["thermal", t, "-o", out.to_str().unwrap()]);
        assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
        assert!(o.stdout.is_empty() && o.stderr.is_empty());
    }
    let ktx2 = std::fs::read(&from_text).unwrap();
    assert_eq!(&ktx2[..12], b"\xabKTX 20\xbb\r\n\x1a\n", "the KTX2 identifier");
    assert_eq!(ktx2, std::fs::read(&from_binary).unwrap());
}

// ------------------------------------------------------------------ 6. module size

/// `n` as unsigned LEB128.
fn leb128(mut n: usize) -> Vec<u8> {
    let mut out = Vec::new();
    loop {
        let byte = (n & 0x7f) as u8;
        n >>= 7;
        if n == 0 {
            out.push(byte);
            return out;
        }
        out.push(byte | 0x80);
    }
}

#[test]
fn modules_above_max_module_size_are_refused_with_what_to_do() {
    // `run` returns 7: i32.const, end → 2 instructions, 1 return.
    let mut module = wat::parse_str(r#"(module (func (export "run") (result i32) i32.const 7))"#).unwrap();
    // A custom section "pad" bringing the module to 1,100,000 bytes: id 0, the LEB128 size
    // (3 bytes for sizes from 16,384 to 2,097,151), the name's length (1 byte), "pad", zeros.
    let size = 1_100_000 - module.len() - 1 - 3;
    assert_eq!(leb128(size).len(), 3);
    module.push(0);
    module.extend(leb128(size));
    module.push(3);
    module.extend(b"pad");
    module.resize(1_100_000, 0);
    assert_eq!(module.len(), 1_100_000);
    wasmparser::Validator::new().validate_all(&module).expect("a valid module");

    let d = scratch("size");
    let m = write(&d, "padded.wasm", &module);
    let line = one_line_failure(&run(&["count", &m, "--max-module-size", "1048576"]));
    assert_eq!(
        line,
        format!(
            "qip-memory: {m}: the module is 1100000 bytes, above the limit of 1048576 bytes: build it with \
             --release, or strip its debug sections (wasm-tools strip), or raise the limit with \
             --max-module-size BYTES"
        )
    );
    for phrase in ["1100000 bytes", "limit of 1048576 bytes", "--release", "--max-module-size"] {
        assert!(line.contains(phrase), "{phrase} in {line}");
    }

    // The 64 MiB default takes it.
    let o = run(&["count", &m]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    assert_eq!(text(&o.stdout), format!("{}result i32:7\n", counters(2, 0, 1)));
}
