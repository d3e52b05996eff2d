//! Running a program (docs/programs.md, "The run"): load and validate, check the entry
//! export and its arguments, provide the imports (WASI, stubs), instantiate (running the start
//! function, if any), call `_initialize` when the module is a reactor, then the entry.
//! Everything after the imports are provided is counted and observed.

use alloc::format;
use alloc::rc::Rc;
use alloc::string::String;
use alloc::sync::Arc;
use alloc::vec::Vec;
use core::cell::RefCell;

use super::failure::{Cause, Failure, exec_failure, fail};
use super::imports::{self, TrappedStub};
use super::{End, Finished, Imports, Kind, Layout};
use crate::wasm::{
    ExecError, ExternalKind, FuncType, InstantiateError, Limits, Module, Observer, Store, TrapKind, Value,
};

/// Which export a program run calls.
pub(crate) enum Entry<'e> {
    /// A WASI command's `_start`, `() -> ()`.
    #[cfg_attr(not(feature = "wasi"), allow(dead_code))]
    Start,
    /// An export with arguments.
    Export {
        /// The export's name.
        name: &'e str,
        /// Its arguments.
        args: &'e [Value],
    },
}

/// The program's module: its bytes, and the module when the front end loaded it already.
pub(crate) struct Target<'a> {
    /// The module's bytes (for its `name`, `producers` and `target_features` sections).
    pub bytes: &'a [u8],
    /// The loaded module, if loaded.
    pub loaded: Option<Arc<Module>>,
}

/// `name (params) -> results` of every exported function, or a sentence saying there is
/// none: for a failure that names a missing or mistyped entry.
pub fn exported_functions(module: &Module) -> String {
    let names: Vec<String> = module
        .exports()
        .iter()
        .filter(|e| e.kind == ExternalKind::Func)
        .map(|e| match module.func_type(e.index) {
            Some(t) => {
                let list = |v: &[crate::wasm::ValType]| {
                    v.iter().map(|t| format!("{t}")).collect::<Vec<_>>().join(", ")
                };
                format!("{} ({}) -> ({})", e.name, list(t.params()), list(t.results()))
            }
            None => e.name.clone(),
        })
        .collect();
    if names.is_empty() {
        String::from("the module exports no functions")
    } else {
        format!("exported: {}", names.join(", "))
    }
}

fn entry_failure(message: String) -> Failure {
    Failure { cause: Cause::Entry, message, function: None, counters: None }
}

/// The entry's function type, checked against the arguments.
fn check_entry(module: &Module, entry: &Entry<'_>) -> Result<FuncType, Failure> {
    let (name, args): (&str, &[Value]) = match entry {
        Entry::Start => ("_start", &[]),
        Entry::Export { name, args } => (name, args),
    };
    let Some(index) = module.exported_func(name) else {
        return Err(entry_failure(format!("no exported function {name:?} ({})", exported_functions(module))));
    };
    let ty = module.func_type(index).cloned().unwrap_or_default();
    let given: Vec<_> = args.iter().map(Value::ty).collect();
    if ty.params() != given.as_slice() {
        let list =
            |v: &[crate::wasm::ValType]| v.iter().map(|t| format!("{t}")).collect::<Vec<_>>().join(", ");
        return Err(entry_failure(format!(
            "{name}: takes ({}), but {} given ({})",
            list(ty.params()),
            match given.len() {
                0 => String::from("no arguments were"),
                1 => String::from("1 argument was"),
                n => format!("{n} arguments were"),
            },
            list(&given)
        )));
    }
    if matches!(entry, Entry::Start) && !ty.results().is_empty() {
        return Err(entry_failure(format!("_start must be () -> (), not {}", imports::signature(&ty))));
    }
    Ok(ty)
}

/// Runs `bytes` as a program: see the [module documentation](self).
///
/// # Errors
/// A [`Failure`] for what keeps the program from running; its traps and an exhausted budget
/// end the run with [`End::Stopped`] instead.
pub(crate) fn run<O: Observer>(
    target: Target<'_>,
    imports: &mut Imports,
    entry: Entry<'_>,
    budget: Option<u64>,
    limits: &Limits,
    observer: &mut O,
) -> Result<Finished, Failure> {
    let bytes = target.bytes;
    let loaded = match target.loaded {
        Some(m) => Ok(m),
        None => Module::new(bytes, limits).map(Arc::new),
    };
    let module = match loaded {
        Ok(m) => m,
        Err(e) if e.kind.is_limit() => {
            return fail(Cause::Limit, format!("module at module offset {}: {}", e.offset, e.kind));
        }
        Err(e) => {
            return fail(
                Cause::Invalid { offset: e.offset.0 as usize },
                format!("module invalid at module offset {}: {}", e.offset, e.kind),
            );
        }
    };
    check_entry(&module, &entry)?;
    let kind = match entry {
        Entry::Start => Kind::Command,
        Entry::Export { .. } => Kind::Module,
    };
    #[cfg_attr(not(feature = "wasi"), allow(unused_mut))]
    let mut layout = Layout::program(bytes, &module);
    let mut store = Store::new(limits.clone());
    store.watch_stack_pointer(layout.stack.map(|s| s.global));
    let trapped: TrappedStub = Rc::new(RefCell::new(None));
    #[cfg(feature = "wasi")]
    let wasi = match imports.wasi.take() {
        Some(config) => Some(crate::wasi::Wasi::new(config).map_err(|e| Failure {
            cause: Cause::Setup,
            message: format!("{e}"),
            function: None,
            counters: None,
        })?),
        None => None,
    };
    let externs = imports::resolve(&mut store, &module, &imports.stubs, &trapped, |_store, _m, _n, _ty| {
        #[cfg(feature = "wasi")]
        if let (Some(w), crate::wasm::ImportType::Func(t)) = (&wasi, _ty)
            && let Some(ty) = module.type_at(*t)
            && let Some(linked) = w.link_import(_store, _m, _n, ty)
        {
            return Ok(linked.ok().map(crate::wasm::Extern::Func));
        }
        Ok(None)
    })?;
    store.reset_counters();
    store.set_budget(budget);
    let stack = layout.stack.and_then(|s| s.top.map(|top| (s.floor, u64::from(top))));
    observer.begin_program(stack);
    let stopped = |store: &Store, e: ExecError| {
        let counters = Some(alloc::boxed::Box::new(*store.counters()));
        match e {
            ExecError::Trap(t) if t.kind == TrapKind::Host && trapped.borrow().is_some() => {
                let name = trapped.borrow().clone().unwrap_or_default();
                let mut f = exec_failure(e, counters);
                f.message =
                    format!("the stub for {name} was called (it traps) at module offset {}", t.offset);
                f
            }
            e => exec_failure(e, counters),
        }
    };
    let result = match store.instantiate_observed(module.clone(), &externs, observer) {
        Ok(instance) => {
            let name = match &entry {
                Entry::Start => "_start",
                Entry::Export { name, .. } => name,
            };
            let init = store.get_func(instance, "_initialize").filter(|_| name != "_initialize");
            let initialized = match init {
                Some(f) if store.func_type(f).params().is_empty() => {
                    store.call_observed(f, &[], observer).map(|_| ())
                }
                _ => Ok(()),
            };
            let f = store.get_func(instance, name).expect("checked before instantiating");
            let args = match &entry {
                Entry::Start => &[][..],
                Entry::Export { args, .. } => args,
            };
            let called = initialized.and_then(|()| store.call_observed(f, args, observer));
            let memory_bytes =
                store.instance_memory(instance).map_or(0, |m| store.memory_data(m).len() as u64);
            (called, memory_bytes)
        }
        Err(InstantiateError::Exec(e)) => (Err(e), 0),
        Err(InstantiateError::Limit(l)) => {
            return fail(Cause::Limit, format!("{l}"));
        }
        Err(e) => return fail(Cause::Unresolved, format!("{e}")),
    };
    let (called, memory_bytes) = result;
    #[cfg(feature = "wasi")]
    let exit_code = wasi.as_ref().and_then(crate::wasi::Wasi::exit_code);
    #[cfg(not(feature = "wasi"))]
    let exit_code: Option<u32> = None;
    let end = match called {
        Ok(values) => match entry {
            Entry::Start => End::Exit(0),
            Entry::Export { .. } => End::Return(values),
        },
        Err(ExecError::Trap(t)) if t.kind == TrapKind::Exit => End::Exit(exit_code.unwrap_or(0)),
        Err(e) => End::Stopped(stopped(&store, e)),
    };
    #[cfg(feature = "wasi")]
    if let Some(w) = &wasi {
        layout.io = w.io_ranges();
    }
    Ok(Finished { kind, module, counters: *store.counters(), memory_bytes, end, layout })
}
