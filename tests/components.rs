//! The built Content component `application/wasm/qip-interpret-memory-page-writes-csv.wasm`
//! against the real targets `tests/targets/*.wasm`:
//!
//! * the artifact's shape, read with wasmparser (`qip-content.md` A.2–A.6, A.8; issue 3);
//! * its output under wasmtime byte-identical to `qip-memory page-writes` and `qip-memory run`
//!   (`memory-tools.md` 4);
//! * the host-rewritten boundary slot (A.6.1) and the `instruction_budget` uniform (clamping,
//!   reset after every render, `memory-tools.md` 1);
//! * the CSV read back with the `csv` crate (`memory-tools.md` 2).
//!
//! `make test` builds the artifacts first; a missing one is built here with `make`.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Mutex, OnceLock};

use wasmtime::{Engine, Instance, Memory, Module, Store, TypedFunc};

const COMPONENT: &str = "application/wasm/qip-interpret-memory-page-writes-csv.wasm";
const QR: &str = "tests/targets/url-to-qr-svg.wasm";
const MARKDOWN: &str = "tests/targets/markdown-to-html.wasm";

const ZERO_UUID: &str = "00000000-0000-0000-0000-000000000000";
const SLOT: &str = "multipart/form-data;boundary=uuid-00000000-0000-0000-0000-000000000000";
const HEADER: [&str; 9] = [
    "page",
    "region",
    "initialized_bytes",
    "reads",
    "bytes_read",
    "writes",
    "bytes_written",
    "distinct_bytes_written",
    "rewrite_ratio",
];

/// The artifact at `rel` (relative to the crate root), built with `make rel` when missing.
fn artifact(rel: &str) -> PathBuf {
    static MAKE: Mutex<()> = Mutex::new(());
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let path = root.join(rel);
    let _guard = MAKE.lock().unwrap_or_else(|e| e.into_inner());
    if !path.exists() {
        let status = Command::new("make").arg(rel).current_dir(root).status().expect("make runs");
        assert!(status.success(), "make {rel} failed");
    }
    path
}

fn read(rel: &str) -> Vec<u8> {
    std::fs::read(artifact(rel)).unwrap()
}

// ------------------------------------------------------------------ requests (A.10)

/// One form field as `qip run -F` sends it: `(name, filename for @-files, body)`.
type Field<'a> = (&'a str, Option<&'a str>, &'a [u8]);

/// The A.10 body for `fields` with boundary `uuid-<uuid>`, written out here independently of
/// the library's builder.
fn body(uuid: &str, fields: &[Field<'_>]) -> Vec<u8> {
    let mut out = Vec::new();
    for (name, filename, bytes) in fields {
        out.extend_from_slice(
            format!("--uuid-{uuid}\r\nContent-Disposition: form-data; name=\"{name}\"").as_bytes(),
        );
        if let Some(f) = filename {
            out.extend_from_slice(
                format!("; filename=\"{f}\"\r\nContent-Type: application/octet-stream").as_bytes(),
            );
        }
        out.extend_from_slice(b"\r\n\r\n");
        out.extend_from_slice(bytes);
        out.extend_from_slice(b"\r\n");
    }
    out.extend_from_slice(format!("--uuid-{uuid}--\r\n").as_bytes());
    out
}

/// The request `qip-memory page-writes TARGET --input INPUT` sends: `-F component=@TARGET
/// -F input=INPUT`.
fn request(uuid: &str, target: &str, input: &str) -> Vec<u8> {
    let module = read(target);
    let filename = Path::new(target).file_name().unwrap().to_str().unwrap();
    body(uuid, &[("component", Some(filename), &module), ("input", None, input.as_bytes())])
}

/// Where the component part's body starts and ends in a [`request`].
fn component_part(target: &str) -> std::ops::Range<usize> {
    let filename = Path::new(target).file_name().unwrap().to_str().unwrap();
    let start = format!(
        "--uuid-{ZERO_UUID}\r\nContent-Disposition: form-data; name=\"component\"; filename=\"{filename}\"\r\n\
         Content-Type: application/octet-stream\r\n\r\n"
    )
    .len();
    start..start + read(target).len()
}

// ------------------------------------------------------------------ the component on wasmtime

fn compiled() -> &'static (Engine, Module) {
    static C: OnceLock<(Engine, Module)> = OnceLock::new();
    C.get_or_init(|| {
        let engine = Engine::default();
        let module = Module::new(&engine, read(COMPONENT)).expect("wasmtime compiles the component");
        (engine, module)
    })
}

/// What a render returned, decoded per A.5 with the component's 10 failure modes.
#[derive(Debug, PartialEq, Eq)]
enum Rendered {
    Csv(String),
    Rejected { offset: u32, mode: u32 },
}

/// One instance of the component, reused across renders like a browser host would.
struct Tool {
    store: Store<()>,
    memory: Memory,
    render: TypedFunc<i32, i64>,
    set_budget: TypedFunc<i32, i32>,
    input_ptr: usize,
    input_cap: usize,
    slot_ptr: usize,
}

impl Tool {
    fn new() -> Tool {
        let (engine, module) = compiled();
        let mut store = Store::new(engine, ());
        let instance = Instance::new(&mut store, module, &[]).unwrap();
        let memory = instance.get_memory(&mut store, "memory").unwrap();
        let mut getter = |name: &str| -> usize {
            let f = instance.get_typed_func::<(), i32>(&mut store, name).unwrap();
            f.call(&mut store, ()).unwrap() as u32 as usize
        };
        let (input_ptr, input_cap, slot_ptr) =
            (getter("input_ptr"), getter("input_bytes_cap"), getter("input_content_type_ptr"));
        Tool {
            render: instance.get_typed_func(&mut store, "render").unwrap(),
            set_budget: instance.get_typed_func(&mut store, "uniform_set_instruction_budget").unwrap(),
            store,
            memory,
            input_ptr,
            input_cap,
            slot_ptr,
        }
    }

    /// `uniform_set_instruction_budget(v)`: the applied value (unsigned).
    fn budget(&mut self, v: u32) -> u32 {
        self.set_budget.call(&mut self.store, v as i32).unwrap() as u32
    }

    /// Overwrites the 36 UUID bytes of the input slot (A.6.1: at `ptr + 34`).
    fn set_uuid(&mut self, uuid: &str) {
        assert_eq!(uuid.len(), 36);
        let at = self.slot_ptr + 34;
        self.memory.data_mut(&mut self.store)[at..at + 36].copy_from_slice(uuid.as_bytes());
    }

    fn slot(&self) -> Vec<u8> {
        self.memory.data(&self.store)[self.slot_ptr..self.slot_ptr + 70].to_vec()
    }

    fn render(&mut self, request: &[u8]) -> Rendered {
        assert!(request.len() <= self.input_cap);
        let at = self.input_ptr;
        self.memory.data_mut(&mut self.store)[at..at + request.len()].copy_from_slice(request);
        let r = self.render.call(&mut self.store, request.len() as i32).unwrap() as u64;
        if r >> 63 == 1 {
            assert_eq!((r >> 32) & 0x7fff_ffff, 0, "reserved bits of a rejection");
            let detail = r as u32;
            return Rendered::Rejected { offset: detail / 10, mode: detail % 10 };
        }
        let (ptr, size) = (((r >> 32) & 0x7fff_ffff) as usize, (r & 0xffff_ffff) as usize);
        let bytes = self.memory.data(&self.store)[ptr..ptr + size].to_vec();
        Rendered::Csv(String::from_utf8(bytes).expect("output_utf8_cap promises UTF-8"))
    }
}

/// Renders `request` on a fresh instance with `budget` set first.
fn component_run(request: &[u8], budget: u32) -> Rendered {
    let mut tool = Tool::new();
    assert_eq!(tool.budget(budget), budget);
    tool.render(request)
}

// ------------------------------------------------------------------ the CLI

fn qip_memory(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_qip-memory")).args(args).output().unwrap()
}

/// `qip-memory page-writes` for the same request, decoded like [`Rendered`] (the CSV without
/// the newline the CLI adds).
fn cli_run(target: &str, input: &str, budget: u32) -> Rendered {
    let path = artifact(target);
    let budget = budget.to_string();
    let o = qip_memory(&[
        "page-writes",
        path.to_str().unwrap(),
        "--input",
        input,
        "--instruction-budget",
        &budget,
    ]);
    let (stdout, stderr) = (String::from_utf8(o.stdout).unwrap(), String::from_utf8(o.stderr).unwrap());
    if o.status.success() {
        assert!(stderr.is_empty(), "{stderr}");
        let csv = stdout.strip_suffix('\n').expect("one newline after the CSV");
        return Rendered::Csv(csv.to_owned());
    }
    assert_eq!(o.status.code(), Some(1));
    assert!(stdout.is_empty());
    let line = stderr.strip_suffix('\n').unwrap();
    assert!(!line.contains('\n'), "one line: {stderr}");
    let rest = line.strip_prefix("qip-memory: rejected at request offset ").expect(line);
    let (offset, rest) = rest.split_once(" (mode ").unwrap();
    let (mode, _) = rest.split_once("): ").unwrap();
    Rendered::Rejected { offset: offset.parse().unwrap(), mode: mode.parse().unwrap() }
}

const BIG_BUDGET: u32 = 10_000_000;

/// Inputs per target: successes and target rejections (mode 6).
const CASES: &[(&str, &str)] = &[
    (QR, "https://example.com"),
    (QR, "https://example.org/a/longer/path?q=1&r=2"),
    (QR, "# comment only\n"),
    (QR, "https://example.com\nhttps://example.org\n"),
    (MARKDOWN, "# Title\n\nSome *emphasis*, `code` and a [link](https://example.com).\n"),
    (MARKDOWN, "- one\n- two\n\n> quote\n"),
    (MARKDOWN, ""),
];

#[test]
fn cli_output_is_byte_identical_to_the_component() {
    for &(target, input) in CASES {
        let expected = component_run(&request(ZERO_UUID, target, input), BIG_BUDGET);
        assert_eq!(cli_run(target, input, BIG_BUDGET), expected, "{target} {input:?}");
    }
    // The QR target finds no URL in a comment-only input and rejects at its end (offset 15,
    // the input's length): mode 6 at the input part's start + 15.
    let req = request(ZERO_UUID, QR, "# comment only\n");
    let input_start = req.len() - format!("# comment only\n\r\n--uuid-{ZERO_UUID}--\r\n").len();
    assert_eq!(
        component_run(&req, BIG_BUDGET),
        Rendered::Rejected { offset: (input_start + 15) as u32, mode: 6 }
    );
    // A second URL line: the target's offset is 20, the second URL's first byte.
    let input = "https://example.com\nhttps://example.org\n";
    let req = request(ZERO_UUID, QR, input);
    let input_start = req.len() - format!("{input}\r\n--uuid-{ZERO_UUID}--\r\n").len();
    assert_eq!(
        component_run(&req, BIG_BUDGET),
        Rendered::Rejected { offset: (input_start + 20) as u32, mode: 6 }
    );
}

#[test]
fn run_host_matches_the_component() {
    // `qip-memory run` (the CLI's wasmtime host) on the demo's request: the component's CSV
    // plus the newline `qip run` adds to UTF-8 output.
    let target = artifact(QR);
    let Rendered::Csv(csv) = component_run(&request(ZERO_UUID, QR, "https://example.com"), BIG_BUDGET) else {
        panic!("the demo request succeeds")
    };
    let component = artifact(COMPONENT);
    let o = qip_memory(&[
        "run",
        "-F",
        &format!("component=@{}", target.display()),
        "-F",
        "input=https://example.com",
        component.to_str().unwrap(),
        "-u",
        "instruction_budget=10000000",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(String::from_utf8(o.stdout).unwrap(), format!("{csv}\n"));
    // Without the budget uniform the default 1,000,000 runs out: one line with the offset,
    // the mode and the mode's sentence; exit 1.
    let o = qip_memory(&[
        "run",
        "-F",
        &format!("component=@{}", target.display()),
        "-F",
        "input=https://example.com",
        component.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(1));
    let e = String::from_utf8(o.stderr).unwrap();
    let prefix = format!("qip-memory: {} rejected input at offset ", component.display());
    let rest = e.strip_prefix(&prefix).expect(&e);
    let (offset, rest) = rest.split_once(' ').unwrap();
    assert!(component_part(QR).contains(&offset.parse::<usize>().unwrap()), "{e}");
    assert_eq!(
        rest,
        "(mode 5): the instruction budget was exhausted; the offset points into the component \
         part, at the next instruction\n"
    );
}

// ------------------------------------------------------------------ the artifact's shape

/// A module read with wasmparser: what the Content checks need.
#[derive(Default)]
struct Shape {
    imports: u32,
    /// `(initial, maximum)` pages of each defined memory.
    memories: Vec<(u64, Option<u64>)>,
    /// `(params, results)` of each type.
    types: Vec<(Vec<wasmparser::ValType>, Vec<wasmparser::ValType>)>,
    /// Type index of each defined function.
    funcs: Vec<u32>,
    /// `(mutable, i32.const init)` of each global.
    globals: Vec<(bool, Option<i32>)>,
    exports: Vec<(String, wasmparser::ExternalKind, u32)>,
    /// Active segments of memory 0: `(offset, bytes)`.
    data: Vec<(u64, Vec<u8>)>,
    /// The operators of each body, without their payloads, except constants: `i32.const C` as
    /// `Const(C)`, `global.get G` as `Global(G)`.
    bodies: Vec<Vec<Op>>,
    memory_grow: usize,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Op {
    Const(i32),
    Global(u32),
    End,
    Other,
}

fn const_i32(expr: &wasmparser::ConstExpr<'_>) -> Option<i32> {
    let mut ops = expr.get_operators_reader();
    match (ops.read().ok()?, ops.read().ok()?) {
        (wasmparser::Operator::I32Const { value }, wasmparser::Operator::End) => Some(value),
        _ => None,
    }
}

fn shape(bytes: &[u8]) -> Shape {
    use wasmparser::{DataKind, Operator, Payload};
    let mut s = Shape::default();
    for payload in wasmparser::Parser::new(0).parse_all(bytes) {
        match payload.unwrap() {
            Payload::ImportSection(r) => s.imports += r.count(),
            Payload::TypeSection(r) => {
                for t in r.into_iter_err_on_gc_types() {
                    let t = t.unwrap();
                    s.types.push((t.params().to_vec(), t.results().to_vec()));
                }
            }
            Payload::FunctionSection(r) => s.funcs.extend(r.into_iter().map(Result::unwrap)),
            Payload::MemorySection(r) => {
                s.memories.extend(r.into_iter().map(|m| m.unwrap()).map(|m| (m.initial, m.maximum)))
            }
            Payload::GlobalSection(r) => {
                for g in r {
                    let g = g.unwrap();
                    s.globals.push((g.ty.mutable, const_i32(&g.init_expr)));
                }
            }
            Payload::ExportSection(r) => {
                for e in r {
                    let e = e.unwrap();
                    s.exports.push((e.name.to_owned(), e.kind, e.index));
                }
            }
            Payload::DataSection(r) => {
                for d in r {
                    let d = d.unwrap();
                    if let DataKind::Active { memory_index: 0, offset_expr } = d.kind {
                        let at = const_i32(&offset_expr).expect("constant data offsets") as u32;
                        s.data.push((u64::from(at), d.data.to_vec()));
                    }
                }
            }
            Payload::CodeSectionEntry(body) => {
                let mut ops = body.get_operators_reader().unwrap();
                let mut list = Vec::new();
                while !ops.eof() {
                    list.push(match ops.read().unwrap() {
                        Operator::I32Const { value } => Op::Const(value),
                        Operator::GlobalGet { global_index } => Op::Global(global_index),
                        Operator::End => Op::End,
                        Operator::MemoryGrow { .. } => {
                            s.memory_grow += 1;
                            Op::Other
                        }
                        _ => Op::Other,
                    });
                }
                s.bodies.push(list);
            }
            _ => {}
        }
    }
    s
}

impl Shape {
    fn func(&self, name: &str) -> Option<u32> {
        self.exports.iter().find(|(n, k, _)| n == name && *k == wasmparser::ExternalKind::Func).map(|e| e.2)
    }

    fn signature(&self, func: u32) -> &(Vec<wasmparser::ValType>, Vec<wasmparser::ValType>) {
        &self.types[self.funcs[func as usize] as usize]
    }

    /// The value of static getter `name` (A.3): `() -> i32` whose body is exactly `i32.const
    /// C` or `global.get` of an immutable global initialised by `i32.const`, then `end`.
    fn getter(&self, name: &str) -> Option<u32> {
        let f = self.func(name)?;
        assert_eq!(self.signature(f), &(vec![], vec![wasmparser::ValType::I32]), "{name} is () -> i32");
        let value = match self.bodies[f as usize].as_slice() {
            [Op::Const(c), Op::End] => *c,
            [Op::Global(g), Op::End] => match self.globals[*g as usize] {
                (false, Some(c)) => c,
                other => panic!("{name}: global {g} is not an immutable i32 constant: {other:?}"),
            },
            other => panic!("{name} is not a static getter: {other:?}"),
        };
        Some(value as u32)
    }

    /// The bytes `[ptr, ptr + len)` when one active data segment holds all of them.
    fn data_bytes(&self, ptr: u32, len: u32) -> Option<&[u8]> {
        let (ptr, len) = (u64::from(ptr), u64::from(len));
        self.data.iter().find_map(|(at, bytes)| {
            let end = at + bytes.len() as u64;
            (*at <= ptr && ptr + len <= end).then(|| &bytes[(ptr - at) as usize..(ptr + len - at) as usize])
        })
    }
}

/// Checks every Content property that holds for all our fixed-memory modules and returns the
/// shape: no imports, one memory with min == max, no `memory.grow`, static getters, the input
/// region inside the initial memory and disjoint from every active data segment.
fn check_common(bytes: &[u8]) -> Shape {
    let s = shape(bytes);
    assert_eq!(s.imports, 0, "no imports");
    assert_eq!(s.memories.len(), 1, "one memory");
    let (initial, maximum) = s.memories[0];
    assert_eq!(maximum, Some(initial), "memory min == max");
    assert_eq!(s.memory_grow, 0, "no memory.grow");
    assert!(
        s.exports.iter().any(|(n, k, i)| n == "memory" && *k == wasmparser::ExternalKind::Memory && *i == 0)
    );
    let render = s.func("render").expect("render");
    use wasmparser::ValType::{I32, I64};
    assert_eq!(s.signature(render), &(vec![I32], vec![I64]));
    for name in [
        "input_ptr",
        "input_utf8_cap",
        "input_bytes_cap",
        "output_utf8_cap",
        "output_bytes_cap",
        "input_content_type_ptr",
        "input_content_type_size",
        "output_content_type_ptr",
        "output_content_type_size",
        "failure_modes_per_input_offset",
    ] {
        s.getter(name);
    }
    let ptr = u64::from(s.getter("input_ptr").expect("input_ptr"));
    let cap = u64::from(s.getter("input_bytes_cap").or(s.getter("input_utf8_cap")).expect("a capacity"));
    assert!(ptr + cap <= initial * 65536, "input region inside the initial memory");
    for (at, bytes) in &s.data {
        let end = at + bytes.len() as u64;
        assert!(!(ptr < end && *at < ptr + cap), "input [{ptr}, {}) overlaps data [{at}, {end})", ptr + cap);
    }
    s
}

#[test]
fn component_artifact_shape() {
    let s = check_common(&read(COMPONENT));
    // Bytes input of 1 MiB + 8 MiB + 32 KiB = 9,469,952 bytes; UTF-8 output.
    assert_eq!(s.getter("input_bytes_cap"), Some(9_469_952));
    assert_eq!(s.getter("input_utf8_cap"), None);
    assert!(s.getter("output_utf8_cap").is_some());
    assert_eq!(s.getter("output_bytes_cap"), None);
    assert_eq!(s.getter("failure_modes_per_input_offset"), Some(10));
    // Content types: the 70-byte multipart slot in, exactly `text/csv` out, both inside one
    // active data segment.
    let (ptr, size) =
        (s.getter("input_content_type_ptr").unwrap(), s.getter("input_content_type_size").unwrap());
    assert_eq!(size, 70);
    assert_eq!(s.data_bytes(ptr, size), Some(SLOT.as_bytes()));
    let (ptr, size) =
        (s.getter("output_content_type_ptr").unwrap(), s.getter("output_content_type_size").unwrap());
    assert_eq!(s.data_bytes(ptr, size), Some(&b"text/csv"[..]));
    // The own uniform: uniform_set_instruction_budget(i32) -> i32.
    use wasmparser::ValType::I32;
    let setter = s.func("uniform_set_instruction_budget").expect("the budget uniform");
    assert_eq!(s.signature(setter), &(vec![I32], vec![I32]));
    let uniforms: Vec<&str> =
        s.exports.iter().filter_map(|(n, _, _)| n.strip_prefix("uniform_set_")).collect();
    assert_eq!(uniforms, ["instruction_budget"]);
}

#[test]
fn target_artifact_shapes() {
    for target in [QR, MARKDOWN] {
        let s = check_common(&read(target));
        assert_eq!(s.getter("failure_modes_per_input_offset"), Some(1), "{target}");
        assert!(s.getter("input_utf8_cap").is_some(), "{target}");
    }
}

// ------------------------------------------------------------------ slot and budget

#[test]
fn host_rewritten_boundary_is_honoured() {
    let uuid = "3f2b8c1a-9d4e-4b7a-8c6d-5e4f3a2b1c0d";
    let input = "# Slot\n\ntext\n";
    let Rendered::Csv(expected) = component_run(&request(ZERO_UUID, MARKDOWN, input), BIG_BUDGET) else {
        panic!("the default request succeeds")
    };
    let mut tool = Tool::new();
    assert_eq!(tool.slot(), SLOT.as_bytes());
    tool.set_uuid(uuid);
    // A body with the new boundary is accepted, and the page table is the same (the request's
    // layout does not reach the target's memory).
    assert_eq!(tool.render(&request(uuid, MARKDOWN, input)), Rendered::Csv(expected.clone()));
    // The old boundary: the body does not start with `--uuid-3f2b…`: mode 0 at offset 0.
    assert_eq!(tool.render(&request(ZERO_UUID, MARKDOWN, input)), Rendered::Rejected { offset: 0, mode: 0 });
    // The component never writes the slot.
    assert_eq!(tool.slot(), format!("multipart/form-data;boundary=uuid-{uuid}").as_bytes());
    // Put back, the default works again on the same instance.
    tool.set_uuid(ZERO_UUID);
    assert_eq!(tool.render(&request(ZERO_UUID, MARKDOWN, input)), Rendered::Csv(expected));
    // An uppercase UUID is not canonical: the slot is refused (mode 0, offset 0).
    tool.set_uuid("3F2B8C1A-9D4E-4B7A-8C6D-5E4F3A2B1C0D");
    assert_eq!(
        tool.render(&request("3F2B8C1A-9D4E-4B7A-8C6D-5E4F3A2B1C0D", MARKDOWN, input)),
        Rendered::Rejected { offset: 0, mode: 0 }
    );
}

#[test]
fn instruction_budget_clamps_and_resets() {
    let mut tool = Tool::new();
    // Clamped to 1..=1,000,000,000; the i32 is unsigned (0xffff_ffff is 4,294,967,295).
    assert_eq!(tool.budget(0), 1);
    assert_eq!(tool.budget(1), 1);
    assert_eq!(tool.budget(1_000_000_000), 1_000_000_000);
    assert_eq!(tool.budget(2_000_000_000), 1_000_000_000);
    assert_eq!(tool.budget(u32::MAX), 1_000_000_000);
    assert_eq!(tool.budget(10_000_000), 10_000_000);

    // The QR run takes more than the default 1,000,000 instructions (about 8.3 million).
    let req = request(ZERO_UUID, QR, "https://example.com");
    let part = component_part(QR);
    let exhausted = |r: Rendered| match r {
        Rendered::Rejected { offset, mode: 5 } => assert!(part.contains(&(offset as usize)), "{offset}"),
        other => panic!("expected mode 5, got {other:?}"),
    };
    let mut tool = Tool::new();
    assert_eq!(tool.budget(BIG_BUDGET), BIG_BUDGET);
    assert!(matches!(tool.render(&req), Rendered::Csv(_)));
    // Reset after a success: the next render has the default budget again.
    exhausted(tool.render(&req));
    // Reset after a rejection: a large budget spent on a malformed request (mode 0 at 0) ...
    assert_eq!(tool.budget(BIG_BUDGET), BIG_BUDGET);
    assert_eq!(tool.render(b"not multipart"), Rendered::Rejected { offset: 0, mode: 0 });
    // ... is gone for the next render.
    exhausted(tool.render(&req));
    // 0 means 1 instruction, not "unlimited".
    tool.budget(0);
    exhausted(tool.render(&req));
    assert_eq!(tool.budget(BIG_BUDGET), BIG_BUDGET);
    assert!(matches!(tool.render(&req), Rendered::Csv(_)));
}

// ------------------------------------------------------------------ the CSV read back

/// `a / b` rounded half away from zero to two decimals, as text.
fn ratio(a: u64, b: u64) -> String {
    let hundredths = (200 * a + b) / (2 * b);
    format!("{}.{:02}", hundredths / 100, hundredths % 100)
}

#[test]
fn csv_reads_back_consistently() {
    for &(target, input) in CASES {
        let Rendered::Csv(csv) = component_run(&request(ZERO_UUID, target, input), BIG_BUDGET) else {
            continue;
        };
        assert!(!csv.ends_with('\n') && !csv.contains('\r'), "LF line ends, no trailing blank line");
        let mut reader = csv::ReaderBuilder::new().from_reader(csv.as_bytes());
        assert_eq!(reader.headers().unwrap().iter().collect::<Vec<_>>(), HEADER);
        let mut last_page = None;
        let mut regions = Vec::new();
        for row in reader.records() {
            let row = row.unwrap();
            assert_eq!(row.len(), 9);
            let n = |i: usize| -> u64 { row[i].parse().unwrap_or_else(|_| panic!("{target}: {row:?}")) };
            let (page, init, reads, bytes_read, writes, written, distinct) =
                (n(0), n(2), n(3), n(4), n(5), n(6), n(7));
            assert!(last_page < Some(page), "ascending pages");
            last_page = Some(page);
            assert!(init > 0 || reads > 0 || writes > 0, "only pages with something to report");
            assert!(init <= 65536 && distinct <= 65536);
            assert!(distinct <= written, "{row:?}");
            assert_eq!(reads == 0, bytes_read == 0, "{row:?}");
            assert!(bytes_read >= reads, "a read touches at least one byte of the page");
            assert_eq!(writes == 0, written == 0, "{row:?}");
            assert!(written >= writes);
            assert_eq!(distinct == 0, written == 0);
            let expected_ratio = if distinct == 0 { String::new() } else { ratio(written, distinct) };
            assert_eq!(&row[8], expected_ratio, "{row:?}");
            // Labels in the order data, input, stack, output, or `other`.
            let labels: Vec<&str> = row[1].split('+').collect();
            let order = ["data", "input", "stack", "output"];
            if labels != ["other"] {
                let idx: Vec<usize> =
                    labels.iter().map(|l| order.iter().position(|o| o == l).unwrap()).collect();
                assert!(idx.windows(2).all(|w| w[0] < w[1]), "{row:?}");
            }
            regions.push((page, row[1].to_owned(), init));
        }
        // Both targets: the stack below 1 MiB (pages 0–15), data from 1 MiB (page 16), an input
        // region holding the input bytes, and an output.
        let has = |label: &str| regions.iter().any(|(_, r, _)| r.split('+').any(|l| l == label));
        assert!(has("stack") && has("data"), "{target}: {regions:?}");
        // An empty Markdown input gives an empty HTML output: no output range.
        assert_eq!(has("output"), !input.is_empty(), "{target}: {regions:?}");
        assert!(regions.iter().filter(|(p, r, _)| r.contains("stack") && *p >= 16).count() == 0);
        assert!(regions.iter().any(|(p, r, _)| r.starts_with("data") && *p == 16), "{regions:?}");
        if !input.is_empty() {
            let init: u64 = regions.iter().filter(|(_, r, _)| r.contains("input")).map(|(_, _, i)| i).sum();
            assert!(init >= input.len() as u64, "{target}: input bytes count as initialized");
        }
    }
}

#[test]
fn ratio_rounds_half_away_from_zero() {
    assert_eq!(ratio(1, 1), "1.00");
    assert_eq!(ratio(2, 3), "0.67");
    assert_eq!(ratio(1, 8), "0.13"); // 0.125 rounds up
    assert_eq!(ratio(3461, 4), "865.25");
    assert_eq!(ratio(5, 3), "1.67");
}
