//! The bounded WebAssembly interpreter.
//!
//! * Load: [`Module::new`] decodes and fully validates a module (WebAssembly 2.0, with a
//!   decoder and validator of our own, `src/wasm/binary`), rejecting with a byte offset, and
//!   translates every function body once into a compact internal form with resolved branch
//!   targets and operand slots.
//! * Run: a [`Store`] instantiates modules (imports through [`Extern`]s: host functions,
//!   globals, tables, memories) and calls functions with [`Store::call`] or, observed by an
//!   [`Observer`], with [`Store::call_observed`].
//! * Count: [`Counters`] follow docs/counting.md exactly; [`Store::set_budget`]
//!   bounds a run to a number of instructions: exhaustion is
//!   [`ExecError::BudgetExhausted`], distinct from a trap. [`Limits`] bound memory, tables,
//!   frames and the value stack (docs/limits.md).

pub(crate) mod binary;
mod counters;
mod disasm;
mod error;
mod exec;
pub(crate) mod ir;
mod limits;
mod load;
mod module;
pub(crate) mod num;
mod observe;
mod store;
mod translate;
mod value;

pub use binary::names::Names;
pub use binary::operators::Operator;
pub use binary::proposals::{Proposal, Sign};
pub use binary::types::{
    BlockType, ExternalKind, FuncType, GlobalType, MemArg, MemoryType, RefType, TableType, ValType,
};
pub use counters::Counters;
pub use error::{
    ExecError, FuncIndex, InstantiateError, Invalid, Limit, LimitExceeded, LinkError, LoadError,
    LoadErrorKind, ModuleOffset, SignatureMismatch, Trap, TrapKind,
};
pub use limits::Limits;
pub use module::{Export, Getter, Import, ImportType, Module};
pub use observe::{NoObserver, Observer};
pub use store::{Caller, Extern, Func, Global, HostFn, Instance, Memory, Store, Table, Tag};
pub use value::Value;
