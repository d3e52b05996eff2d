//! The engines the differential test compares ours with, behind one interface.
//!
//! [`Engine::Wasmi`] (wasmi 2.0) is the peer every seed runs against, except the seeds whose
//! modules may use exceptions, which wasmi does not run; [`Engine::Wasmtime`] (Cranelift) is
//! the arbiter, run on a seed only when ours and wasmi disagree or wasmi crashed, and the
//! peer of the exception seeds. Values cross as [`Val`], a neutral form both sides convert to. A panic inside a
//! peer is caught at the call ([`guarded`]) and returned as [`PeerError::Panicked`], so it
//! ends that seed's comparison, never the run.

use std::borrow::Cow;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::OnceLock;

use qip_memory::wasm::{TrapKind, ValType};

use super::{MAX_FRAMES, MAX_MEMORY_BYTES, MAX_TABLE_ELEMENTS, PEER_FUEL};

/// A value as both sides see it: numbers as bits (NaN payloads survive), references only as
/// null or not (reference identities differ between engines).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Val {
    I32(i32),
    I64(i64),
    F32(u32),
    F64(u64),
    V128(u128),
    Ref { null: bool },
}

impl std::fmt::LowerHex for Val {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Val::I32(v) => write!(f, "i32:{:x}", *v as u32),
            Val::I64(v) => write!(f, "i64:{:x}", *v as u64),
            Val::F32(v) => write!(f, "f32:{v:x}"),
            Val::F64(v) => write!(f, "f64:{v:x}"),
            Val::V128(v) => write!(f, "v128:{v:032x}"),
            Val::Ref { null: true } => f.write_str("ref:null"),
            Val::Ref { null: false } => f.write_str("ref:nonnull"),
        }
    }
}

impl From<qip_memory::wasm::Value> for Val {
    fn from(v: qip_memory::wasm::Value) -> Val {
        use qip_memory::wasm::Value as O;
        match v {
            O::I32(x) => Val::I32(x),
            O::I64(x) => Val::I64(x),
            O::F32(x) => Val::F32(x),
            O::F64(x) => Val::F64(x),
            O::V128(x) => Val::V128(x),
            O::FuncRef(r) => Val::Ref { null: r.is_none() },
            O::ExternRef(r) | O::ExnRef(r) => Val::Ref { null: r.is_none() },
        }
    }
}

/// Why a peer's instantiation or call did not return values.
#[derive(Debug, Clone)]
pub enum PeerError {
    /// A WebAssembly trap; `kind` is our name for it where the peer's code maps to one.
    Trap { kind: Option<TrapKind>, message: String },
    /// The peer's fuel ran out: the run is not compared.
    OutOfFuel,
    /// The peer panicked (a bug of the peer, or of this harness's use of it).
    Panicked(String),
    /// Any other failure: a validation error at load, a resource the peer refused.
    Other(String),
}

impl std::fmt::Display for PeerError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PeerError::Trap { message, .. } => write!(f, "trap: {message}"),
            PeerError::OutOfFuel => f.write_str("out of fuel"),
            PeerError::Panicked(m) => write!(f, "panicked: {m}"),
            PeerError::Other(m) => f.write_str(m),
        }
    }
}

impl PeerError {
    pub fn is_stack_overflow(&self) -> bool {
        matches!(self, PeerError::Trap { kind: Some(TrapKind::StackOverflow), .. })
    }
}

/// A module loaded (validated and compiled) by a peer.
pub trait PeerModule {
    /// A fresh instance in a fresh store, with fuel [`PEER_FUEL`] for the start function and
    /// the test's memory, table and call-depth limits.
    fn instantiate(&self) -> Result<Box<dyn PeerInstance>, PeerError>;
}

/// An instance of a peer's module.
pub trait PeerInstance {
    /// Calls export `name` with fuel [`PEER_FUEL`]; `results` are the function's result types.
    fn call(&mut self, name: &str, args: &[Val], results: &[ValType]) -> Result<Vec<Val>, PeerError>;
    /// The bytes of exported memory `name` (a copy for a shared memory).
    fn memory(&mut self, name: &str) -> Option<Cow<'_, [u8]>>;
    /// The value of exported global `name`.
    fn global(&mut self, name: &str) -> Option<Val>;
}

/// The peer engines.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Engine {
    Wasmi,
    Wasmtime,
}

impl Engine {
    pub fn name(self) -> &'static str {
        match self {
            Engine::Wasmi => "wasmi",
            Engine::Wasmtime => "wasmtime",
        }
    }

    /// Validates and compiles `bytes`; `Err(Other)` is a validation failure.
    pub fn load(self, bytes: &[u8]) -> Result<Box<dyn PeerModule>, PeerError> {
        guarded(|| match self {
            Engine::Wasmi => wasmi_peer::load(bytes),
            Engine::Wasmtime => wasmtime_peer::load(bytes),
        })
    }
}

thread_local! {
    /// Set by [`with_raw_wasmi`].
    static RAW: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
    /// How many [`guarded`] calls this thread is inside.
    static GUARDED: std::cell::Cell<u32> = const { std::cell::Cell::new(0) };
}

/// Runs `f` with wasmi given the modules as they are, without the select workaround.
pub fn with_raw_wasmi<T>(f: impl FnOnce() -> T) -> T {
    RAW.set(true);
    let r = f();
    RAW.set(false);
    r
}

/// Runs `f`, turning a panic into [`PeerError::Panicked`] with the panic's message.
pub fn guarded<T>(f: impl FnOnce() -> Result<T, PeerError>) -> Result<T, PeerError> {
    GUARDED.set(GUARDED.get() + 1);
    let r = catch_unwind(AssertUnwindSafe(f));
    GUARDED.set(GUARDED.get() - 1);
    match r {
        Ok(r) => r,
        Err(payload) => Err(PeerError::Panicked(panic_message(&*payload))),
    }
}

/// Whether this thread runs inside [`guarded`], so that a panic now is a peer's and will be
/// caught. The fuzz target's panic hook asks: libFuzzer's hook aborts on every panic, caught or
/// not, and must see only the others (ours, the harness's).
#[allow(dead_code)] // used by fuzz/fuzz_targets/differential.rs, not by the test
pub fn inside_guarded() -> bool {
    GUARDED.get() > 0
}

/// The text of a panic payload (`panic!` gives a `&str` or a `String`).
pub fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "(non-string panic payload)".to_string()
    }
}

mod wasmi_peer {
    //! wasmi 2.0, with fuel, the test's limits, and the select workaround of
    //! [`super::super::defuse_selects`].

    use super::*;

    struct Module {
        engine: wasmi::Engine,
        module: wasmi::Module,
    }

    struct Instance {
        store: wasmi::Store<wasmi::StoreLimits>,
        instance: wasmi::Instance,
    }

    pub fn load(bytes: &[u8]) -> Result<Box<dyn PeerModule>, PeerError> {
        let mut config = wasmi::Config::default();
        config.consume_fuel(true);
        config.set_max_recursion_depth(MAX_FRAMES as usize);
        config.set_max_stack_height(256 << 20);
        let engine = wasmi::Engine::new(&config);
        let bytes = if RAW.get() || std::env::var_os("DIFF_RAW_WASMI").is_some() {
            bytes.to_vec()
        } else {
            super::super::defuse_selects(bytes)
        };
        let module = wasmi::Module::new(&engine, &bytes).map_err(|e| PeerError::Other(e.to_string()))?;
        Ok(Box::new(Module { engine, module }))
    }

    fn error(e: wasmi::Error) -> PeerError {
        use wasmi::TrapCode as W;
        let Some(code) = e.as_trap_code() else { return PeerError::Other(e.to_string()) };
        let kind = match code {
            W::OutOfFuel => return PeerError::OutOfFuel,
            W::UnreachableCodeReached => TrapKind::Unreachable,
            W::MemoryOutOfBounds => TrapKind::MemoryOutOfBounds,
            W::TableOutOfBounds => TrapKind::TableOutOfBounds,
            W::IndirectCallToNull => TrapKind::UninitializedElement,
            W::BadSignature => TrapKind::IndirectCallTypeMismatch,
            W::IntegerDivisionByZero => TrapKind::IntegerDivideByZero,
            W::IntegerOverflow => TrapKind::IntegerOverflow,
            W::BadConversionToInteger => TrapKind::InvalidConversionToInteger,
            W::StackOverflow => TrapKind::StackOverflow,
            _ => return PeerError::Trap { kind: None, message: e.to_string() },
        };
        PeerError::Trap { kind: Some(kind), message: e.to_string() }
    }

    fn to_wasmi(v: &Val) -> wasmi::Val {
        match *v {
            Val::I32(x) => wasmi::Val::I32(x),
            Val::I64(x) => wasmi::Val::I64(x),
            Val::F32(x) => wasmi::Val::F32(wasmi::F32::from_bits(x)),
            Val::F64(x) => wasmi::Val::F64(wasmi::F64::from_bits(x)),
            Val::V128(x) => wasmi::Val::V128(wasmi::V128::from(x)),
            Val::Ref { .. } => unreachable!("functions with reference parameters are not called"),
        }
    }

    fn from_wasmi(v: &wasmi::Val) -> Val {
        match v {
            wasmi::Val::I32(x) => Val::I32(*x),
            wasmi::Val::I64(x) => Val::I64(*x),
            wasmi::Val::F32(x) => Val::F32(x.to_bits()),
            wasmi::Val::F64(x) => Val::F64(x.to_bits()),
            wasmi::Val::V128(x) => Val::V128(x.as_u128()),
            wasmi::Val::FuncRef(r) => Val::Ref { null: r.is_null() },
            wasmi::Val::ExternRef(r) => Val::Ref { null: r.is_null() },
        }
    }

    fn default_of(ty: ValType) -> wasmi::Val {
        match ty {
            ValType::I32 => wasmi::Val::I32(0),
            ValType::I64 => wasmi::Val::I64(0),
            ValType::F32 => wasmi::Val::F32(wasmi::F32::from_bits(0)),
            ValType::F64 => wasmi::Val::F64(wasmi::F64::from_bits(0)),
            ValType::V128 => wasmi::Val::V128(wasmi::V128::from(0u128)),
            ValType::FuncRef => wasmi::Val::FuncRef(wasmi::Nullable::Null),
            ValType::ExternRef => wasmi::Val::ExternRef(wasmi::Nullable::Null),
            ValType::ExnRef => unreachable!("wasmi does not run exceptions: wasmtime judges their seeds"),
        }
    }

    impl PeerModule for Module {
        fn instantiate(&self) -> Result<Box<dyn PeerInstance>, PeerError> {
            guarded(|| {
                let limits = wasmi::StoreLimitsBuilder::new()
                    .memory_size(MAX_MEMORY_BYTES as usize)
                    .table_elements(MAX_TABLE_ELEMENTS as usize)
                    .build();
                let mut store = wasmi::Store::new(&self.engine, limits);
                store.limiter(|l| l);
                store.set_fuel(PEER_FUEL).expect("fuel is enabled");
                let instance = wasmi::Instance::new(&mut store, &self.module, &[]).map_err(error)?;
                Ok(Box::new(Instance { store, instance }) as Box<dyn PeerInstance>)
            })
        }
    }

    impl PeerInstance for Instance {
        fn call(&mut self, name: &str, args: &[Val], results: &[ValType]) -> Result<Vec<Val>, PeerError> {
            guarded(|| {
                let f = self.instance.get_func(&self.store, name).expect("wasmi has the export");
                let args: Vec<_> = args.iter().map(to_wasmi).collect();
                let mut out: Vec<_> = results.iter().map(|t| default_of(*t)).collect();
                self.store.set_fuel(PEER_FUEL).expect("fuel is enabled");
                f.call(&mut self.store, &args, &mut out).map_err(error)?;
                Ok(out.iter().map(from_wasmi).collect())
            })
        }

        fn memory(&mut self, name: &str) -> Option<Cow<'_, [u8]>> {
            let m = self.instance.get_memory(&self.store, name)?;
            Some(Cow::Borrowed(m.data(&self.store)))
        }

        fn global(&mut self, name: &str) -> Option<Val> {
            let g = self.instance.get_global(&self.store, name)?;
            Some(from_wasmi(&g.get(&self.store)))
        }
    }
}

mod wasmtime_peer {
    //! wasmtime with Cranelift, fuel and the test's limits. One engine for the whole run
    //! (compiling is per module; creating an engine is not free).

    use super::*;

    struct Module {
        module: wasmtime::Module,
    }

    struct Instance {
        store: wasmtime::Store<wasmtime::StoreLimits>,
        instance: wasmtime::Instance,
    }

    fn engine() -> &'static wasmtime::Engine {
        static ENGINE: OnceLock<wasmtime::Engine> = OnceLock::new();
        ENGINE.get_or_init(|| {
            let mut config = wasmtime::Config::new();
            // WebAssembly 2.0 and the proposals after it the generator emits; nothing else.
            config
                .consume_fuel(true)
                .wasm_simd(true)
                .wasm_relaxed_simd(false)
                .wasm_reference_types(true)
                .wasm_multi_value(true)
                .wasm_bulk_memory(true)
                .wasm_function_references(false)
                .wasm_gc(false)
                .wasm_tail_call(true)
                .wasm_extended_const(true)
                .wasm_threads(true)
                // Creating a shared memory is off by default even with threads on.
                .shared_memory(true)
                .wasm_exceptions(true);
            wasmtime::Engine::new(&config).expect("a valid wasmtime configuration")
        })
    }

    pub fn load(bytes: &[u8]) -> Result<Box<dyn PeerModule>, PeerError> {
        let module =
            wasmtime::Module::new(engine(), bytes).map_err(|e| PeerError::Other(format!("{e:#}")))?;
        Ok(Box::new(Module { module }))
    }

    fn error(e: wasmtime::Error) -> PeerError {
        use wasmtime::Trap as W;
        // An exception no handler caught: the tag is not compared (ours names it, wasmtime
        // keeps it on the store).
        if e.downcast_ref::<wasmtime::ThrownException>().is_some() {
            let kind = TrapKind::UncaughtException { tag: u16::MAX };
            return PeerError::Trap { kind: Some(kind), message: e.to_string() };
        }
        let Some(trap) = e.downcast_ref::<W>() else { return PeerError::Other(format!("{e:#}")) };
        let kind = match trap {
            W::OutOfFuel => return PeerError::OutOfFuel,
            W::UnreachableCodeReached => TrapKind::Unreachable,
            W::MemoryOutOfBounds => TrapKind::MemoryOutOfBounds,
            W::TableOutOfBounds => TrapKind::TableOutOfBounds,
            W::IndirectCallToNull => TrapKind::UninitializedElement,
            W::BadSignature => TrapKind::IndirectCallTypeMismatch,
            W::IntegerDivisionByZero => TrapKind::IntegerDivideByZero,
            W::IntegerOverflow => TrapKind::IntegerOverflow,
            W::BadConversionToInteger => TrapKind::InvalidConversionToInteger,
            W::StackOverflow => TrapKind::StackOverflow,
            W::HeapMisaligned => TrapKind::UnalignedAtomic,
            W::AtomicWaitNonSharedMemory => TrapKind::ExpectedSharedMemory,
            // The modules compared have no other null reference to trap on than `throw_ref`'s.
            W::NullReference => TrapKind::NullExceptionReference,
            _ => return PeerError::Trap { kind: None, message: trap.to_string() },
        };
        PeerError::Trap { kind: Some(kind), message: trap.to_string() }
    }

    fn to_wasmtime(v: &Val) -> wasmtime::Val {
        match *v {
            Val::I32(x) => wasmtime::Val::I32(x),
            Val::I64(x) => wasmtime::Val::I64(x),
            Val::F32(x) => wasmtime::Val::F32(x),
            Val::F64(x) => wasmtime::Val::F64(x),
            Val::V128(x) => wasmtime::Val::V128(x.into()),
            Val::Ref { .. } => unreachable!("functions with reference parameters are not called"),
        }
    }

    fn from_wasmtime(v: &wasmtime::Val) -> Val {
        match v {
            wasmtime::Val::I32(x) => Val::I32(*x),
            wasmtime::Val::I64(x) => Val::I64(*x),
            wasmtime::Val::F32(x) => Val::F32(*x),
            wasmtime::Val::F64(x) => Val::F64(*x),
            wasmtime::Val::V128(x) => Val::V128(x.as_u128()),
            wasmtime::Val::FuncRef(r) => Val::Ref { null: r.is_none() },
            wasmtime::Val::ExternRef(r) => Val::Ref { null: r.is_none() },
            wasmtime::Val::ExnRef(r) => Val::Ref { null: r.is_none() },
            other => panic!("a WebAssembly 2.0 module returned {other:?}"),
        }
    }

    impl PeerModule for Module {
        fn instantiate(&self) -> Result<Box<dyn PeerInstance>, PeerError> {
            guarded(|| {
                let limits = wasmtime::StoreLimitsBuilder::new()
                    .memory_size(MAX_MEMORY_BYTES as usize)
                    .table_elements(MAX_TABLE_ELEMENTS as usize)
                    .build();
                let mut store = wasmtime::Store::new(engine(), limits);
                store.limiter(|l| l);
                store.set_fuel(PEER_FUEL).expect("fuel is enabled");
                let instance = wasmtime::Instance::new(&mut store, &self.module, &[]).map_err(error)?;
                Ok(Box::new(Instance { store, instance }) as Box<dyn PeerInstance>)
            })
        }
    }

    impl PeerInstance for Instance {
        fn call(&mut self, name: &str, args: &[Val], results: &[ValType]) -> Result<Vec<Val>, PeerError> {
            guarded(|| {
                let f = self.instance.get_func(&mut self.store, name).expect("wasmtime has the export");
                let args: Vec<_> = args.iter().map(to_wasmtime).collect();
                let mut out = vec![wasmtime::Val::I32(0); results.len()];
                self.store.set_fuel(PEER_FUEL).expect("fuel is enabled");
                f.call(&mut self.store, &args, &mut out).map_err(error)?;
                Ok(out.iter().map(from_wasmtime).collect())
            })
        }

        fn memory(&mut self, name: &str) -> Option<Cow<'_, [u8]>> {
            if let Some(m) = self.instance.get_memory(&mut self.store, name) {
                return Some(Cow::Borrowed(m.data(&self.store)));
            }
            // A shared memory is `SharedMemory`, whose bytes are cells other threads may write.
            let m = self.instance.get_shared_memory(&mut self.store, name)?;
            #[allow(unsafe_code)]
            // SAFETY: no other thread exists (the module spawns none, and this test runs the
            // instance on this thread only), and the store is not running: nothing writes the
            // cells while they are read.
            let bytes = m.data().iter().map(|c| unsafe { *c.get() }).collect();
            Some(Cow::Owned(bytes))
        }

        fn global(&mut self, name: &str) -> Option<Val> {
            let g = self.instance.get_global(&mut self.store, name)?;
            Some(from_wasmtime(&g.get(&mut self.store)))
        }
    }
}
