//! Providing a program's imports (docs/programs.md, "Imports"): WASI preview 1 for
//! `wasi_snapshot_preview1` and wasi-threads' `wasi.thread-spawn`, then the user's stubs in the
//! order given, first match wins; an
//! import that nothing provides is named with its type in one [`Cause::Unresolved`] failure.
//!
//! A stub ([`Stub`]) matches `MODULE.NAME` against a pattern where `*` stands for any run of
//! characters (`env.*`, `*.host_*`, `*`). What it provides:
//!
//! | import | [`StubAction::Zero`] | [`StubAction::Trap`] |
//! | --- | --- | --- |
//! | function | returns zeros (null references) of its result types | traps, naming the import |
//! | global | zero (null) of its type | zero (null) of its type |
//! | memory | a fresh memory of its minimum size (shared if the import is) | the same |
//! | table | a fresh table of its minimum size, null elements | the same |

use alloc::format;
use alloc::rc::Rc;
use alloc::string::String;
use alloc::vec::Vec;
use core::cell::RefCell;

use super::failure::{Cause, Failure};
use crate::wasm::{Extern, FuncType, GlobalType, ImportType, InstantiateError, Module, Store, Value};

/// What a stub does ([module documentation](self)).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StubAction {
    /// Functions return zeros; globals, memories and tables are fresh and zeroed.
    Zero,
    /// Functions trap, naming the import; other kinds as [`StubAction::Zero`].
    Trap,
}

/// One `--stub PATTERN=ACTION`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stub {
    /// `MODULE.NAME`, `*` matching any run of characters.
    pub pattern: String,
    /// What the matched imports do.
    pub action: StubAction,
}

impl Stub {
    /// Whether the stub provides import `module`.`name`.
    pub fn matches(&self, module: &str, name: &str) -> bool {
        glob(self.pattern.as_bytes(), format!("{module}.{name}").as_bytes())
    }
}

/// Whether `text` matches `pattern`, where `*` matches any run of bytes (iterative, with
/// backtracking to the last `*` only: linear in practice, never exponential).
fn glob(pattern: &[u8], text: &[u8]) -> bool {
    let (mut p, mut t) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while t < text.len() {
        if p < pattern.len() && pattern[p] == b'*' {
            star = Some((p, t));
            p += 1;
        } else if p < pattern.len() && pattern[p] == text[t] {
            p += 1;
            t += 1;
        } else if let Some((sp, st)) = star {
            p = sp + 1;
            t = st + 1;
            star = Some((sp, st + 1));
        } else {
            return false;
        }
    }
    pattern[p..].iter().all(|&c| c == b'*')
}

/// The import a stub trapped in, when one did: the run's failure names it.
pub(crate) type TrappedStub = Rc<RefCell<Option<String>>>;

/// The import's type as people read it: `() -> i32`, `global i32`, `memory 1..2 pages`,
/// `memory 1..2 pages shared`.
pub fn describe(module: &Module, ty: &ImportType) -> String {
    match ty {
        ImportType::Func(t) => match module.type_at(*t) {
            Some(f) => signature(f),
            None => String::from("func"),
        },
        ImportType::Global(g) => format!("global {}{}", if g.mutable { "mut " } else { "" }, g.content_type),
        ImportType::Memory(m) => {
            let shared = if m.shared { " shared" } else { "" };
            match m.maximum {
                Some(max) => format!("memory {}..{max} pages{shared}", m.initial),
                None => format!("memory {}.. pages{shared}", m.initial),
            }
        }
        ImportType::Table(t) => format!("table {} {}..", t.element_type, t.initial),
        ImportType::Tag(t) => match module.type_at(*t) {
            Some(f) => format!("tag {}", signature(f)),
            None => String::from("tag"),
        },
    }
}

/// `(i32, i32) -> i32` for a function type.
pub fn signature(f: &FuncType) -> String {
    let list = |v: &[crate::wasm::ValType]| {
        let names: Vec<String> = v.iter().map(|t| format!("{t}")).collect();
        names.join(", ")
    };
    match f.results() {
        [] => format!("({}) -> ()", list(f.params())),
        [one] => format!("({}) -> {one}", list(f.params())),
        many => format!("({}) -> ({})", list(f.params()), list(many)),
    }
}

/// Provides every import of `module` that neither WASI (`provided`, called first for each
/// import; `Some` when it provides it) nor a stub provides is unresolved.
///
/// # Errors
/// [`Cause::Unresolved`] naming every unresolved import with its type, in import order;
/// [`Cause::Limit`] when a stubbed memory or table is above our limits.
pub(crate) fn resolve(
    store: &mut Store,
    module: &Module,
    stubs: &[Stub],
    trapped: &TrappedStub,
    mut provided: impl FnMut(&mut Store, &str, &str, &ImportType) -> Result<Option<Extern>, Failure>,
) -> Result<Vec<Extern>, Failure> {
    let mut externs = Vec::with_capacity(module.imports().len());
    let mut missing: Vec<String> = Vec::new();
    for import in module.imports() {
        if let Some(e) = provided(store, &import.module, &import.name, &import.ty)? {
            externs.push(e);
            continue;
        }
        let Some(stub) = stubs.iter().find(|s| s.matches(&import.module, &import.name)) else {
            missing.push(format!("{}.{}: {}", import.module, import.name, describe(module, &import.ty)));
            continue;
        };
        externs.push(stubbed(store, module, import, stub.action, trapped)?);
    }
    if !missing.is_empty() {
        let n = missing.len();
        return Err(Failure {
            cause: Cause::Unresolved,
            message: format!(
                "{n} unresolved import{}: {}",
                if n == 1 { "" } else { "s" },
                missing.join(", ")
            ),
            function: None,
            counters: None,
        });
    }
    Ok(externs)
}

fn stubbed(
    store: &mut Store,
    module: &Module,
    import: &crate::wasm::Import,
    action: StubAction,
    trapped: &TrappedStub,
) -> Result<Extern, Failure> {
    let limit = |e: InstantiateError| Failure {
        cause: Cause::Limit,
        message: format!("stub for {}.{}: {e}", import.module, import.name),
        function: None,
        counters: None,
    };
    Ok(match &import.ty {
        ImportType::Func(t) => {
            let ty = module.type_at(*t).cloned().unwrap_or_default();
            let results: Vec<Value> = ty.results().iter().map(|&r| Value::default_of(r)).collect();
            let name = format!("{}.{}", import.module, import.name);
            let trapped = trapped.clone();
            Extern::Func(store.host_func(ty, move |_, _, out| match action {
                StubAction::Zero => {
                    out.copy_from_slice(&results);
                    Ok(())
                }
                StubAction::Trap => {
                    *trapped.borrow_mut() = Some(name.clone());
                    Err(crate::wasm::TrapKind::Host)
                }
            }))
        }
        ImportType::Global(GlobalType { content_type, mutable }) => Extern::Global(store.new_global(
            GlobalType { content_type: *content_type, mutable: *mutable },
            Value::default_of(*content_type),
        )),
        ImportType::Memory(m) => Extern::Memory(store.new_memory(*m).map_err(limit)?),
        ImportType::Table(t) => {
            if t.initial > u64::from(store.limits().max_table_elements) {
                return Err(Failure {
                    cause: Cause::Limit,
                    message: format!(
                        "stub for {}.{}: a table of {} elements is above our limit of {}",
                        import.module,
                        import.name,
                        t.initial,
                        store.limits().max_table_elements
                    ),
                    function: None,
                    counters: None,
                });
            }
            let null = Value::default_of(t.element_type.into());
            Extern::Table(store.new_table(*t, null))
        }
        // A tag of its own: no other module throws its exceptions.
        ImportType::Tag(t) => Extern::Tag(store.new_tag(module.type_at(*t).cloned().unwrap_or_default())),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs_match_runs_of_characters() {
        let m = |p: &str, t: &str| glob(p.as_bytes(), t.as_bytes());
        assert!(m("env.*", "env.host_answer"));
        assert!(m("*", "a.b"));
        assert!(m("*.host_*", "env.host_answer"));
        assert!(m("env.abort", "env.abort"));
        assert!(!m("env.abort", "env.abortx"));
        assert!(!m("env.*", "wasi.fd_write"));
        assert!(m("e*v.*a*", "env.abort"));
        assert!(!m("a*b", "acbd"));
        assert!(m("a**b", "ab"));
        assert!(!m("", "x"));
        assert!(m("", ""));
    }
}
