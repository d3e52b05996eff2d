//! The typed run at the library's centre (docs/architecture.md): what to run and with what
//! bounds, executed once under an observer, giving one [`Finished`] that every analysis and
//! renderer takes (CSV, KTX2, PNG view, HTML report, counters).
//!
//! ```text
//! front end (CLI arguments | Content request bytes | WIT call)
//!   -> Run { program, budget, limits }
//!   -> Run::execute(observer)            the interpreter, host functions, observation
//!   -> Finished { counters, end, layout }
//!   -> crate::tools (page table, heat map, report)
//! ```
//!
//! A [`Program`] is a Content target with its input and uniforms (docs/content.md), a WASI
//! command run through `_start` with its arguments, environment, directories and standard
//! streams, or any module's export called with arguments, its imports provided by WASI and the
//! user's stubs ([`imports`]). The multipart request of the Content components is one way to
//! build a Content run ([`crate::tools::Request::content_run`]).
//!
//! A Content target that traps, runs out of budget or returns no valid output fails: that is a
//! rejection (docs/rejections.md). A program that traps or runs out of budget has still run,
//! and the analyses cover it up to there: its end is [`End::Stopped`].

pub mod failure;
#[cfg(feature = "std")]
pub mod imports;
pub mod kind;
pub mod layout;

#[cfg(feature = "std")]
use alloc::string::String;
use alloc::sync::Arc;
use alloc::vec::Vec;

pub use failure::{Cause, Failure};
#[cfg(feature = "std")]
pub use imports::{Stub, StubAction};
pub use kind::{Detected, Kind};
pub use layout::{Heap, HeapSource, Layout, StackPointer, StackSource};

use crate::content::contract::Contract;
use crate::content::run::TargetUniform;
use crate::wasm::{Counters, Limits, Module, Observer, Value};

/// One run: the program, its instruction budget and the interpreter's limits.
pub struct Run<'a> {
    /// What to run.
    pub program: Program<'a>,
    /// Most instructions to execute (docs/counting.md): a Content target's setters and
    /// `render` together; everything a program executes (its start function, `_initialize`,
    /// the entry). `None`: no limit.
    pub budget: Option<u64>,
    /// The interpreter's limits (docs/limits.md).
    pub limits: Limits,
}

impl core::fmt::Debug for Run<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Run")
            .field("budget", &self.budget)
            .field("limits", &self.limits)
            .finish_non_exhaustive()
    }
}

/// What a run runs.
pub enum Program<'a> {
    /// A QIP Content target (docs/content.md): `render(input)` after the uniform setters.
    Content(Content<'a>),
    /// A module's export called with arguments (after `_initialize` when the module exports
    /// one), its imports provided by WASI and stubs.
    #[cfg(feature = "std")]
    Invoke(Invoke<'a>),
    /// A WASI command: `_start`, with WASI preview 1 (docs/wasi.md).
    #[cfg(feature = "wasi")]
    Command(Command<'a>),
}

/// A Content target, its input and its uniforms.
#[derive(Debug, Clone)]
pub struct Content<'a> {
    /// The target module's bytes.
    pub module: &'a [u8],
    /// The input bytes (empty without input).
    pub input: &'a [u8],
    /// Target uniforms, sorted by key (as the request parser gives them).
    pub uniforms: Vec<TargetUniform<'a>>,
}

/// A module's export to call.
#[cfg(feature = "std")]
#[derive(Debug)]
pub struct Invoke<'a> {
    /// The module's bytes.
    pub module: &'a [u8],
    /// `module` already loaded with the run's limits (a front end that looked at its exports
    /// first need not load it twice); `None`: the run loads it.
    pub loaded: Option<Arc<Module>>,
    /// The exported function to call.
    pub export: String,
    /// Its arguments, in parameter order.
    pub args: Vec<Value>,
    /// How the module's imports are provided.
    pub imports: Imports,
}

/// A WASI command.
#[cfg(feature = "wasi")]
#[derive(Debug)]
pub struct Command<'a> {
    /// The module's bytes.
    pub module: &'a [u8],
    /// `module` already loaded with the run's limits; `None`: the run loads it.
    pub loaded: Option<Arc<Module>>,
    /// How the module's imports are provided (WASI must be configured).
    pub imports: Imports,
}

/// How a program's imports are provided ([`imports`]).
#[cfg(feature = "std")]
#[derive(Default)]
pub struct Imports {
    /// WASI preview 1 for `wasi_snapshot_preview1` imports; taken by the first execution.
    #[cfg(feature = "wasi")]
    pub wasi: Option<crate::wasi::Config>,
    /// The stubs, first match wins.
    pub stubs: Vec<Stub>,
}

#[cfg(feature = "std")]
impl core::fmt::Debug for Imports {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        let mut d = f.debug_struct("Imports");
        #[cfg(feature = "wasi")]
        d.field("wasi", &self.wasi.is_some());
        d.field("stubs", &self.stubs).finish()
    }
}

/// How a run ended.
#[derive(Debug, Clone, PartialEq)]
pub enum End {
    /// A Content target's valid output.
    Output {
        /// The output bytes.
        bytes: Vec<u8>,
        /// Where they lay in the target's memory (byte address).
        ptr: u32,
        /// The target's contract.
        contract: Contract,
    },
    /// A WASI command ended: `proc_exit(code)`, or 0 when `_start` returned.
    Exit(u32),
    /// The called export returned these values.
    Return(Vec<Value>),
    /// A program trapped or ran out of budget (never a Content target, which fails instead).
    Stopped(Failure),
}

/// A finished run: what every analysis and renderer takes.
#[derive(Debug, Clone)]
pub struct Finished {
    /// What kind of program ran.
    pub kind: Kind,
    /// The module that ran.
    pub module: Arc<Module>,
    /// The run's counters (docs/counting.md): a Content target's setters and `render`; all
    /// of a program's execution.
    pub counters: Counters,
    /// Size of memory 0 at the end, in bytes.
    pub memory_bytes: u64,
    /// How it ended.
    pub end: End,
    /// What is known of its memory's layout.
    pub layout: Layout,
}

impl Finished {
    /// A Content target's output bytes, if it has any.
    pub fn output(&self) -> Option<&[u8]> {
        match &self.end {
            End::Output { bytes, .. } => Some(bytes),
            _ => None,
        }
    }
}

impl<'a> Run<'a> {
    /// A run of a Content target with at most `budget` instructions for setters and `render`
    /// and the default limits.
    pub fn content(content: Content<'a>, budget: u64) -> Run<'a> {
        Run { program: Program::Content(content), budget: Some(budget), limits: Limits::default() }
    }

    /// The module's bytes.
    pub fn module(&self) -> &'a [u8] {
        match &self.program {
            Program::Content(c) => c.module,
            #[cfg(feature = "std")]
            Program::Invoke(i) => i.module,
            #[cfg(feature = "wasi")]
            Program::Command(c) => c.module,
        }
    }

    /// Whether the program is a Content target.
    pub fn is_content(&self) -> bool {
        matches!(self.program, Program::Content(_))
    }

    /// Runs the program, reporting every event to `observer` (for a Content target the
    /// setters, then [`Observer::begin_render`], then `render`; for a program
    /// [`Observer::begin_render`] first, then everything it executes). A Content run may be
    /// executed again (the heat map's two-run fallback); a program's WASI host is taken by
    /// its first execution, so a command executes once.
    ///
    /// # Errors
    /// A [`Failure`]: for a Content target anything that keeps it from a valid output; for a
    /// program what keeps it from running (an invalid module, unresolved imports, a missing
    /// export, a host that cannot be set up), never its trap.
    pub fn execute<O: Observer>(&mut self, observer: &mut O) -> Result<Finished, Failure> {
        let budget = self.budget.unwrap_or(u64::MAX);
        match &mut self.program {
            Program::Content(c) => {
                let o =
                    crate::content::run::run(c.module, c.input, &c.uniforms, budget, &self.limits, observer)?;
                let output = Some((o.output_ptr as u64, o.output_ptr as u64 + o.output.len() as u64));
                let layout = Layout::content(&o.module, &o.contract, c.input.len(), output);
                Ok(Finished {
                    kind: Kind::Content,
                    module: o.module,
                    counters: o.counters,
                    memory_bytes: o.memory_bytes,
                    end: End::Output { bytes: o.output, ptr: o.output_ptr, contract: o.contract },
                    layout,
                })
            }
            #[cfg(feature = "std")]
            Program::Invoke(i) => {
                let entry = program::Entry::Export { name: &i.export, args: &i.args };
                let target = program::Target { bytes: i.module, loaded: i.loaded.clone() };
                program::run(target, &mut i.imports, entry, self.budget, &self.limits, observer)
            }
            #[cfg(feature = "wasi")]
            Program::Command(c) => {
                let target = program::Target { bytes: c.module, loaded: c.loaded.clone() };
                program::run(
                    target,
                    &mut c.imports,
                    program::Entry::Start,
                    self.budget,
                    &self.limits,
                    observer,
                )
            }
        }
    }
}

#[cfg(feature = "std")]
mod program;

#[cfg(feature = "std")]
pub use program::exported_functions;
