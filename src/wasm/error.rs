//! Errors of loading, linking and executing modules.
//!
//! Every error that concerns module bytes carries the byte offset of its cause in the module
//! (the wasmparser convention); traps carry their kind and the byte
//! offset of the trapping instruction.

use alloc::string::String;
use core::fmt;

/// Why a module could not be loaded: it is malformed, invalid for WebAssembly 2.0, or exceeds a
/// [`Limits`](super::Limits) value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoadError {
    /// Byte offset in the module where the problem was found.
    pub offset: usize,
    /// What kind of problem.
    pub kind: LoadErrorKind,
    /// A readable reason (the decoder's or validator's message for `Invalid`).
    pub message: String,
}

/// The class of a [`LoadError`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LoadErrorKind {
    /// The bytes do not decode, or do not validate, as a WebAssembly 2.0 module (this includes
    /// features outside 2.0, which the validator rejects).
    Invalid,
    /// A limit of ours was exceeded (module size, memory, function count...).
    Limit,
}

impl LoadError {
    #[cold]
    pub(crate) fn invalid(e: wasmparser::BinaryReaderError) -> Self {
        // Some decoder messages pretty-print byte arrays over several lines (the magic number's
        // `expected=[\n    0x0,\n ...`); errors here are one line.
        let message = match e.message().contains('\n') {
            true => e.message().split_whitespace().collect::<alloc::vec::Vec<_>>().join(" "),
            false => e.message().into(),
        };
        LoadError { offset: e.offset() as usize, kind: LoadErrorKind::Invalid, message }
    }

    #[cold]
    pub(crate) fn limit(offset: impl TryInto<usize>, message: String) -> Self {
        LoadError { offset: offset.try_into().unwrap_or(usize::MAX), kind: LoadErrorKind::Limit, message }
    }
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} (at offset 0x{:x})", self.message, self.offset)
    }
}

#[cfg(feature = "std")]
impl std::error::Error for LoadError {}

/// The kinds of trap (WebAssembly 2.0 execution; docs/interpreter.md, "Traps"). Display strings
/// are the spec test suite's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TrapKind {
    /// `unreachable` executed.
    Unreachable,
    /// A load, store or bulk memory operation outside the memory.
    MemoryOutOfBounds,
    /// A table access outside the table (including `call_indirect` with an index past the end).
    TableOutOfBounds,
    /// `call_indirect` with an index past the end of the table.
    UndefinedElement,
    /// `call_indirect` on a null table element.
    UninitializedElement,
    /// `call_indirect` whose element has another function type.
    IndirectCallTypeMismatch,
    /// Integer division or remainder by zero.
    IntegerDivideByZero,
    /// Signed division overflow, or a float-to-integer truncation out of range.
    IntegerOverflow,
    /// Float-to-integer truncation of a NaN.
    InvalidConversionToInteger,
    /// A data or element segment access outside the segment (`memory.init`, `table.init`).
    /// Reported with the spec suite's string for the target it was copying to.
    SegmentOutOfBounds,
    /// The call stack (frames or value stack) is exhausted.
    StackOverflow,
    /// A host function reported an error.
    Host,
}

impl TrapKind {
    /// The trap's message as the spec test suite spells it.
    pub fn message(self) -> &'static str {
        match self {
            TrapKind::Unreachable => "unreachable",
            TrapKind::MemoryOutOfBounds => "out of bounds memory access",
            TrapKind::TableOutOfBounds => "out of bounds table access",
            TrapKind::UndefinedElement => "undefined element",
            TrapKind::UninitializedElement => "uninitialized element",
            TrapKind::IndirectCallTypeMismatch => "indirect call type mismatch",
            TrapKind::IntegerDivideByZero => "integer divide by zero",
            TrapKind::IntegerOverflow => "integer overflow",
            TrapKind::InvalidConversionToInteger => "invalid conversion to integer",
            TrapKind::SegmentOutOfBounds => "out of bounds",
            TrapKind::StackOverflow => "call stack exhausted",
            TrapKind::Host => "host function error",
        }
    }
}

impl fmt::Display for TrapKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.message())
    }
}

/// A trap: its kind and where it happened.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Trap {
    /// What trapped.
    pub kind: TrapKind,
    /// Byte offset, in the module, of the trapping instruction (0 when the trap happened
    /// outside any instruction, e.g. in instantiation's segment copies or a host function).
    pub offset: u32,
}

impl fmt::Display for Trap {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} (at offset 0x{:x})", self.kind, self.offset)
    }
}

/// Why an invocation did not return values.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ExecError {
    /// The code trapped.
    Trap(Trap),
    /// The instruction budget ran out (docs/counting.md, "The budget"): a distinct outcome, not a
    /// trap. `offset` is the byte offset of the next instruction that would have executed.
    BudgetExhausted {
        /// Byte offset in the module of the next instruction.
        offset: u32,
    },
    /// The call did not match the function: wrong argument count or types.
    Signature(String),
}

impl fmt::Display for ExecError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ExecError::Trap(t) => write!(f, "trap: {t}"),
            ExecError::BudgetExhausted { offset } => {
                write!(f, "instruction budget exhausted (next instruction at offset 0x{offset:x})")
            }
            ExecError::Signature(m) => write!(f, "bad call: {m}"),
        }
    }
}

#[cfg(feature = "std")]
impl std::error::Error for ExecError {}

/// Why instantiation failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum InstantiateError {
    /// An import is missing or has an incompatible type (the spec's "unknown import" and
    /// "incompatible import type").
    Link(String),
    /// A segment did not fit or the start function trapped or ran out of budget.
    Exec(ExecError),
    /// A limit of ours was exceeded (memory or table size).
    Limit(String),
}

impl fmt::Display for InstantiateError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            InstantiateError::Link(m) => write!(f, "link error: {m}"),
            InstantiateError::Exec(e) => write!(f, "{e}"),
            InstantiateError::Limit(m) => write!(f, "limit exceeded: {m}"),
        }
    }
}

#[cfg(feature = "std")]
impl std::error::Error for InstantiateError {}
