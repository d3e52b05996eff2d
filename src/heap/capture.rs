//! Capturing heap dumps (docs/heap.md, "Capture"): an AssemblyScript program runs in our
//! interpreter with the host functions such programs import, and every call of
//! `MemoryDump.dumpMemoryRegion` becomes a version-2 dump of its memory and its mutable i32
//! globals, handed to the caller to store.
//!
//! Host functions provided (any other import is refused before the run):
//!
//! | import | type | what it does |
//! | --- | --- | --- |
//! | `env.abort` | `(message, file, line, column)` | ends the run with the decoded message and place |
//! | `env.trace` | `(message, n, a0 … a4: f64)` | reports `trace: message a0, …, a(n−1)` |
//! | `env.seed` | `() → f64` | a fixed seed, so runs repeat exactly |
//! | `MemoryDump.dumpMemoryRegion` | `(pathPtr, pathLen)` | WARPO's convention: a dump at the guest's UTF-8 path |
//! | `MemoryDump.dumpMemoryRegion` | `(labelPtr, labelByteLength, dataEnd, heapBase, stackPointer)` | our fixtures' convention: a UTF-16 label and the region values |
//!
//! The dump (docs/heap.md, "Dump format", as [`super::dump::write_dump`] writes it): the
//! header with `__data_end`, `__heap_base` and `__stack_pointer` (passed by the guest, or read
//! from the module's globals of those names), the values of every mutable i32 global in
//! index order, then the whole linear memory.

use alloc::boxed::Box;
use alloc::format;
use alloc::rc::Rc;
use alloc::string::{String, ToString};
use alloc::sync::Arc;
use alloc::vec::Vec;
use core::cell::RefCell;

use super::dump::write_dump;
use crate::tools::explain::function_name;
use crate::wasm::{
    Caller, ExecError, Extern, ExternalKind, ImportType, Limits, Module, Names, Store, TrapKind, ValType,
    Value,
};

/// The seed `env.seed` returns (AssemblyScript's `Math.random` seeds itself from it).
pub const SEED: f64 = 12345.0;

/// How a dump was asked for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DumpRequest {
    /// WARPO's `dumpMemoryRegion(pathPtr, pathLen)`: the guest's path, checked by
    /// [`check_guest_path`].
    Path(String),
    /// Our fixtures' `dumpMemoryRegion(labelPtr, labelByteLength, …)`: the `n`-th dump
    /// (from 1) with its label.
    Label {
        /// 1 for the first dump of the run.
        n: u32,
        /// The guest's label.
        label: String,
    },
    /// `--dump-at-exit`: the dump after the entry function returned; `n` continues the count.
    AtExit {
        /// The dump's number in the run.
        n: u32,
    },
}

/// One captured dump.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CapturedDump {
    /// What asked for it.
    pub request: DumpRequest,
    /// The dump file's bytes.
    pub bytes: Vec<u8>,
    /// `__data_end`, `__heap_base`, `__stack_pointer` as written in the header.
    pub region: [u32; 3],
    /// How many mutable i32 global values it holds.
    pub globals: u32,
    /// Length of the memory image, in bytes.
    pub memory_len: usize,
}

/// What to run.
#[derive(Debug, Clone, Default)]
pub struct CaptureOptions {
    /// The exported function to call: `None` for `_start` if exported, else `main`.
    pub invoke: Option<String>,
    /// Its arguments.
    pub args: Vec<Value>,
    /// Also dump once after the function returns.
    pub dump_at_exit: bool,
    /// Instruction budget (`None`: unlimited).
    pub budget: Option<u64>,
}

/// Why a capture stopped.
#[derive(Debug, Clone, PartialEq)]
pub enum CaptureError {
    /// The module does not load or instantiate (the interpreter's message).
    Load(String),
    /// An import no host function here provides, or one with an unexpected type.
    Import {
        /// `module.name`.
        name: String,
        /// What is wrong.
        reason: &'static str,
    },
    /// No function to call.
    NoEntry(String),
    /// The arguments do not fit the function: its name, then the mismatch.
    Signature(String),
    /// The program called `env.abort`.
    Abort {
        /// The decoded message.
        message: String,
        /// The decoded file name.
        file: String,
        /// Line.
        line: u32,
        /// Column.
        column: u32,
    },
    /// A dump request the host refused (a bad path, a label that is not text, values that
    /// disagree with the module's globals) or could not store.
    Dump(String),
    /// A trap or the instruction budget, with the interpreter's message.
    Exec(String),
}

impl core::fmt::Display for CaptureError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            CaptureError::Load(m) | CaptureError::Dump(m) | CaptureError::Exec(m) => f.write_str(m),
            CaptureError::Import { name, reason } => write!(f, "import {name}: {reason}"),
            CaptureError::NoEntry(m) => write!(f, "no function to run: {m}"),
            CaptureError::Signature(m) => write!(f, "arguments of {m}"),
            CaptureError::Abort { message, file, line, column } => {
                write!(f, "abort: {message} at {file}:{line}:{column}")
            }
        }
    }
}

/// Checks a guest-given dump path: relative, no `..` component, not empty, no control
/// character. The caller resolves it inside its dump directory (and keeps symbolic links
/// from leading out of it).
///
/// # Errors
/// A sentence naming the path and the rule it breaks.
pub fn check_guest_path(path: &str) -> Result<(), String> {
    if path.is_empty() {
        return Err("the guest asked for a dump at an empty path".into());
    }
    let absolute = path.starts_with('/') || path.starts_with('\\') || path.as_bytes().get(1) == Some(&b':');
    if absolute {
        return Err(format!(
            "the guest asked for a dump at the absolute path {path:?}: paths must be relative to the dump directory"
        ));
    }
    if path.chars().any(char::is_control) {
        return Err(format!(
            "the guest asked for a dump at {path:?}: a path may not hold control characters"
        ));
    }
    if path.split(['/', '\\']).any(|c| c == "..") {
        return Err(format!("the guest asked for a dump at {path:?}: `..` may not leave the dump directory"));
    }
    Ok(())
}

/// The interpreter's message for `e`, with the function it stopped in as the other tools name
/// it ([`function_name`]: `` in `NAME` `` by the `name` section or an export, else
/// `in func[N]`).
fn with_function(e: &ExecError, wasm: &[u8]) -> String {
    let func = match e {
        ExecError::Trap(t) => t.func,
        ExecError::BudgetExhausted { func, .. } => *func,
        _ => None,
    };
    let Some(func) = func else { return e.to_string() };
    format!("{e} in {}", function_name(wasm, func.0))
}

/// Global indices of `__data_end`, `__heap_base`, `__stack_pointer`: by export name, else by
/// the `name` section's global names (`~lib/memory/__data_end`, …, as `asc --debug` writes).
fn region_globals(wasm: &[u8], module: &Module) -> [Option<u32>; 3] {
    const NAMES: [&str; 3] = ["__data_end", "__heap_base", "__stack_pointer"];
    let mut out = [None; 3];
    for (k, name) in NAMES.iter().enumerate() {
        out[k] = module
            .exports()
            .iter()
            .find(|e| e.name == *name && e.kind == ExternalKind::Global)
            .map(|e| e.index);
    }
    for (index, global) in Names::of_module(wasm).globals {
        for (k, n) in NAMES.iter().enumerate() {
            if out[k].is_none() && global.strip_prefix("~lib/memory/") == Some(*n) {
                out[k] = Some(index);
            }
        }
    }
    out
}

/// The values of every mutable i32 global, in index order.
fn mutable_i32_globals(caller: &Caller<'_>) -> Vec<u32> {
    (0..caller.global_count())
        .filter(|&i| caller.global_type(i).is_some_and(|t| t.mutable && t.content_type == ValType::I32))
        .filter_map(|i| match caller.global(i) {
            Some(Value::I32(v)) => Some(v as u32),
            _ => None,
        })
        .collect()
}

fn global_u32(caller: &Caller<'_>, index: Option<u32>) -> Option<u32> {
    match caller.global(index?)? {
        Value::I32(v) => Some(v as u32),
        _ => None,
    }
}

/// An AssemblyScript string: UTF-16LE code units at `ptr`, their byte length in the u32 just
/// before it (the object header's `rtSize`). `None` for a null pointer.
fn as_string(memory: &[u8], ptr: u32) -> Option<String> {
    if ptr == 0 {
        return None;
    }
    let p = ptr as usize;
    let len = memory.get(p.checked_sub(4)?..p)?;
    let len = u32::from_le_bytes([len[0], len[1], len[2], len[3]]) as usize;
    utf16(memory, ptr, len as u32)
}

/// `byte_len` bytes of UTF-16LE at `ptr`, lossily decoded; `None` when out of memory.
fn utf16(memory: &[u8], ptr: u32, byte_len: u32) -> Option<String> {
    let bytes = memory.get(ptr as usize..(ptr as usize).checked_add(byte_len as usize)?)?;
    let units = bytes.chunks_exact(2).map(|b| u16::from_le_bytes([b[0], b[1]]));
    Some(char::decode_utf16(units).map(|c| c.unwrap_or('\u{fffd}')).collect())
}

/// Shared between the host functions and [`capture`].
struct Host {
    on_dump: Box<dyn FnMut(CapturedDump) -> Result<(), String>>,
    on_trace: Box<dyn FnMut(String)>,
    dumps: u32,
    region: [Option<u32>; 3],
    /// Why a host function stopped the run.
    stop: Option<CaptureError>,
}

impl Host {
    fn dump(&mut self, caller: &Caller<'_>, request: DumpRequest, region: [u32; 3]) -> Result<(), TrapKind> {
        let globals = mutable_i32_globals(caller);
        let bytes = write_dump(region[0], region[1], region[2], &globals, caller.memory);
        let d = CapturedDump {
            request,
            bytes,
            region,
            globals: globals.len() as u32,
            memory_len: caller.memory.len(),
        };
        (self.on_dump)(d).map_err(|e| self.fail(CaptureError::Dump(e)))
    }

    fn fail(&mut self, e: CaptureError) -> TrapKind {
        self.stop = Some(e);
        TrapKind::Host
    }

    /// The region values from the module's globals, for WARPO's form and the exit dump.
    fn region_from_globals(&self, caller: &Caller<'_>) -> Result<[u32; 3], String> {
        let names = ["__data_end", "__heap_base", "__stack_pointer"];
        let mut out = [0; 3];
        for k in 0..3 {
            out[k] = global_u32(caller, self.region[k]).ok_or_else(|| {
                format!(
                    "the module has no i32 global {} (export it, or build with --debug for the name section)",
                    names[k]
                )
            })?;
        }
        Ok(out)
    }
}

/// Runs the program and hands each dump to `on_dump` as it is taken (an `Err` from it stops
/// the run with that message), each `env.trace` line to `on_trace`. Returns how many dumps
/// were taken.
///
/// # Errors
/// [`CaptureError`]: the module, its imports, the entry function and its arguments are
/// checked before anything runs; then an abort, a refused dump, a trap or the budget.
pub fn capture(
    wasm: &[u8],
    options: &CaptureOptions,
    on_dump: impl FnMut(CapturedDump) -> Result<(), String> + 'static,
    on_trace: impl FnMut(String) + 'static,
) -> Result<u32, CaptureError> {
    let limits = Limits::default().with_max_module_bytes(64 << 20);
    let module = Module::new(wasm, &limits).map_err(|e| CaptureError::Load(e.to_string()))?;
    let region = region_globals(wasm, &module);
    let host = Rc::new(RefCell::new(Host {
        on_dump: Box::new(on_dump),
        on_trace: Box::new(on_trace),
        dumps: 0,
        region,
        stop: None,
    }));
    let mut store = Store::new(limits);
    let mut imports = Vec::new();
    for import in module.imports() {
        let name = format!("{}.{}", import.module, import.name);
        let ImportType::Func(t) = import.ty else {
            return Err(CaptureError::Import { name, reason: "only function imports are provided" });
        };
        let ty = module.type_at(t).cloned().unwrap_or_default();
        let (params, results) = (ty.params(), ty.results());
        let all = |want: ValType, n: usize| params.len() == n && params.iter().all(|&p| p == want);
        let h = host.clone();
        let f = match (import.module.as_str(), import.name.as_str()) {
            ("env", "abort") if all(ValType::I32, 4) && results.is_empty() => {
                store.host_func(ty.clone(), move |caller, args, _| {
                    let i = |k: usize| match args[k] {
                        Value::I32(v) => v as u32,
                        _ => 0,
                    };
                    let text = |p| as_string(caller.memory, p).unwrap_or_default();
                    let e = CaptureError::Abort {
                        message: text(i(0)),
                        file: text(i(1)),
                        line: i(2),
                        column: i(3),
                    };
                    Err(h.borrow_mut().fail(e))
                })
            }
            ("env", "trace")
                if params.len() == 7
                    && params[..2] == [ValType::I32, ValType::I32]
                    && params[2..].iter().all(|&p| p == ValType::F64)
                    && results.is_empty() =>
            {
                store.host_func(ty.clone(), move |caller, args, _| {
                    let (Value::I32(msg), Value::I32(n)) = (args[0], args[1]) else { return Ok(()) };
                    let mut line =
                        format!("trace: {}", as_string(caller.memory, msg as u32).unwrap_or_default());
                    for (k, a) in args[2..].iter().take(n.clamp(0, 5) as usize).enumerate() {
                        if let Value::F64(bits) = a {
                            line.push_str(if k == 0 { " " } else { ", " });
                            line.push_str(&format!("{}", f64::from_bits(*bits)));
                        }
                    }
                    (h.borrow_mut().on_trace)(line);
                    Ok(())
                })
            }
            ("env", "seed") if params.is_empty() && results == [ValType::F64] => {
                store.host_func(ty.clone(), move |_, _, out| {
                    out[0] = Value::F64(SEED.to_bits());
                    Ok(())
                })
            }
            ("MemoryDump", "dumpMemoryRegion") if all(ValType::I32, 2) && results.is_empty() => store
                .host_func(ty.clone(), move |caller, args, _| {
                    let mut host = h.borrow_mut();
                    let (Value::I32(p), Value::I32(n)) = (args[0], args[1]) else { return Ok(()) };
                    let bytes =
                        caller.memory.get(p as u32 as usize..).and_then(|m| m.get(..n as u32 as usize));
                    let path = match bytes.map(core::str::from_utf8) {
                        Some(Ok(s)) => s.to_string(),
                        Some(Err(_)) => {
                            return Err(
                                host.fail(CaptureError::Dump("the guest's dump path is not UTF-8".into()))
                            );
                        }
                        None => {
                            return Err(host.fail(CaptureError::Dump(
                                "the guest's dump path lies outside its memory".into(),
                            )));
                        }
                    };
                    check_guest_path(&path).map_err(|e| host.fail(CaptureError::Dump(e)))?;
                    let region =
                        host.region_from_globals(caller).map_err(|e| host.fail(CaptureError::Dump(e)))?;
                    host.dumps += 1;
                    host.dump(caller, DumpRequest::Path(path), region)
                }),
            ("MemoryDump", "dumpMemoryRegion") if all(ValType::I32, 5) && results.is_empty() => store
                .host_func(ty.clone(), move |caller, args, _| {
                    let mut host = h.borrow_mut();
                    let a: Vec<u32> = args
                        .iter()
                        .map(|v| match v {
                            Value::I32(x) => *x as u32,
                            _ => 0,
                        })
                        .collect();
                    let Some(label) = utf16(caller.memory, a[0], a[1]) else {
                        return Err(host.fail(CaptureError::Dump(
                            "the guest's dump label lies outside its memory".into(),
                        )));
                    };
                    let region = [a[2], a[3], a[4]];
                    let names = ["__data_end", "__heap_base", "__stack_pointer"];
                    for k in 0..3 {
                        if let Some(actual) = global_u32(caller, host.region[k])
                            && actual != region[k]
                        {
                            let e = format!(
                                "dump {label:?}: the guest passed {} for {}, the global holds {actual}",
                                region[k], names[k]
                            );
                            return Err(host.fail(CaptureError::Dump(e)));
                        }
                    }
                    host.dumps += 1;
                    let n = host.dumps;
                    host.dump(caller, DumpRequest::Label { n, label }, region)
                }),
            ("env", "abort" | "trace" | "seed") | ("MemoryDump", "dumpMemoryRegion") => {
                return Err(CaptureError::Import { name, reason: "its type is not the one provided" });
            }
            _ => {
                return Err(CaptureError::Import {
                    name,
                    reason: "not provided (env.abort, env.trace, env.seed and MemoryDump.dumpMemoryRegion are)",
                });
            }
        };
        imports.push(Extern::Func(f));
    }
    let module = Arc::new(module);
    let instance = store
        .instantiate(module.clone(), &imports)
        .map_err(|e| host.borrow_mut().stop.take().unwrap_or_else(|| CaptureError::Load(e.to_string())))?;
    let (entry, entry_name) = match &options.invoke {
        Some(name) => (
            store
                .get_func(instance, name)
                .ok_or_else(|| CaptureError::NoEntry(format!("no exported function {name:?}")))?,
            name.as_str(),
        ),
        None => ["_start", "main"]
            .into_iter()
            .find_map(|name| Some((store.get_func(instance, name)?, name)))
            .ok_or_else(|| {
                CaptureError::NoEntry("the module exports neither _start nor main (use --invoke)".into())
            })?,
    };
    store.set_budget(options.budget);
    match store.call(entry, &options.args) {
        Ok(_) => {}
        Err(ExecError::Signature(m)) => return Err(CaptureError::Signature(format!("`{entry_name}`: {m}"))),
        Err(e) => {
            let stop = host.borrow_mut().stop.take();
            return Err(stop.unwrap_or_else(|| CaptureError::Exec(with_function(&e, wasm))));
        }
    }
    if options.dump_at_exit {
        let memory =
            store.instance_memory(instance).map(|m| store.memory_data(m).to_vec()).unwrap_or_default();
        let global = |index: Option<u32>| match index.and_then(|i| store.instance_global(instance, i)) {
            Some(g) => match store.global_get(g) {
                Value::I32(v) => Some(v as u32),
                _ => None,
            },
            None => None,
        };
        let mut host = host.borrow_mut();
        let names = ["__data_end", "__heap_base", "__stack_pointer"];
        let mut region = [0; 3];
        for k in 0..3 {
            region[k] = global(host.region[k]).ok_or_else(|| {
                CaptureError::Dump(format!(
                    "--dump-at-exit: the module has no i32 global {} (export it, or build with --debug)",
                    names[k]
                ))
            })?;
        }
        let count = module.global_types().len() as u32;
        let globals: Vec<u32> = (0..count)
            .filter(|&i| {
                module.global_types()[i as usize].mutable
                    && module.global_types()[i as usize].content_type == ValType::I32
            })
            .filter_map(|i| global(Some(i)))
            .collect();
        host.dumps += 1;
        let n = host.dumps;
        let bytes = write_dump(region[0], region[1], region[2], &globals, &memory);
        let d = CapturedDump {
            request: DumpRequest::AtExit { n },
            bytes,
            region,
            globals: globals.len() as u32,
            memory_len: memory.len(),
        };
        (host.on_dump)(d).map_err(CaptureError::Dump)?;
    }
    let n = host.borrow().dumps;
    Ok(n)
}
