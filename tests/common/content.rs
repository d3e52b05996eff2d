//! Content components on wasmtime: building and reading the artifacts, the `-F` request body
//! written out independently of the library, and the Content checks every fixed-memory
//! module of ours passes. Shared by the component tests.
#![allow(dead_code)]

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Mutex, OnceLock};

use wasmtime::{Engine, Instance, Memory, Module, Store, TypedFunc};

/// The artifact at `rel` (relative to the crate root), built with `make rel` when missing.
pub fn artifact(rel: &str) -> PathBuf {
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

pub fn read(rel: &str) -> Vec<u8> {
    std::fs::read(artifact(rel)).unwrap()
}

// ------------------------------------------------------------------ requests

/// One form field as `qip run -F` sends it: `(name, filename for @-files, body)`.
pub type Field<'a> = (&'a str, Option<&'a str>, &'a [u8]);

/// The `-F` body (docs/request.md) for `fields` with boundary `uuid-<uuid>`, written out here
/// independently of the library's builder.
pub fn body(uuid: &str, fields: &[Field<'_>]) -> Vec<u8> {
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

// ------------------------------------------------------------------ a component on wasmtime

/// The compiled module of the artifact at `rel`, compiled once per test binary.
fn compiled(rel: &str) -> (Engine, Module) {
    static C: OnceLock<Mutex<HashMap<String, (Engine, Module)>>> = OnceLock::new();
    let mut map = C.get_or_init(Default::default).lock().unwrap_or_else(|e| e.into_inner());
    map.entry(rel.to_owned())
        .or_insert_with(|| {
            let engine = Engine::default();
            let module = Module::new(&engine, read(rel)).expect("wasmtime compiles the component");
            (engine, module)
        })
        .clone()
}

/// One instance of a Content component, reused across renders like a browser host would.
pub struct Component {
    store: Store<()>,
    instance: Instance,
    memory: Memory,
    render: TypedFunc<i32, i64>,
    input_ptr: usize,
    input_cap: usize,
    slot_ptr: usize,
    failure_modes: u32,
}

impl Component {
    /// A fresh instance of the artifact at `rel`.
    pub fn new(rel: &str) -> Component {
        let (engine, module) = compiled(rel);
        let mut store = Store::new(&engine, ());
        let instance = Instance::new(&mut store, &module, &[]).unwrap();
        let memory = instance.get_memory(&mut store, "memory").unwrap();
        let mut getter = |name: &str| -> usize {
            let f = instance.get_typed_func::<(), i32>(&mut store, name).unwrap();
            f.call(&mut store, ()).unwrap() as u32 as usize
        };
        let (input_ptr, input_cap, slot_ptr, failure_modes) = (
            getter("input_ptr"),
            getter("input_bytes_cap"),
            getter("input_content_type_ptr"),
            getter("failure_modes_per_input_offset") as u32,
        );
        Component {
            render: instance.get_typed_func(&mut store, "render").unwrap(),
            store,
            instance,
            memory,
            input_ptr,
            input_cap,
            slot_ptr,
            failure_modes,
        }
    }

    /// `uniform_set_<name>(v)`: the applied value.
    pub fn uniform(&mut self, name: &str, v: i32) -> i32 {
        let f = self
            .instance
            .get_typed_func::<i32, i32>(&mut self.store, &format!("uniform_set_{name}"))
            .unwrap_or_else(|e| panic!("uniform {name}: {e}"));
        f.call(&mut self.store, v).unwrap()
    }

    /// Overwrites the 36 UUID bytes of the input slot (at `ptr + 34`).
    pub fn set_uuid(&mut self, uuid: &str) {
        assert_eq!(uuid.len(), 36);
        let at = self.slot_ptr + 34;
        self.memory.data_mut(&mut self.store)[at..at + 36].copy_from_slice(uuid.as_bytes());
    }

    /// The 70 bytes of the input slot.
    pub fn slot(&self) -> Vec<u8> {
        self.memory.data(&self.store)[self.slot_ptr..self.slot_ptr + 70].to_vec()
    }

    /// Writes `request` to the input region and renders it: the output bytes, or the rejection
    /// decoded (docs/content.md) as `(offset, mode)`.
    pub fn render(&mut self, request: &[u8]) -> Result<Vec<u8>, (u32, u32)> {
        assert!(request.len() <= self.input_cap);
        let at = self.input_ptr;
        self.memory.data_mut(&mut self.store)[at..at + request.len()].copy_from_slice(request);
        let r = self.render.call(&mut self.store, request.len() as i32).unwrap() as u64;
        if r >> 63 == 1 {
            assert_eq!((r >> 32) & 0x7fff_ffff, 0, "reserved bits of a rejection");
            let detail = r as u32;
            return Err((detail / self.failure_modes, detail % self.failure_modes));
        }
        let (ptr, size) = (((r >> 32) & 0x7fff_ffff) as usize, (r & 0xffff_ffff) as usize);
        Ok(self.memory.data(&self.store)[ptr..ptr + size].to_vec())
    }
}

// ------------------------------------------------------------------ the artifact's shape

/// A module read with wasmparser: what the Content checks need.
#[derive(Default)]
pub struct Shape {
    pub imports: u32,
    /// `(initial, maximum)` pages of each defined memory.
    pub memories: Vec<(u64, Option<u64>)>,
    /// `(params, results)` of each type.
    pub types: Vec<(Vec<wasmparser::ValType>, Vec<wasmparser::ValType>)>,
    /// Type index of each defined function.
    pub funcs: Vec<u32>,
    /// `(mutable, i32.const init)` of each global.
    pub globals: Vec<(bool, Option<i32>)>,
    pub exports: Vec<(String, wasmparser::ExternalKind, u32)>,
    /// Active segments of memory 0: `(offset, bytes)`.
    pub data: Vec<(u64, Vec<u8>)>,
    /// The operators of each body, without their payloads, except constants: `i32.const C` as
    /// `Const(C)`, `global.get G` as `Global(G)`.
    pub bodies: Vec<Vec<Op>>,
    pub memory_grow: usize,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
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

pub fn shape(bytes: &[u8]) -> Shape {
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
    pub fn func(&self, name: &str) -> Option<u32> {
        self.exports.iter().find(|(n, k, _)| n == name && *k == wasmparser::ExternalKind::Func).map(|e| e.2)
    }

    pub fn signature(&self, func: u32) -> &(Vec<wasmparser::ValType>, Vec<wasmparser::ValType>) {
        &self.types[self.funcs[func as usize] as usize]
    }

    /// The value of static getter `name`: `() -> i32` whose body is exactly `i32.const
    /// C` or `global.get` of an immutable global initialised by `i32.const`, then `end`.
    pub fn getter(&self, name: &str) -> Option<u32> {
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
    pub fn data_bytes(&self, ptr: u32, len: u32) -> Option<&[u8]> {
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
pub fn check_common(bytes: &[u8]) -> Shape {
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
