//! Why a run failed: a [`Cause`] in the program's own terms (module offsets, input offsets,
//! uniform indices) with a one-line message, the function it stopped in and the counters so
//! far. The Content front ends turn a cause into a rejection mode and a request offset
//! ([`crate::tools::modes::of`], docs/rejections.md); the CLI words it for people.

use alloc::boxed::Box;
use alloc::string::String;

use crate::wasm::{Counters, ExecError, TrapKind};

/// What went wrong, and where in its own terms; [`crate::tools::modes::of`] gives its
/// rejection mode.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Cause {
    /// Mode 1: the module does not decode or validate; `offset` in the module.
    Invalid {
        /// Byte offset in the module.
        offset: usize,
    },
    /// Mode 2: the Content contract is violated (or the input does not fit it).
    Contract,
    /// Mode 3: uniform `index` (in the sorted list) has no setter, a bad setter signature, or a
    /// value that does not parse.
    Uniform {
        /// Index in the sorted uniform list.
        index: usize,
    },
    /// Mode 4: a trap at `offset` in the module.
    Trap {
        /// Byte offset of the trapping instruction in the module.
        offset: u32,
        /// Which trap.
        kind: TrapKind,
    },
    /// Mode 5: the budget ran out; `offset` of the next instruction in the module.
    Budget {
        /// Byte offset of the next instruction in the module.
        offset: u32,
    },
    /// Mode 6: the target rejected its input; `offset` into the input when the target declares
    /// failure modes, else `None`.
    Rejected {
        /// The target's offset into its input (`detail / modes`).
        offset: Option<u32>,
        /// The target's own mode (`detail % modes`).
        mode: Option<u32>,
    },
    /// Mode 7: the target's output is invalid (range, capacity, UTF-8, reserved bits).
    Output,
    /// Mode 9: a limit of ours (module size, memory, stack depth).
    Limit,
    /// Mode 8: the run finished but left nothing to show (the heat map and the report: no
    /// page at or above `first_page` was read or written).
    NothingToReport,
    /// A program's imports that the run cannot provide (neither WASI nor a stub); the
    /// message names each with its type. Never a Content target's (they have no imports):
    /// mode 2 if it were.
    Unresolved,
    /// The export a program run calls is missing, is not a function, or does not take the
    /// arguments given. Mode 2 if a Content target's.
    Entry,
    /// The host could not be set up for the program (a preopened directory that does not
    /// exist, an unreadable stdin). Mode 9 if a Content target's.
    Setup,
}

/// A failed run: its cause, a one-line reason, and where the target was when it stopped.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failure {
    /// Classification and location.
    pub cause: Cause,
    /// What happened, in one line.
    pub message: String,
    /// The index (imports first) of the function holding the trapping instruction, the next
    /// instruction of an exhausted budget or the call past the stack limit.
    pub function: Option<u32>,
    /// The counters when the run stopped (setters and render together); `None` when the
    /// target never ran (an invalid module, a contract violation, an instantiation trap).
    /// Boxed: a failure travels through every `?` of a run, so it stays small.
    pub counters: Option<Box<Counters>>,
}

/// A failure before the target ran.
pub(crate) fn fail<T>(cause: Cause, message: String) -> Result<T, Failure> {
    Err(Failure { cause, message, function: None, counters: None })
}

/// [`fail`] once `render` has returned: the counters of the whole run are known.
pub(crate) fn fail_after<T>(counters: Counters, cause: Cause, message: String) -> Result<T, Failure> {
    Err(Failure { cause, message, function: None, counters: Some(Box::new(counters)) })
}

/// The failure of a call that stopped with `e`, with the function it stopped in and the
/// counters so far.
pub(crate) fn exec_failure(e: ExecError, counters: Option<Box<Counters>>) -> Failure {
    let (cause, message, function) = match e {
        ExecError::Trap(t) if t.kind == TrapKind::StackOverflow => {
            (Cause::Limit, reason!("call stack limit exceeded at module offset {}", t.offset), t.func)
        }
        ExecError::Trap(t) => (
            Cause::Trap { offset: t.offset.0, kind: t.kind },
            reason!("target trapped: {} at module offset {}", t.kind, t.offset),
            t.func,
        ),
        ExecError::BudgetExhausted { offset, func } => (
            Cause::Budget { offset: offset.0 },
            reason!("instruction budget exhausted (next instruction at module offset {offset})"),
            func,
        ),
        ExecError::Signature(s) => (Cause::Contract, reason!("{s}"), None),
        e @ ExecError::UnknownFunc => (Cause::Contract, reason!("{e}"), None),
    };
    Failure { cause, message, function: function.map(|f| f.0), counters }
}
