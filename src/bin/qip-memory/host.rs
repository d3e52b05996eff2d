//! One Content stage on wasmtime (docs/content.md), the way Go `qip run` executes a
//! stage: a fresh instance per execution, no imports, `qip run`'s memory policy, the contract
//! read by the library's checker ([`contract::inspect`]), input written at `input_ptr`,
//! uniforms applied in sorted key order, `render(input_size)` called once and its result
//! decoded.
//!
//! Type tracking between stages is the caller's business ([`crate::run`]); this module
//! only offers the hook it needs: overwriting the 36 UUID bytes of a multipart input slot.
//!
//! The limits are `qip run`'s ([`HostOptions`]): a wall-clock limit per executed stage
//! (wasmtime epoch interruption, checked at function entries and loop back edges), an optional
//! bound on declared memory, and `memory.grow` refused unless allowed. Compiled modules are kept
//! in wasmtime's cache, in the user's cache directory.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::Duration;

use qip_memory::content::contract::{self, Contract};
use qip_memory::content::multipart::{SLOT_LEN, SLOT_PREFIX};
use qip_memory::content::uniforms::{self, ScalarType, UniformValue};
use qip_memory::tools::explain::function_name;
use qip_memory::tools::{FAILURE_MODES, mode_description};
use qip_memory::wasm::Limits;
use wasmtime::{Engine, Instance, Memory, Store, StoreLimits, StoreLimitsBuilder, Trap, Val, ValType};

use crate::Failure;

/// The default of `--timeout-ms`, as `qip run`'s.
pub const DEFAULT_TIMEOUT_MS: u64 = 5_000;

/// The limits of `qip-memory run`, named after `qip run`'s flags.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HostOptions {
    /// `--timeout-ms`: wall-clock milliseconds one stage may execute (instantiation, uniform
    /// setters and `render`; compiling is not counted). At least 1.
    pub timeout_ms: u64,
    /// `--max-memory`: bytes a stage's memory may declare (minimum and maximum); a stage that
    /// declares no maximum is then refused. `None`: no bound.
    pub max_memory: Option<u64>,
    /// `--allow-memory-grow`: `memory.grow` is allowed (up to `max_memory`, which is required).
    pub allow_memory_grow: bool,
    /// Compiled modules are cached (`--no-cache` turns it off).
    pub cache: bool,
}

impl Default for HostOptions {
    fn default() -> Self {
        HostOptions {
            timeout_ms: DEFAULT_TIMEOUT_MS,
            max_memory: None,
            allow_memory_grow: false,
            cache: true,
        }
    }
}

/// The wasmtime engine of a pipeline, with its options and compiled-module cache.
pub struct Host {
    engine: Engine,
    options: HostOptions,
    cache: Option<wasmtime::Cache>,
}

/// The directory of the compiled-module cache: `$XDG_CACHE_HOME/qip-memory`, else
/// `$HOME/.cache/qip-memory`; `None` when neither is set.
pub fn cache_dir() -> Option<PathBuf> {
    let base = match std::env::var_os("XDG_CACHE_HOME").filter(|v| !v.is_empty()) {
        Some(d) => PathBuf::from(d),
        None => PathBuf::from(std::env::var_os("HOME").filter(|v| !v.is_empty())?).join(".cache"),
    };
    Some(base.join("qip-memory"))
}

impl Host {
    /// An engine with epoch interruption and, when `options.cache` and a cache directory can
    /// be set up, wasmtime's compiled-module cache there. A cache that cannot be set up is
    /// left out: it never fails a run (nor does a corrupt or unwritable entry later: wasmtime
    /// then compiles as without a cache).
    ///
    /// # Errors
    /// A [`Failure`] when wasmtime rejects the configuration (not expected).
    pub fn new(options: HostOptions) -> Result<Host, Failure> {
        let mut config = wasmtime::Config::new();
        config.epoch_interruption(true);
        let cache = options.cache.then(cache_dir).flatten().and_then(|dir| {
            let mut c = wasmtime::CacheConfig::new();
            c.with_directory(dir);
            wasmtime::Cache::new(c).ok()
        });
        config.cache(cache.clone());
        let engine = Engine::new(&config).map_err(|e| Failure::new(format!("run: wasmtime: {e}")))?;
        Ok(Host { engine, options, cache })
    }

    /// Compiled modules taken from the cache so far, and compiled and stored: `None` without
    /// a cache.
    pub fn cache_use(&self) -> Option<(usize, usize)> {
        self.cache.as_ref().map(|c| (c.cache_hits(), c.cache_misses()))
    }
}

/// A stage module that passed the memory policy and the contract check, not yet instantiated.
pub struct Component {
    /// The path as given on the command line (names the stage in messages).
    pub name: String,
    /// The contract, read statically by the library.
    pub contract: Contract,
    module: wasmtime::Module,
    /// The module's bytes, to name the function a trap happened in.
    bytes: Vec<u8>,
}

/// Limits for reading a stage's contract with the library's decoder. A host stage is not
/// bounded by the interpreter's target limits (1 MiB modules, 192 MiB memory): the memory
/// tools themselves are bigger than that. Wasm32 bounds remain.
fn contract_limits() -> Limits {
    Limits { max_module_bytes: 1 << 30, max_memory_bytes: 1 << 32, ..Limits::default() }
}

/// The memory policy of `qip run` (and the no-import rule of the Content contract), checked on the
/// binary with wasmparser before anything is compiled: no import of any kind, no `memory.grow`
/// (opcode 0x40) in any function body unless `options.allow_memory_grow`, and with
/// `options.max_memory` every memory declaring a maximum of at most that many bytes.
///
/// # Errors
/// A one-line reason naming the import, the byte offset of the `memory.grow`, or the memory
/// and its declared sizes; a decoding error when the bytes are not a module.
pub fn check_policy(bytes: &[u8], options: &HostOptions) -> Result<(), String> {
    for payload in wasmparser::Parser::new(0).parse_all(bytes) {
        match payload.map_err(|e| format!("not a valid module: {e}"))? {
            wasmparser::Payload::MemorySection(reader) => {
                let Some(limit) = options.max_memory else { continue };
                for (index, memory) in reader.into_iter().enumerate() {
                    let memory = memory.map_err(|e| format!("not a valid module: {e}"))?;
                    let page = 1u64 << memory.page_size_log2.unwrap_or(16);
                    let Some(maximum) = memory.maximum else {
                        return Err(format!(
                            "memory {index} declares no maximum; with --max-memory {limit} every memory needs one"
                        ));
                    };
                    for (what, pages) in [("minimum", memory.initial), ("maximum", maximum)] {
                        let bytes = pages.saturating_mul(page);
                        if bytes > limit {
                            return Err(format!(
                                "memory {index} declares a {what} of {pages} pages ({bytes} bytes), \
                                 more than --max-memory {limit}"
                            ));
                        }
                    }
                }
            }
            wasmparser::Payload::ImportSection(reader) => {
                if let Some(import) = reader.into_imports().next() {
                    let import = import.map_err(|e| format!("not a valid module: {e}"))?;
                    return Err(format!(
                        "imports {}::{}; a Content component must have no imports",
                        import.module, import.name
                    ));
                }
            }
            wasmparser::Payload::CodeSectionEntry(body) => {
                let mut ops = body.get_operators_reader().map_err(|e| format!("not a valid module: {e}"))?;
                while !ops.eof() {
                    let at = ops.original_position();
                    if let wasmparser::Operator::MemoryGrow { .. } =
                        ops.read().map_err(|e| format!("not a valid module: {e}"))?
                        && !options.allow_memory_grow
                    {
                        return Err(format!(
                            "contains memory.grow (at offset 0x{at:x}); Content components must use a fixed \
                             memory (--allow-memory-grow with --max-memory allows it)"
                        ));
                    }
                }
            }
            _ => {}
        }
    }
    Ok(())
}

/// Loads a stage: the policy, the contract and the wasmtime compilation.
///
/// # Errors
/// A [`Failure`] naming the stage: unreadable file, policy violation, contract violation, or a
/// module wasmtime does not compile.
pub fn load(host: &Host, path: &Path) -> Result<Component, Failure> {
    let engine = &host.engine;
    let name = path.display().to_string();
    let bytes = crate::read_file(path)?;
    let fail = |m: String| Failure::new(format!("{name}: {m}"));
    check_policy(&bytes, &host.options).map_err(fail)?;
    let module = qip_memory::wasm::Module::new(&bytes, &contract_limits())
        .map_err(|e| fail(format!("cannot read the Content contract: {e}")))?;
    let contract = contract::inspect(&module).map_err(|e| fail(format!("Content contract: {e}")))?;
    let module = wasmtime::Module::new(engine, &bytes).map_err(|e| fail(format!("does not compile: {e}")))?;
    Ok(Component { name, contract, module, bytes })
}

/// The one-line message of a wasmtime error from a call into the module `bytes`: the trap's
/// message (`wasm trap: …`) and, from wasmtime's backtrace, the function it happened in
/// ([`function_name`], as the interpreter's tools name it) and the module offset wasmtime
/// gives, which is near the trapping instruction rather than at it (Cranelift may fold a trap
/// into the branch before it, e.g. an `if` whose body is `unreachable`); the time limit when
/// the watchdog interrupted it.
fn stage_error(e: &wasmtime::Error, timeout_ms: u64, bytes: &[u8]) -> String {
    match e.downcast_ref::<Trap>() {
        Some(Trap::Interrupt) => {
            format!("stopped after the time limit of {timeout_ms} ms (raise it with --timeout-ms)")
        }
        Some(trap) => {
            let Some(frame) = e.downcast_ref::<wasmtime::WasmBacktrace>().and_then(|b| b.frames().first())
            else {
                return format!("{trap}");
            };
            let at =
                frame.module_offset().map(|at| format!(", near module offset 0x{at:x}")).unwrap_or_default();
            format!("{trap} in {}{at}", function_name(bytes, frame.func_index()))
        }
        None => format!("{e}").replace('\n', " "),
    }
}

/// The scalar type of a setter `uniform_set_<key>(T) -> T`, `None` for any other shape.
fn setter_type(ty: &wasmtime::FuncType) -> Option<ScalarType> {
    let scalar = |t: &ValType| match t {
        ValType::I32 => Some(ScalarType::I32),
        ValType::I64 => Some(ScalarType::I64),
        ValType::F32 => Some(ScalarType::F32),
        ValType::F64 => Some(ScalarType::F64),
        _ => None,
    };
    let params: Vec<ValType> = ty.params().collect();
    let results: Vec<ValType> = ty.results().collect();
    match (params.as_slice(), results.as_slice()) {
        ([p], [r]) => {
            let (p, r) = (scalar(p)?, scalar(r)?);
            (p == r).then_some(p)
        }
        _ => None,
    }
}

/// Whether a stage is one of the memory tools (docs/rejections.md): it exports
/// `failure_modes_per_input_offset() = 10` and declares a multipart input type; its rejection
/// modes then have sentences.
pub fn is_memory_tool(c: &Contract) -> bool {
    c.failure_modes == Some(FAILURE_MODES)
        && c.input_content_type.as_deref().is_some_and(|t| t.starts_with("multipart/form-data"))
}

/// Ends a stage that runs past its time limit: after `timeout` the engine's epoch advances,
/// which traps the stage's store at its next function entry or loop back edge. Dropping the
/// watchdog (the stage finished) ends its thread at once.
struct Watchdog {
    cancel: Option<mpsc::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Watchdog {
    fn start(engine: &Engine, timeout: Duration) -> Watchdog {
        let (cancel, wait) = mpsc::channel::<()>();
        let engine = engine.clone();
        let thread = std::thread::spawn(move || {
            if let Err(mpsc::RecvTimeoutError::Timeout) = wait.recv_timeout(timeout) {
                engine.increment_epoch();
            }
        });
        Watchdog { cancel: Some(cancel), thread: Some(thread) }
    }
}

impl Drop for Watchdog {
    fn drop(&mut self) {
        drop(self.cancel.take());
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// A fresh instance of a loaded stage, ready for one render, under its time limit.
pub struct Running<'c> {
    component: &'c Component,
    store: Store<StoreLimits>,
    instance: Instance,
    memory: Memory,
    timeout_ms: u64,
    _watchdog: Watchdog,
}

impl<'c> Running<'c> {
    /// Instantiates `component` with no imports (a start function, if any, runs here); the
    /// stage's time limit starts here.
    ///
    /// # Errors
    /// A [`Failure`] naming the stage when instantiation fails, traps or runs out of time, or
    /// when the `memory` export is missing.
    pub fn new(host: &Host, component: &'c Component) -> Result<Running<'c>, Failure> {
        let name = &component.name;
        let mut limits = StoreLimitsBuilder::new();
        if let Some(max) = host.options.max_memory {
            limits = limits.memory_size(usize::try_from(max).unwrap_or(usize::MAX));
        }
        let mut store = Store::new(&host.engine, limits.build());
        store.limiter(|l| l);
        store.set_epoch_deadline(1);
        let timeout_ms = host.options.timeout_ms;
        let watchdog = Watchdog::start(&host.engine, Duration::from_millis(timeout_ms));
        let instance = Instance::new(&mut store, &component.module, &[]).map_err(|e| {
            Failure::new(format!(
                "{name}: cannot instantiate: {}",
                stage_error(&e, timeout_ms, &component.bytes)
            ))
        })?;
        let memory = instance
            .get_memory(&mut store, "memory")
            .ok_or_else(|| Failure::new(format!("{name}: exports no memory \"memory\"")))?;
        Ok(Running { component, store, instance, memory, timeout_ms, _watchdog: watchdog })
    }

    fn fail(&self, m: String) -> Failure {
        Failure::new(format!("{}: {m}", self.component.name))
    }

    /// The message of a failed call into the stage.
    fn call_error(&self, e: &wasmtime::Error) -> String {
        stage_error(e, self.timeout_ms, &self.component.bytes)
    }

    /// Calls the zero-argument getter `name` (a static getter).
    fn getter(&mut self, name: &str) -> Result<u32, Failure> {
        let f = self
            .instance
            .get_typed_func::<(), i32>(&mut self.store, name)
            .map_err(|e| self.fail(format!("{name}: {e}")))?;
        let v =
            f.call(&mut self.store, ()).map_err(|e| self.fail(format!("{name}: {}", self.call_error(&e))))?;
        Ok(v.cast_unsigned())
    }

    /// Overwrites the 36 UUID bytes of the multipart input slot with `uuid` (at
    /// `input_content_type_ptr + 34`; nothing else changes).
    ///
    /// # Errors
    /// A [`Failure`] when the stage declares no 70-byte multipart slot or the slot lies outside
    /// memory.
    pub fn set_boundary_uuid(&mut self, uuid: &[u8; 36]) -> Result<(), Failure> {
        let size = self.getter("input_content_type_size")?;
        if size as usize != SLOT_LEN {
            return Err(self.fail("declares no 70-byte multipart content-type slot".into()));
        }
        let at = self.getter("input_content_type_ptr")? as usize + SLOT_PREFIX.len();
        let data = self.memory.data_mut(&mut self.store);
        let slot = data.get_mut(at..at + uuid.len()).ok_or_else(|| {
            Failure::new(format!("{}: content-type slot outside memory", self.component.name))
        })?;
        slot.copy_from_slice(uuid);
        Ok(())
    }

    /// Writes `input` at `input_ptr` after checking it against the declared capacity (a
    /// generator takes no input).
    ///
    /// # Errors
    /// A [`Failure`] for input given to a generator, input larger than the capacity, or an
    /// input region outside memory.
    pub fn write_input(&mut self, input: &[u8]) -> Result<(), Failure> {
        let Some(i) = self.component.contract.input else {
            if input.is_empty() {
                return Ok(());
            }
            return Err(
                self.fail(format!("is a generator (no input_ptr) but got {} bytes of input", input.len()))
            );
        };
        if input.len() as u64 > u64::from(i.cap) {
            return Err(self.fail(format!(
                "input of {} bytes exceeds the input capacity of {} bytes",
                input.len(),
                i.cap
            )));
        }
        let at = i.ptr as usize;
        let data = self.memory.data_mut(&mut self.store);
        let region = data
            .get_mut(at..at + input.len())
            .ok_or_else(|| Failure::new(format!("{}: input region outside memory", self.component.name)))?;
        region.copy_from_slice(input);
        Ok(())
    }

    /// Applies the uniforms in sorted (byte-wise) key order: each value parsed for its
    /// setter's type as Go `qip run` parses it; the setter's return value is ignored.
    ///
    /// # Errors
    /// A [`Failure`] for an invalid key, a key without setter, a setter that is not `(T) -> T`
    /// of a scalar type, a value that does not parse, or a setter trap.
    pub fn apply_uniforms(&mut self, values: &BTreeMap<String, String>) -> Result<(), Failure> {
        for (key, text) in values {
            if !uniforms::valid_key(key) {
                return Err(self.fail(format!(
                    "uniform key {key:?} is not valid (1-63 of [a-z0-9_], starting with a letter, \
                     no \"__\", not ending with \"_\")"
                )));
            }
            let export = format!("uniform_set_{key}");
            let Some(setter) = self.instance.get_func(&mut self.store, &export) else {
                return Err(self.fail(format!("has no uniform {key:?} (no export {export})")));
            };
            let Some(ty) = setter_type(&setter.ty(&self.store)) else {
                return Err(self.fail(format!("{export} is not a (T) -> T setter of a scalar type")));
            };
            let value = uniforms::parse_value(ty, text.as_bytes())
                .map_err(|e| self.fail(format!("uniform {key}={text:?}: {e}")))?;
            let arg = match value {
                UniformValue::I32(v) => Val::I32(v.cast_signed()),
                UniformValue::I64(v) => Val::I64(v),
                UniformValue::F32(v) => Val::F32(v.to_bits()),
                UniformValue::F64(v) => Val::F64(v.to_bits()),
            };
            let mut result = [Val::I32(0)];
            setter
                .call(&mut self.store, &[arg], &mut result)
                .map_err(|e| self.fail(format!("uniform {key}: {}", self.call_error(&e))))?;
        }
        Ok(())
    }

    /// Calls `render(input_size)` and decodes the result (docs/content.md); on success, the output
    /// bytes `[ptr, ptr + size)`.
    ///
    /// # Errors
    /// A [`Failure`] for a trap, any rejection (with offset and mode when the stage declares
    /// failure modes, and the mode's sentence for the memory tools), and an invalid success
    /// (size above the declared output capacity, range outside memory).
    pub fn render(&mut self, input_size: usize) -> Result<Vec<u8>, Failure> {
        let render = self
            .instance
            .get_typed_func::<i32, i64>(&mut self.store, "render")
            .map_err(|e| self.fail(format!("render: {e}")))?;
        let size_arg = u32::try_from(input_size).map_err(|_| self.fail("input larger than 4 GiB".into()))?;
        let r = render
            .call(&mut self.store, size_arg.cast_signed())
            .map_err(|e| self.fail(self.call_error(&e)))?
            .cast_unsigned();
        let c = &self.component.contract;
        if r >> 63 == 1 {
            let detail = r as u32;
            return Err(match c.failure_modes {
                None => self.fail(format!(
                    "rejected its input (detail {detail}) but does not export failure_modes_per_input_offset"
                )),
                Some(0) => self.fail("rejected input".into()),
                Some(n) => {
                    let (offset, mode) = (detail / n, detail % n);
                    if offset as usize > input_size {
                        self.fail(format!(
                            "rejected input at offset {offset}, past the input's {input_size} bytes (mode {mode})"
                        ))
                    } else if is_memory_tool(c) {
                        // The heap analyzer (the one tool with JSON output) has its own table.
                        let describe = if c.output_content_type.as_deref() == Some("application/json") {
                            qip_memory::tools::heap::mode_description
                        } else {
                            mode_description
                        };
                        Failure::new(format!(
                            "{} rejected input at offset {offset} (mode {mode}): {}",
                            self.component.name,
                            describe(mode)
                        ))
                    } else {
                        Failure::new(format!(
                            "{} rejected input at offset {offset} (mode {mode})",
                            self.component.name
                        ))
                    }
                }
            });
        }
        // Hosts mask the pointer to 31 bits.
        let (ptr, size) = (((r >> 32) & 0x7fff_ffff) as usize, r as u32);
        if size > c.output_cap {
            return Err(self.fail(format!(
                "output of {size} bytes exceeds the declared output capacity of {} bytes",
                c.output_cap
            )));
        }
        let data = self.memory.data(&self.store);
        let end = ptr + size as usize;
        let out = data.get(ptr..end).ok_or_else(|| {
            self.fail(format!("output [{ptr}, {end}) lies outside memory of {} bytes", data.len()))
        })?;
        Ok(out.to_vec())
    }
}
