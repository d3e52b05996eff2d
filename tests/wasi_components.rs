//! The component-model builds under wasmtime with WASI preview 2 (`wasmtime-wasi`):
//!
//! * `application/wasm/qip-memory.component.wasm`, the reactor exporting
//!   `qip:memory/analyzers` and `qip:memory/heap` (`wit/memory.wit`), called through
//!   `bindgen!`: outputs byte-identical to the native CLI and rejections with the CLI's offset,
//!   mode and message (docs/rejections.md), on the real targets and on WAT targets; offsets
//!   also checked against the request written out by hand (`common::content::body`, filename
//!   `target.wasm`); the heap views byte-identical to `qip-memory heap analyze|diff` on the
//!   AssemblyScript fixtures (`make as-fixtures`) for every sort and `top`, and heap rejections
//!   with the offset and mode of `assemblyscript-heap-analyzer-json.wasm` on the same request
//!   and the CLI's message;
//! * `application/wasm/qip-memory-cli.wasm`, the CLI as a WASI command, run with arguments, a
//!   preopened directory and captured stdout/stderr: stdout, stderr, written files and exit
//!   codes compared with `qip-memory` run natively on the same files.
//!
//! `make test` builds the artifacts first; a missing one is built here with `make`.

mod common;
#[path = "common/heap.rs"]
mod fixtures;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

use wasmtime::component::{Component, Linker, ResourceTable};
use wasmtime::{Engine, Store};
use wasmtime_wasi::p2::pipe::MemoryOutputPipe;
use wasmtime_wasi::{FsPerms, I32Exit, WasiCtx, WasiCtxBuilder, WasiCtxView, WasiView};

use common::content::{artifact, body, read};

/// Host bindings of the world `memory` (`wit/memory.wit`).
mod bindings {
    #![allow(missing_docs)]
    wasmtime::component::bindgen!({ world: "memory", path: "wit" });
}

use bindings::Memory;
use bindings::exports::qip::memory::analyzers::{HeatMapOptions, PageTableOptions, Rejection, ReportOptions};
use bindings::exports::qip::memory::heap::{
    AnalyzeOptions, ComparisonSort, ConstructorSort, DiffOptions, Rejection as HeapRejection,
};

const REACTOR: &str = "application/wasm/qip-memory.component.wasm";
const COMMAND: &str = "application/wasm/qip-memory-cli.wasm";
const QR: &str = "tests/targets/url-to-qr-svg.wasm";
const MARKDOWN: &str = "tests/targets/markdown-to-html.wasm";
const ZERO_UUID: &str = "00000000-0000-0000-0000-000000000000";
const MD_INPUT: &str =
    "# Title\n\nSome *emphasis*, `code` and a [link](https://example.com).\n\n- one\n- two\n";

/// A generator (no `input_ptr`) with a uniform `k` that stores 4 bytes at 70,000 (page 1).
const STORE_TARGET: &str = r#"(module
  (memory (export "memory") 2 2)
  (func (export "output_bytes_cap") (result i32) i32.const 16)
  (func (export "uniform_set_k") (param i32) (result i32)
    local.get 0)
  (func (export "render") (param i32) (result i64)
    i32.const 70000
    i32.const 7
    i32.store
    i64.const 0))"#;

/// `(i32, i32) -> i32` addition, for `count`.
const ADD: &str = r#"(module
  (func (export "add") (param i32 i32) (result i32)
    local.get 0
    local.get 1
    i32.add))"#;

// ------------------------------------------------------------------ wasmtime and WASI

/// Store data: the WASI context and its resources.
struct Host {
    ctx: WasiCtx,
    table: ResourceTable,
}

impl WasiView for Host {
    fn ctx(&mut self) -> WasiCtxView<'_> {
        WasiCtxView { ctx: &mut self.ctx, table: &mut self.table }
    }
}

fn engine() -> &'static Engine {
    static E: OnceLock<Engine> = OnceLock::new();
    E.get_or_init(Engine::default)
}

/// The component at `rel`, compiled once per test binary.
fn compiled(rel: &'static str) -> Component {
    static REACTOR_C: OnceLock<Component> = OnceLock::new();
    static COMMAND_C: OnceLock<Component> = OnceLock::new();
    let cell = if rel == REACTOR { &REACTOR_C } else { &COMMAND_C };
    cell.get_or_init(|| {
        let bytes = read(rel);
        // A component, not a core module (wasm32-wasip2 links components).
        assert!(wasmparser::Parser::is_component(&bytes), "{rel} is not a component");
        Component::new(engine(), &bytes).unwrap()
    })
    .clone()
}

fn linker() -> Linker<Host> {
    let mut linker = Linker::new(engine());
    wasmtime_wasi::p2::add_to_linker_sync(&mut linker).unwrap();
    linker
}

/// A fresh instance of the reactor (its WASI imports satisfied, nothing preopened).
fn reactor() -> (Store<Host>, Memory) {
    let host = Host { ctx: WasiCtxBuilder::new().build(), table: ResourceTable::new() };
    let mut store = Store::new(engine(), host);
    let memory = Memory::instantiate(&mut store, &compiled(REACTOR), &linker()).unwrap();
    (store, memory)
}

fn uniforms(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
    pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
}

fn page_table(
    target: &[u8],
    input: Option<&str>,
    u: &[(&str, &str)],
    budget: u32,
) -> Result<String, Rejection> {
    let (mut store, memory) = reactor();
    let options = PageTableOptions { instruction_budget: budget };
    memory
        .qip_memory_analyzers()
        .call_page_table(&mut store, target, input.map(str::as_bytes), &uniforms(u), options)
        .unwrap()
}

fn heat_map(
    target: &[u8],
    input: Option<&str>,
    u: &[(&str, &str)],
    options: HeatMapOptions,
) -> Result<Vec<u8>, Rejection> {
    let (mut store, memory) = reactor();
    memory
        .qip_memory_analyzers()
        .call_heat_map(&mut store, target, input.map(str::as_bytes), &uniforms(u), options)
        .unwrap()
}

fn report_html(target: &[u8], input: Option<&str>, options: ReportOptions) -> Result<String, Rejection> {
    let (mut store, memory) = reactor();
    memory
        .qip_memory_analyzers()
        .call_report(&mut store, target, input.map(str::as_bytes), &uniforms(&[]), options)
        .unwrap()
}

/// What a command run left: exit code, stdout, stderr.
#[derive(Debug, PartialEq, Eq)]
struct Ran {
    code: i32,
    stdout: Vec<u8>,
    stderr: Vec<u8>,
}

/// Runs the WASI command with `args` and `dir` preopened as `.` (what `wasmtime run --dir .`
/// does from `dir`).
fn wasi_cli(dir: &Path, args: &[&str]) -> Ran {
    let (stdout, stderr) = (MemoryOutputPipe::new(64 << 20), MemoryOutputPipe::new(1 << 20));
    let mut builder = WasiCtxBuilder::new();
    builder.arg("qip-memory").args(args).stdout(stdout.clone()).stderr(stderr.clone());
    builder.preopened_dir(dir, ".", FsPerms::ReadWrite).unwrap();
    let mut store = Store::new(engine(), Host { ctx: builder.build(), table: ResourceTable::new() });
    let command =
        wasmtime_wasi::p2::bindings::sync::Command::instantiate(&mut store, &compiled(COMMAND), &linker())
            .unwrap();
    let code = match command.wasi_cli_run().call_run(&mut store) {
        Ok(Ok(())) => 0,
        Ok(Err(())) => 1,
        Err(e) => e.downcast_ref::<I32Exit>().unwrap_or_else(|| panic!("{args:?} trapped: {e:?}")).0,
    };
    drop(store);
    Ran { code, stdout: stdout.contents().to_vec(), stderr: stderr.contents().to_vec() }
}

/// Runs the native CLI with `args` from `dir`.
fn native_cli(dir: &Path, args: &[&str]) -> Ran {
    let o: Output = Command::new(env!("CARGO_BIN_EXE_qip-memory"))
        .env("XDG_CACHE_HOME", concat!(env!("CARGO_TARGET_TMPDIR"), "/cache"))
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap();
    Ran { code: o.status.code().expect("exited"), stdout: o.stdout, stderr: o.stderr }
}

/// A fresh directory holding `target.wasm` (the name the reactor gives the target).
fn dir_with_target(test: &str, target: &[u8]) -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR")).join("wasi").join(test);
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    std::fs::write(d.join("target.wasm"), target).unwrap();
    d
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8(bytes.to_vec()).unwrap()
}

/// `(offset, mode, message)` of the native CLI's rejection line
/// `qip-memory: TARGET: MESSAGE (request offset N, mode M)`, without the hint the CLI adds to
/// an exhausted budget (its option is the CLI's, not the interface's).
fn cli_rejection(r: &Ran) -> (u32, u32, String) {
    assert_eq!(r.code, 1, "{}", text(&r.stderr));
    let line = text(&r.stderr);
    let rest = line
        .strip_prefix("qip-memory: ")
        .and_then(|l| l.split_once(": "))
        .and_then(|(_, l)| l.strip_suffix(")\n"))
        .unwrap_or_else(|| panic!("not a rejection line: {line:?}"));
    let (message, at) = rest.rsplit_once(" (request offset ").unwrap();
    let (offset, mode) = at.split_once(", mode ").unwrap();
    let message = message
        .strip_suffix("; raise it with --instruction-budget N (at most 1000000000)")
        .unwrap_or(message);
    (offset.parse().unwrap(), mode.parse().unwrap(), message.to_owned())
}

fn triple(r: Rejection) -> (u32, u32, String) {
    (r.offset, r.mode, r.message)
}

/// The request for `target.wasm`, `input` and uniforms `u`, written out by hand (not by the
/// library).
fn request(target: &[u8], input: Option<&str>, u: &[(&str, &str)]) -> Vec<u8> {
    let names: Vec<String> = u.iter().map(|(k, _)| format!("uniforms[{k}]")).collect();
    let mut fields = vec![("component", Some("target.wasm"), target)];
    if let Some(i) = input {
        fields.push(("input", None, i.as_bytes()));
    }
    for (name, (_, v)) in names.iter().zip(u) {
        fields.push((name, None, v.as_bytes()));
    }
    body(ZERO_UUID, &fields)
}

/// Where the component part's body starts in every request of these tests.
fn component_start() -> usize {
    request(b"", None, &[]).len() - "\r\n--uuid-00000000-0000-0000-0000-000000000000--\r\n".len()
}

/// CLI arguments for the tool `tool` on `target.wasm`.
fn tool_args<'a>(tool: &'a str, input: Option<&'a str>, u: &[(&str, &str)], budget: &'a str) -> Vec<String> {
    let mut args = vec![tool.to_owned(), "target.wasm".to_owned()];
    if let Some(i) = input {
        args.extend(["--input".to_owned(), i.to_owned()]);
    }
    for (k, v) in u {
        args.extend(["-u".to_owned(), format!("{k}={v}")]);
    }
    args.extend(["--instruction-budget".to_owned(), budget.to_owned()]);
    args
}

fn strs(v: &[String]) -> Vec<&str> {
    v.iter().map(String::as_str).collect()
}

// ------------------------------------------------------------------ the reactor

#[test]
fn page_table_equals_the_cli() {
    let store = wat::parse_str(STORE_TARGET).unwrap();
    let (qr, md) = (read(QR), read(MARKDOWN));
    type Case<'a> = (&'a [u8], Option<&'a str>, Vec<(&'a str, &'a str)>, u32);
    let cases: [Case<'_>; 4] = [
        (&qr, Some("https://example.com"), vec![], 10_000_000),
        (&qr, Some("https://example.org/a/longer/path?q=1"), vec![("error_correction", "3")], 50_000_000),
        (&md, Some(MD_INPUT), vec![], 20_000_000),
        (&store, None, vec![("k", "5")], 1_000_000),
    ];
    for (i, (target, input, u, budget)) in cases.iter().enumerate() {
        let csv = page_table(target, *input, u, *budget).unwrap();
        let d = dir_with_target(&format!("page_table{i}"), target);
        let native = native_cli(&d, &strs(&tool_args("page-writes", *input, u, &budget.to_string())));
        assert_eq!(native.code, 0, "{}", text(&native.stderr));
        assert!(native.stdout == format!("{csv}\n").into_bytes(), "case {i}: CSV differs from the CLI");
    }
    // The WAT target's table by hand (as in tests/cli.rs): page 1, "other", one 4-byte write.
    assert_eq!(
        page_table(&store, None, &[("k", "5")], 1_000_000).unwrap(),
        "page,region,initialized_bytes,reads,bytes_read,writes,bytes_written,distinct_bytes_written,\
         rewrite_ratio\n1,other,0,0,0,1,4,4,1.00"
    );
}

#[test]
fn heat_map_equals_the_cli() {
    let (qr, md) = (read(QR), read(MARKDOWN));
    let cases = [
        (&qr, "https://example.com", true, 0),
        (&qr, "https://example.org/a/longer/path?q=1", false, 0),
        (&md, MD_INPUT, true, 16),
        (&md, "- one\n- two\n\n> quote\n", false, 0),
    ];
    for (i, (target, input, normalize, first_page)) in cases.into_iter().enumerate() {
        let options = HeatMapOptions { instruction_budget: 20_000_000, normalize, first_page };
        let ktx2 = heat_map(target, Some(input), &[], options).unwrap();
        let d = dir_with_target(&format!("heat_map{i}"), target);
        let mut args = tool_args("thermal", Some(input), &[], "20000000");
        args.extend(["--normalize", if normalize { "1" } else { "0" }, "--first-page"].map(String::from));
        args.extend([first_page.to_string(), "-o".into(), "out.ktx2".into()]);
        let native = native_cli(&d, &strs(&args));
        assert_eq!(native.code, 0, "{}", text(&native.stderr));
        assert!(std::fs::read(d.join("out.ktx2")).unwrap() == ktx2, "case {i}: KTX2 differs from the CLI");
        // 224 header bytes, then 256 × (256 · tiles) RGBA pixels.
        assert_eq!((ktx2.len() - 224) % (4 * 256 * 256), 0);
    }
}

#[test]
fn report_equals_the_cli_and_the_wasi_command() {
    let qr = read(QR);
    let options = ReportOptions { instruction_budget: 10_000_000, first_page: 0 };
    let html = report_html(&qr, Some("https://example.com"), options).unwrap();
    let d = dir_with_target("report", &qr);
    let args =
        ["report", "target.wasm", "--input", "https://example.com", "--instruction-budget", "10000000"];
    let native = native_cli(&d, &[&args[..], &["-o", "native.html"]].concat());
    assert_eq!(native.code, 0, "{}", text(&native.stderr));
    assert!(std::fs::read(d.join("native.html")).unwrap() == html.as_bytes(), "reactor differs from the CLI");
    let wasi = wasi_cli(&d, &[&args[..], &["-o", "wasi.html"]].concat());
    assert_eq!(wasi.code, 0, "{}", text(&wasi.stderr));
    assert!(
        std::fs::read(d.join("wasi.html")).unwrap() == html.as_bytes(),
        "WASI command differs from the CLI"
    );
    // The default budget rejects: mode 5 from the reactor, exit 1 from the command.
    let e = report_html(
        &qr,
        Some("https://example.com"),
        ReportOptions { instruction_budget: 1_000_000, first_page: 0 },
    )
    .unwrap_err();
    assert_eq!(e.mode, 5);
}

#[test]
fn rejections_equal_the_cli() {
    let store = wat::parse_str(STORE_TARGET).unwrap();
    let qr = read(QR);
    let bad_module: &[u8] = b"\0asm\x01\0\0\0\x01\x05\x01\x60\x00\x01\x7b\x00";
    let start = component_start() as u32;
    // (target, input, uniforms, budget, expected mode, offset when known by hand)
    type Case<'a> = (&'a [u8], Option<&'a str>, Vec<(&'a str, &'a str)>, u32, u32, Option<u32>);
    let cases: [Case<'_>; 7] = [
        // Malformed request: a uniform key with an upper-case letter.
        (&qr, Some("https://example.com"), vec![("Bad", "1")], 1_000_000, 0, None),
        // Invalid module: a function type with a bad result type (offset inside the module).
        (bad_module, None, vec![], 1_000_000, 1, None),
        // Contract: input for a generator, at the component part's start.
        (&store, Some("x"), vec![], 1_000_000, 2, Some(start)),
        // No such setter.
        (&qr, Some("https://example.com"), vec![("nosuch", "1")], 1_000_000, 3, None),
        // Budget exhausted.
        (&qr, Some("https://example.com"), vec![], 1_000, 5, None),
        // The target rejects two URLs (its own offset into the input).
        (&qr, Some("https://a.example\nhttps://b.example"), vec![], 10_000_000, 6, None),
        // Budget exhausted in the WAT target's render (5 instructions, setter 2).
        (&store, None, vec![("k", "1")], 4, 5, None),
    ];
    for (i, (target, input, u, budget, mode, offset)) in cases.iter().enumerate() {
        let d = dir_with_target(&format!("rejection{i}"), target);
        let native =
            cli_rejection(&native_cli(&d, &strs(&tool_args("page-writes", *input, u, &budget.to_string()))));
        let got = triple(page_table(target, *input, u, *budget).unwrap_err());
        assert_eq!(got, native, "case {i}: page-table");
        assert_eq!(got.1, *mode, "case {i}");
        if let Some(o) = offset {
            assert_eq!(got.0, *o, "case {i}");
        }
        let request_len = request(target, *input, u).len() as u32;
        assert!(got.0 <= request_len, "case {i}: offset past the request");
        // The heat map runs the same request: the same rejection.
        let options = HeatMapOptions { instruction_budget: *budget, normalize: true, first_page: 0 };
        assert_eq!(triple(heat_map(target, *input, u, options).unwrap_err()), native, "case {i}: heat-map");
    }
}

#[test]
fn nothing_to_report_is_mode_8_at_the_request_length() {
    let qr = read(QR);
    let input = "https://example.com";
    let options = HeatMapOptions { instruction_budget: 10_000_000, normalize: true, first_page: 82 };
    let got = triple(heat_map(&qr, Some(input), &[], options).unwrap_err());
    assert_eq!((got.0, got.1), (request(&qr, Some(input), &[]).len() as u32, 8));
    let d = dir_with_target("mode8", &qr);
    let mut args = tool_args("thermal", Some(input), &[], "10000000");
    args.extend(["--first-page", "82", "-o", "none.ktx2"].map(String::from));
    assert_eq!(cli_rejection(&native_cli(&d, &strs(&args))), got);
}

#[test]
fn unbuildable_arguments_are_mode_0_at_offset_0() {
    // A '"' cannot be written into a part name: there is no request; the CLI refuses the same
    // arguments with the same reason.
    let store = wat::parse_str(STORE_TARGET).unwrap();
    let got = triple(page_table(&store, None, &[("a\"b", "1")], 1_000_000).unwrap_err());
    assert_eq!((got.0, got.1), (0, 0));
    let d = dir_with_target("unbuildable", &store);
    let native = native_cli(&d, &["page-writes", "target.wasm", "-u", "a\"b=1"]);
    assert_eq!(native.code, 1);
    assert_eq!(text(&native.stderr), format!("qip-memory: {}\n", got.2));
    assert!(got.2.starts_with("cannot build the request: a form field name must be printable ASCII"));
}

// ------------------------------------------------------------------ the reactor: heap

const AS_BUILD: &str = "tests/assemblyscript/build";
const HEAP_COMPONENT: &str = "application/wasm/assemblyscript-heap-analyzer-json.wasm";

/// A fixture of `make as-fixtures` (`tests/assemblyscript/build/NAME`).
fn as_fixture(name: &str) -> Vec<u8> {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join(AS_BUILD).join(name);
    std::fs::read(&p).unwrap_or_else(|e| panic!("{}: {e} (run `make as-fixtures`)", p.display()))
}

fn heap_analyze(
    wasm: &[u8],
    dump: &[u8],
    sort: ConstructorSort,
    top: Option<u32>,
) -> Result<String, HeapRejection> {
    let (mut store, memory) = reactor();
    memory.qip_memory_heap().call_heap_analyze(&mut store, wasm, dump, AnalyzeOptions { sort, top }).unwrap()
}

fn heap_diff(
    wasm: &[u8],
    before: &[u8],
    after: &[u8],
    sort: ComparisonSort,
    top: Option<u32>,
) -> Result<String, HeapRejection> {
    let (mut store, memory) = reactor();
    memory
        .qip_memory_heap()
        .call_heap_diff(&mut store, wasm, before, after, DiffOptions { sort, top })
        .unwrap()
}

/// A directory holding `files` as (name, bytes).
fn dir_with(test: &str, files: &[(&str, &[u8])]) -> PathBuf {
    let d = dir_with_target(test, b"");
    for (name, bytes) in files {
        std::fs::write(d.join(name), bytes).unwrap();
    }
    d
}

/// The JSON `qip-memory heap ARGS` prints, without its newline.
fn native_heap_json(d: &Path, args: &[&str]) -> String {
    let r = native_cli(d, &[&["heap"], args].concat());
    assert_eq!(r.code, 0, "heap {args:?}: {}", text(&r.stderr));
    text(&r.stdout).strip_suffix('\n').expect("the CLI ends with a newline").to_owned()
}

#[test]
fn heap_views_equal_the_cli() {
    let (wasm, dump) = (as_fixture("dwarf_fixture.wasm"), as_fixture("dwarf_fixture.1.dump"));
    let d = dir_with("heap_analyze", &[("x.wasm", &wasm), ("x.dump", &dump)]);
    let sorts = [
        (ConstructorSort::Retained, "retained"),
        (ConstructorSort::Shallow, "shallow"),
        (ConstructorSort::Count, "count"),
    ];
    for (sort, name) in sorts {
        for (top, top_arg) in
            [(None, None), (Some(1), Some("1")), (Some(5), Some("5")), (Some(1000), Some("1000"))]
        {
            let mut args = vec!["analyze", "x.dump", "--wasm", "x.wasm", "--sort", name];
            args.extend(top_arg.map(|t| ["--top", t]).into_iter().flatten());
            let got = heap_analyze(&wasm, &dump, sort, top).unwrap();
            assert!(got == native_heap_json(&d, &args), "{args:?}: JSON differs from the CLI");
        }
    }
    // The real program's TreeNode row as computed by hand in tests/heap_assemblyscript.rs.
    let json: serde_json::Value =
        serde_json::from_str(&heap_analyze(&wasm, &dump, ConstructorSort::Retained, None).unwrap()).unwrap();
    let rows = json["constructors"].as_array().unwrap();
    let tree = rows.iter().find(|r| r["className"].as_str().unwrap().ends_with("TreeNode")).unwrap();
    assert_eq!((tree["count"].as_u64(), tree["totalRetainedSize"].as_u64()), (Some(31), Some(4128)));

    let wasm = as_fixture("alloc_free.wasm");
    let (before, after) = (as_fixture("alloc_free.1.dump"), as_fixture("alloc_free.2.dump"));
    let d = dir_with("heap_diff", &[("x.wasm", &wasm), ("1.dump", &before), ("2.dump", &after)]);
    let sorts = [
        (ComparisonSort::Delta, "delta"),
        (ComparisonSort::Alloc, "alloc"),
        (ComparisonSort::Freed, "freed"),
        (ComparisonSort::Count, "count"),
    ];
    for (sort, name) in sorts {
        for (top, top_arg) in [(None, None), (Some(1), Some("1"))] {
            let mut args = vec!["diff", "1.dump", "2.dump", "--wasm", "x.wasm", "--sort", name];
            args.extend(top_arg.map(|t| ["--top", t]).into_iter().flatten());
            let got = heap_diff(&wasm, &before, &after, sort, top).unwrap();
            assert!(got == native_heap_json(&d, &args), "{args:?}: JSON differs from the CLI");
        }
    }
}

/// The request the heap interface documents, written out by hand: the files as `module.wasm`,
/// `heap.dump` (or `before.dump`, `after.dump`).
fn heap_request(files: &[(&str, &str, &[u8])]) -> Vec<u8> {
    let fields: Vec<common::content::Field<'_>> =
        files.iter().map(|(name, file, bytes)| (*name, Some(*file), *bytes)).collect();
    body(ZERO_UUID, &fields)
}

/// `(offset, mode)` of the heap Content component on `request`.
fn content_rejection(request: &[u8]) -> (u32, u32) {
    common::content::Component::new(HEAP_COMPONENT).render(request).expect_err("the component accepted it")
}

/// The message `as-heap-analyzer ARGS` (the native CLI started under WARPO's name, as
/// `qip-memory heap`) prints alone on stderr, exiting 1: WARPO's, as the components give it.
fn native_heap_message(d: &Path, args: &[&str]) -> String {
    let mut command = Command::new(env!("CARGO_BIN_EXE_qip-memory"));
    #[cfg(unix)]
    std::os::unix::process::CommandExt::arg0(&mut command, "as-heap-analyzer");
    #[cfg(not(unix))]
    {
        let renamed = Path::new(env!("CARGO_TARGET_TMPDIR")).join("as-heap-analyzer.exe");
        std::fs::copy(env!("CARGO_BIN_EXE_qip-memory"), &renamed).unwrap();
        command = Command::new(renamed);
    }
    let o = command
        .env("XDG_CACHE_HOME", concat!(env!("CARGO_TARGET_TMPDIR"), "/cache"))
        .args(args)
        .current_dir(d)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1), "as-heap-analyzer {args:?}");
    text(&o.stderr).strip_suffix('\n').unwrap().to_owned()
}

#[test]
fn heap_rejections_equal_the_content_component_and_the_cli() {
    use fixtures::{WASM_HEADER, s1_dump, s2_dump, syn_debug_info, syn_wasm, syn_wasm_with};
    let (s1, s2, syn) = (s1_dump(), s2_dump(), syn_wasm(false));
    let mut bad_magic = s1.clone();
    bad_magic[0] ^= 0xff;
    let mut info = syn_debug_info(56);
    info[16] = 3;
    let bad_dwarf = syn_wasm_with(false, &info);
    let truncated = s1[..24 + 2614].to_vec();
    // (wasm, dump, expected mode): modes 1–5 of the heap component's table.
    let cases: [(&[u8], &[u8], u32); 6] = [
        (&syn, &bad_magic, 1),
        (b"nope", &s1, 2),
        (WASM_HEADER, &s1, 3),
        (&bad_dwarf, &s1, 4),
        (&syn, &truncated, 5),
        // The dump is read before the wasm (WARPO's order).
        (b"nope", &bad_magic, 1),
    ];
    for (i, (wasm, dump, mode)) in cases.into_iter().enumerate() {
        let got = heap_analyze(wasm, dump, ConstructorSort::Retained, None).unwrap_err();
        let request = heap_request(&[("wasm", "module.wasm", wasm), ("dump", "heap.dump", dump)]);
        assert_eq!((got.offset, got.mode), content_rejection(&request), "case {i}");
        assert_eq!(got.mode, mode, "case {i}");
        let d = dir_with(&format!("heap_reject{i}"), &[("m.wasm", wasm), ("h.dump", dump)]);
        let native = native_heap_message(&d, &["analyze", "h.dump", "--wasm", "m.wasm"]);
        if mode == 3 {
            // Without DWARF the CLI also looks for the runtime's visitors, and says so.
            assert!(native.starts_with(&format!("{}, and no AssemblyScript runtime visitors", got.message)));
        } else if mode == 5 {
            // The CLI refuses the cut dump before analysing it (docs/heap.md, "Command line"):
            // no global values, so its memory image is the 2,614 bytes after the 24-byte header.
            assert_eq!(
                native,
                "h.dump: the dump's memory image is 2614 bytes, not a whole number of 64 KiB pages: the dump is truncated"
            );
        } else {
            assert_eq!(got.message, native, "case {i}");
        }
        // The same files as the after dump of a diff: the same mode, at the after part.
        let got = heap_diff(wasm, &s2, dump, ComparisonSort::Delta, None);
        let request = heap_request(&[
            ("wasm", "module.wasm", wasm),
            ("before", "before.dump", &s2),
            ("after", "after.dump", dump),
        ]);
        if mode == 1 || mode == 5 {
            let got = got.unwrap_err();
            assert_eq!((got.offset, got.mode), content_rejection(&request), "diff case {i}");
        }
    }
    // `top: some(0)`: the CLI's `--top 0`, mode 6 at the request's end; only once the analysis
    // succeeded (a bad dump still wins).
    let got = heap_analyze(&syn, &s1, ConstructorSort::Count, Some(0)).unwrap_err();
    let request = heap_request(&[("wasm", "module.wasm", &syn), ("dump", "heap.dump", &s1)]);
    assert_eq!((got.offset, got.mode), (request.len() as u32, 6));
    let d = dir_with("heap_top0", &[("m.wasm", &syn), ("h.dump", &s1)]);
    assert_eq!(
        got.message,
        native_heap_message(&d, &["analyze", "h.dump", "--wasm", "m.wasm", "--top", "0"])
    );
    assert_eq!(heap_analyze(&syn, &bad_magic, ConstructorSort::Count, Some(0)).unwrap_err().mode, 1);
    let got = heap_diff(&syn, &s1, &s2, ComparisonSort::Freed, Some(0)).unwrap_err();
    assert_eq!((got.mode, got.message.as_str()), (6, "--top must be a positive integer"));
}

// ------------------------------------------------------------------ the command

/// Runs `args` natively and as the WASI command, each in its own directory holding `inputs`
/// (name, bytes), and asserts identical exit code, stdout and stderr, and identical `outputs`
/// files. Returns the WASI run.
fn compare_runs(test: &str, inputs: &[(&str, &[u8])], args: &[&str], outputs: &[&str]) -> Ran {
    let (n, w) = (dir_with(&format!("{test}-native"), inputs), dir_with(&format!("{test}-wasi"), inputs));
    let native = native_cli(&n, args);
    let wasi = wasi_cli(&w, args);
    assert_eq!(wasi.code, native.code, "{args:?}: exit code; stderr {}", text(&wasi.stderr));
    assert!(wasi.stdout == native.stdout, "{args:?}: stdout differs");
    assert_eq!(text(&wasi.stderr), text(&native.stderr), "{args:?}: stderr");
    for f in outputs {
        let (a, b) = (std::fs::read(n.join(f)).unwrap(), std::fs::read(w.join(f)).unwrap());
        assert!(a == b, "{args:?}: {f} differs");
    }
    wasi
}

/// [`compare_runs`] with `target.wasm`, `add.wasm` and `url.txt` as inputs.
fn same_as_native(test: &str, target: &[u8], args: &[&str], outputs: &[&str]) -> Ran {
    let add = wat::parse_str(ADD).unwrap();
    let inputs: [(&str, &[u8]); 3] =
        [("target.wasm", target), ("add.wasm", &add), ("url.txt", b"https://example.com/from/a/file")];
    compare_runs(test, &inputs, args, outputs)
}

#[test]
fn command_page_writes_and_thermal_equal_the_native_cli() {
    let (qr, md) = (read(QR), read(MARKDOWN));
    let url = "https://example.com";
    let budget = ["--instruction-budget", "50000000"];
    let args = [&["page-writes", "target.wasm", "--input", url, "--stats"][..], &budget].concat();
    let r = same_as_native("pw", &qr, &args, &[]);
    assert_eq!(r.code, 0);
    assert!(r.stdout.starts_with(b"page,region,") && !r.stderr.is_empty());
    let args = ["thermal", "target.wasm", "--input", MD_INPUT, "--instruction-budget", "20000000", "--stats"];
    let r = same_as_native(
        "th",
        &md,
        &[&args[..], &["-o", "out.ktx2", "--png", "out.png"]].concat(),
        &["out.ktx2", "out.png"],
    );
    assert_eq!(r.code, 0);
    // An input file (`-F input=@PATH`) read through the preopened directory.
    let args = [&["page-writes", "target.wasm", "--input-file", "url.txt"][..], &budget].concat();
    let r = same_as_native("pw-file", &qr, &args, &[]);
    assert_eq!(r.code, 0);
}

#[test]
fn command_failures_equal_the_native_cli() {
    let qr = read(QR);
    // Rejections: mode 2 and mode 8.
    let store = wat::parse_str(STORE_TARGET).unwrap();
    let r = same_as_native("gen", &store, &["page-writes", "target.wasm", "--input", "x"], &[]);
    assert_eq!(cli_rejection(&r).1, 2);
    let args = ["thermal", "target.wasm", "--input", "https://example.com", "--first-page", "82"];
    let args = [&args[..], &["-o", "x.ktx2", "--instruction-budget", "10000000"]].concat();
    let r = same_as_native("mode8", &qr, &args, &[]);
    assert_eq!(cli_rejection(&r).1, 8);
    // The form builder's refusal.
    let r = same_as_native("unbuildable", &store, &["page-writes", "target.wasm", "-u", "a\"b=1"], &[]);
    assert_eq!(r.code, 1);
    // A missing file: the same words from both builds (without the error numbers, which
    // differ: 2 on Linux, 44 in WASI).
    let (n, w) = (dir_with_target("missing-native", &qr), dir_with_target("missing-wasi", &qr));
    let args = ["page-writes", "nothing.wasm"];
    let (native, wasi) = (native_cli(&n, &args), wasi_cli(&w, &args));
    assert_eq!((native.code, wasi.code), (1, 1));
    for r in [&native, &wasi] {
        assert!(text(&r.stderr).starts_with("qip-memory: cannot read nothing.wasm: "), "{}", text(&r.stderr));
    }
    // Under WASI a missing file may be one outside the granted directories: the line says so.
    let hint = "(the WASI command sees only the directories the host grants, e.g. wasmtime run --dir .)\n";
    assert!(text(&wasi.stderr).ends_with(hint), "{}", text(&wasi.stderr));
    assert!(!text(&native.stderr).contains("WASI"), "{}", text(&native.stderr));
    assert_eq!(text(&native.stderr), "qip-memory: cannot read nothing.wasm: No such file or directory\n");
    assert_eq!(
        text(&wasi.stderr),
        format!("qip-memory: cannot read nothing.wasm: No such file or directory {hint}")
    );
}

#[test]
fn command_count_and_version_equal_the_native_cli() {
    let args = ["count", "add.wasm", "--invoke", "add", "--arg", "i32:2", "--arg", "i32:40"];
    let (n, w) = (dir_with_target("count-native", b""), dir_with_target("count-wasi", b""));
    let add = wat::parse_str(ADD).unwrap();
    std::fs::write(n.join("add.wasm"), &add).unwrap();
    std::fs::write(w.join("add.wasm"), &add).unwrap();
    // stderr holds timings; stdout the counters and the result.
    let (native, wasi) = (native_cli(&n, &args), wasi_cli(&w, &args));
    assert_eq!((native.code, wasi.code), (0, 0));
    assert_eq!(text(&wasi.stdout), text(&native.stdout));
    assert!(text(&wasi.stdout).ends_with("result i32:42\n"), "{}", text(&wasi.stdout));
    let r = same_as_native("version", b"", &["--version"], &[]);
    assert_eq!(r.code, 0);
}

#[test]
fn command_usage_errors_exit_1_under_wasi() {
    // clap's usage errors exit 2 natively; WASI 0.2's `exit` has only success and failure, so
    // the command exits 1 with the same message.
    let d = dir_with_target("usage", b"");
    let (native, wasi) =
        (native_cli(&d, &["thermal", "target.wasm"]), wasi_cli(&d, &["thermal", "target.wasm"]));
    assert_eq!((native.code, wasi.code), (2, 1));
    assert_eq!(text(&wasi.stderr), text(&native.stderr));
    assert!(text(&wasi.stderr).starts_with("error: the following required arguments were not provided:"));
}

#[test]
fn command_heap_equals_the_native_cli() {
    let (wasm, dump) = (as_fixture("dwarf_fixture.wasm"), as_fixture("dwarf_fixture.1.dump"));
    let af = as_fixture("alloc_free.wasm");
    let (before, after) = (as_fixture("alloc_free.1.dump"), as_fixture("alloc_free.2.dump"));
    let no_dwarf = as_fixture("dwarf_fixture.no-dwarf.wasm");
    let stripped = common::without_custom_sections(&no_dwarf);
    // Runs `args` natively and as the WASI command in copies of one directory of fixtures.
    let files: [(&str, &[u8]); 7] = [
        ("x.wasm", &wasm),
        ("x.dump", &dump),
        ("af.wasm", &af),
        ("1.dump", &before),
        ("2.dump", &after),
        ("plain.wasm", &no_dwarf),
        ("stripped.wasm", &stripped),
    ];
    let same = |test: &str, args: &[&str]| compare_runs(test, &files, args, &[]);
    let r = same("heap-analyze", &["heap", "analyze", "x.dump", "--wasm", "x.wasm"]);
    assert_eq!(r.code, 0);
    assert!(text(&r.stdout).starts_with("{\n  \"totalHeapSize\": "), "{}", text(&r.stdout));
    // Without DWARF the command runs the program's own visitors in its interpreter.
    let plain = same("heap-nodwarf", &["heap", "analyze", "x.dump", "--wasm", "plain.wasm"]);
    assert_eq!((plain.code, text(&plain.stdout)), (0, text(&r.stdout)));
    let r = same(
        "heap-analyze-top",
        &["heap", "analyze", "x.dump", "--wasm", "x.wasm", "--sort", "count", "--top", "3"],
    );
    assert_eq!(r.code, 0);
    let r = same("heap-diff", &["heap", "diff", "1.dump", "2.dump", "--wasm", "af.wasm", "--sort", "freed"]);
    assert_eq!(r.code, 0);
    assert!(text(&r.stdout).contains("\"className\": "), "{}", text(&r.stdout));
    // The views beyond WARPO's, on the class that retains the most.
    let r = same("heap-table", &["heap", "analyze", "x.dump", "--wasm", "x.wasm", "--format", "table"]);
    assert_eq!(r.code, 0);
    let first_row = text(&r.stdout).lines().nth(2).unwrap().to_string();
    let class = first_row.rsplit("  ").next().unwrap().to_string();
    for (test, args) in [
        ("heap-retainers", &["heap", "retainers", "x.dump", "--wasm", "x.wasm", "--class", &class][..]),
        (
            "heap-retainers-table",
            &["heap", "retainers", "x.dump", "--wasm", "x.wasm", "--class", &class, "--format", "table"],
        ),
        ("heap-dominators", &["heap", "dominators", "x.dump", "--wasm", "x.wasm", "--format", "table"]),
    ] {
        let r = same(test, args);
        assert_eq!(r.code, 0, "{args:?}: {}", text(&r.stderr));
    }
    // Capture: the leaking walkthrough program's two dumps, the same from both.
    let leak = as_fixture("leak.wasm");
    let r = compare_runs(
        "heap-capture",
        &[("leak.wasm", &leak)],
        &["heap", "capture", "leak.wasm"],
        &["leak.1.dump", "leak.2.dump"],
    );
    assert_eq!(r.code, 0, "{}", text(&r.stderr));
    // The DevTools snapshot: the same file from both.
    let args = ["heap", "snapshot", "x.dump", "--wasm", "x.wasm", "-o", "x.heapsnapshot"];
    assert_eq!(compare_runs("heap-snapshot", &files, &args, &["x.heapsnapshot"]).code, 0);
    // One line after `qip-memory: `, exit 1: neither DWARF nor names, a wasm given as the
    // dump, a bad sort, --top 0.
    for (test, args) in [
        ("heap-stripped", &["heap", "analyze", "x.dump", "--wasm", "stripped.wasm"][..]),
        ("heap-magic", &["heap", "analyze", "x.wasm", "--wasm", "x.wasm"]),
        ("heap-sort", &["heap", "diff", "1.dump", "2.dump", "--wasm", "af.wasm", "--sort", "size"]),
        ("heap-top", &["heap", "analyze", "x.dump", "--wasm", "x.wasm", "--top", "0"]),
    ] {
        let r = same(test, args);
        assert_eq!(r.code, 1, "{args:?}");
        assert!(text(&r.stderr).starts_with("qip-memory: "), "{}", text(&r.stderr));
    }
}

#[test]
fn command_has_no_run_subcommand() {
    // `run` needs wasmtime: the WASI build does not know it, the native one does.
    let d = dir_with_target("norun", b"");
    let wasi = wasi_cli(&d, &["run", "x.wasm"]);
    assert_ne!(wasi.code, 0);
    assert!(text(&wasi.stderr).contains("unrecognized subcommand 'run'"), "{}", text(&wasi.stderr));
    // Natively `run` exists: with no stage clap says what is missing (usage error, 2).
    let native = native_cli(&d, &["run"]);
    assert_eq!(native.code, 2);
    assert!(
        text(&native.stderr)
            .starts_with("error: the following required arguments were not provided:\n  <STAGE.wasm>..."),
        "{}",
        text(&native.stderr)
    );
}

// ------------------------------------------------------------------ JavaScript through jco

/// Runs `tests/jco/call.mjs` (the reactor transpiled by jco, called from Node) with `args`:
/// `Ok(())` when it wrote its output file, the rejection payload otherwise.
fn jco_call(args: &[&str]) -> Result<(), (u32, u32, String)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let o = Command::new("node").arg(root.join("tests/jco/call.mjs")).args(args).output().expect("node runs");
    match o.status.code() {
        Some(0) => Ok(()),
        Some(3) => {
            // `OFFSET MODE MESSAGE`
            let line = text(&o.stdout);
            let mut fields = line.trim_end_matches('\n').splitn(3, ' ');
            let mut number = || fields.next().unwrap().parse().unwrap();
            let (offset, mode) = (number(), number());
            Err((offset, mode, fields.next().unwrap().to_owned()))
        }
        _ => panic!("node {args:?} failed: {}", text(&o.stderr)),
    }
}

#[test]
#[ignore = "needs Node and the jco output in tests/jco/generated: run by `make jco-check`"]
fn jco_transpiled_component_equals_the_cli() {
    let (qr, md) = (artifact(QR), artifact(MARKDOWN));
    let url = "https://example.com";
    let cases: [(&Path, &str, &str, &[&str]); 6] = [
        (&qr, url, "10000000", &[]),
        (&md, MD_INPUT, "20000000", &[]),
        (&qr, url, "10000000", &["1", "0"]),
        (&md, MD_INPUT, "20000000", &["0", "16"]),
        (&qr, url, "1000", &[]),
        (&qr, url, "10000000", &["1", "82"]),
    ];
    for (i, (target, input, budget, heat)) in cases.into_iter().enumerate() {
        let d = dir_with_target(&format!("jco{i}"), &std::fs::read(target).unwrap());
        let (out, native_out) = (d.join("jco.out"), d.join("native.ktx2"));
        let target = d.join("target.wasm");
        let (target, out) = (target.to_str().unwrap(), out.to_str().unwrap());
        let (js, native) = if heat.is_empty() {
            let js = jco_call(&["page-table", target, input, budget, out]);
            (js, native_cli(&d, &strs(&tool_args("page-writes", Some(input), &[], budget))))
        } else {
            let js = jco_call(&["heat-map", target, input, budget, heat[0], heat[1], out]);
            let mut args = tool_args("thermal", Some(input), &[], budget);
            args.extend(
                ["--normalize", heat[0], "--first-page", heat[1], "-o", "native.ktx2"].map(String::from),
            );
            (js, native_cli(&d, &strs(&args)))
        };
        match js {
            Ok(()) => {
                assert_eq!(native.code, 0, "case {i}: {}", text(&native.stderr));
                let got = std::fs::read(out).unwrap();
                let expected =
                    if heat.is_empty() { native.stdout } else { std::fs::read(native_out).unwrap() };
                let expected =
                    if heat.is_empty() { expected[..expected.len() - 1].to_vec() } else { expected };
                assert!(got == expected, "case {i}: jco output differs from the CLI");
            }
            Err(r) => assert_eq!(r, cli_rejection(&native), "case {i}"),
        }
    }
    // The heap interface: JSON equal to `qip-memory heap` (without its newline); WARPO's
    // message and the reactor's offset/mode on a rejection.
    let (wasm, dump) = (as_fixture("dwarf_fixture.wasm"), as_fixture("dwarf_fixture.1.dump"));
    let af = as_fixture("alloc_free.wasm");
    let (before, after) = (as_fixture("alloc_free.1.dump"), as_fixture("alloc_free.2.dump"));
    let d = dir_with(
        "jco-heap",
        &[("x.wasm", &wasm), ("x.dump", &dump), ("af.wasm", &af), ("1.dump", &before), ("2.dump", &after)],
    );
    let p = |f: &str| d.join(f).to_str().unwrap().to_owned();
    let out = p("jco.json");
    let cases: [(&[&str], &[&str]); 5] = [
        (
            &["heap-analyze", &p("x.wasm"), &p("x.dump"), "retained", "-"],
            &["analyze", "x.dump", "--wasm", "x.wasm"],
        ),
        (
            &["heap-analyze", &p("x.wasm"), &p("x.dump"), "count", "3"],
            &["analyze", "x.dump", "--wasm", "x.wasm", "--sort", "count", "--top", "3"],
        ),
        (
            &["heap-diff", &p("af.wasm"), &p("1.dump"), &p("2.dump"), "alloc", "-"],
            &["diff", "1.dump", "2.dump", "--wasm", "af.wasm", "--sort", "alloc"],
        ),
        (
            &["heap-analyze", &p("x.wasm"), &p("x.wasm"), "retained", "-"],
            &["analyze", "x.wasm", "--wasm", "x.wasm"],
        ),
        (
            &["heap-analyze", &p("x.wasm"), &p("x.dump"), "shallow", "0"],
            &["analyze", "x.dump", "--wasm", "x.wasm", "--top", "0"],
        ),
    ];
    for (i, (js_args, cli_args)) in cases.into_iter().enumerate() {
        match jco_call(&[js_args, &[out.as_str()]].concat()) {
            Ok(()) => assert_eq!(
                text(&std::fs::read(&out).unwrap()),
                native_heap_json(&d, cli_args),
                "heap case {i}"
            ),
            Err((offset, mode, message)) => {
                assert_eq!(message, native_heap_message(&d, cli_args), "heap case {i}");
                // Both rejecting cases are heap-analyze calls with sort retained or shallow.
                let sort = if js_args[3] == "shallow" {
                    ConstructorSort::Shallow
                } else {
                    ConstructorSort::Retained
                };
                let top = js_args[4].parse().ok();
                let reactor =
                    heap_analyze(&wasm, &std::fs::read(js_args[2]).unwrap(), sort, top).unwrap_err();
                assert_eq!((offset, mode), (reactor.offset, reactor.mode), "heap case {i}");
            }
        }
    }
}
