//! Errors of loading, linking and executing modules, as typed values.
//!
//! Every error carries structured fields rather than a sentence: the byte offset of its cause
//! in the module ([`ModuleOffset`], the wasmparser convention), the function it happened in
//! ([`FuncIndex`]), the limit that was exceeded and by how much. `Display` turns them into one
//! line; code that needs to decide something matches on the fields. Only the validator's own
//! messages arrive as text (wasmparser has no typed form of them).

use alloc::boxed::Box;
use alloc::string::String;
use alloc::vec::Vec;
use core::fmt;

use super::ValType;

/// A byte offset in a module's binary: where an instruction, a section or an entry begins.
/// Modules are at most [`Limits::max_module_bytes`](super::Limits) long, so 32 bits hold every
/// offset. Displays as `0x…` (lowercase hex), the form `wasm-tools` and `wasm-objdump` print.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct ModuleOffset(pub u32);

impl ModuleOffset {
    /// The offset of a position given in a wider type (wasmparser reports `u64` or `usize`),
    /// saturated at `u32::MAX`.
    pub fn saturating(offset: impl TryInto<u32>) -> Self {
        ModuleOffset(offset.try_into().unwrap_or(u32::MAX))
    }
}

impl fmt::Display for ModuleOffset {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "0x{:x}", self.0)
    }
}

/// An index in a module's function index space: imported functions first, then the defined
/// ones in code-section order (WebAssembly 2.0, section 2.5.1 "Indices"). Displays as
/// `func[N]`, the form `wasm-tools print` uses for unnamed functions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct FuncIndex(pub u32);

impl fmt::Display for FuncIndex {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "func[{}]", self.0)
    }
}

/// Why a module could not be loaded: it is malformed, invalid for WebAssembly 2.0, uses
/// something we do not run, or exceeds a [`Limits`](super::Limits) value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoadError {
    /// Where in the module the problem was found.
    pub offset: ModuleOffset,
    /// What the problem is.
    pub kind: LoadErrorKind,
}

/// The cause of a [`LoadError`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LoadErrorKind {
    /// The bytes do not decode, or do not validate, as a WebAssembly 2.0 module (this includes
    /// features outside 2.0, which the validator rejects). The text is the decoder's or the
    /// validator's message, on one line.
    Invalid(Box<str>),
    /// A limit of ours was exceeded.
    Limit(LimitExceeded),
    /// The module is valid but uses something this interpreter does not run.
    Unsupported(Unsupported),
}

impl LoadErrorKind {
    /// Whether the module was refused by one of our own bounds (a limit, or something we do not
    /// run) rather than for being malformed or invalid.
    pub fn is_limit(&self) -> bool {
        matches!(self, LoadErrorKind::Limit(_) | LoadErrorKind::Unsupported(_))
    }
}

/// A valid module's feature that the interpreter does not run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unsupported {
    /// An import of an exception tag.
    Tags,
    /// A constant expression with an instruction other than `*.const`, `ref.null`, `ref.func`
    /// and `global.get`.
    ConstantExpression,
    /// A memory access whose static offset does not fit in 32 bits.
    WideMemoryOffset,
    /// An operator the translator has no form for; `bytes` are its first encoded bytes
    /// (`len` of them: the opcode, and the LEB128 sub-opcode of a prefixed one).
    Operator {
        /// The operator's first bytes as encoded in the module.
        bytes: [u8; 8],
        /// How many of `bytes` are meaningful (1 to 8).
        len: u8,
    },
}

impl fmt::Display for Unsupported {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Unsupported::Tags => f.write_str("tags are not supported"),
            Unsupported::ConstantExpression => f.write_str("unsupported constant expression"),
            Unsupported::WideMemoryOffset => f.write_str("memory offset beyond 32 bits"),
            Unsupported::Operator { bytes, len } => {
                f.write_str("unsupported operator (encoded as")?;
                for b in &bytes[..*len as usize] {
                    write!(f, " {b:02x}")?;
                }
                f.write_str(")")
            }
        }
    }
}

/// Which bound of ours a module or an instantiation exceeded, with the bound's value. The
/// bounds and their defaults are documented on [`Limits`](super::Limits) and in docs/limits.md.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Limit {
    /// [`Limits::max_module_bytes`](super::Limits::max_module_bytes); the value is the
    /// module's size in bytes.
    ModuleBytes(u64),
    /// [`Limits::max_memory_bytes`](super::Limits::max_memory_bytes) against a memory
    /// section's initial size; the value is in 64 KiB pages.
    InitialMemory(u64),
    /// [`Limits::max_memory_bytes`](super::Limits::max_memory_bytes) against a memory created
    /// at instantiation; the value is in 64 KiB pages.
    Memory(u64),
    /// [`Limits::max_table_elements`](super::Limits::max_table_elements); the value is the
    /// table's initial size in elements.
    TableElements(u64),
    /// [`Limits::max_functions`](super::Limits::max_functions); the value is the number of
    /// functions declared.
    Functions(u64),
    /// Parameters and locals of one function (32,768); the value is the count declared so far.
    Locals(u64),
    /// Slots of one frame (locals plus the deepest operand stack), the smaller of 65,536 and
    /// [`Limits::max_value_stack`](super::Limits::max_value_stack); the value is the slots
    /// needed.
    FrameSlots(u64),
}

/// A bound of ours exceeded: which one (with its value) and the value that exceeded it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LimitExceeded {
    /// The bound.
    pub limit: Limit,
    /// The value that exceeded it, in the unit the [`Limit`] variant names.
    pub value: u64,
}

impl fmt::Display for LimitExceeded {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let value = self.value;
        match self.limit {
            Limit::ModuleBytes(max) => {
                write!(f, "module is {value} bytes, larger than the limit of {max} bytes")
            }
            Limit::InitialMemory(max) => {
                write!(f, "initial memory of {value} pages exceeds the limit of {max} bytes")
            }
            Limit::Memory(max) => write!(f, "memory of {value} pages exceeds the limit of {max} bytes"),
            Limit::TableElements(max) => write!(f, "table of {value} elements exceeds the limit of {max}"),
            Limit::Functions(max) => write!(f, "more than {max} functions"),
            Limit::Locals(max) => write!(f, "more than {max} locals"),
            Limit::FrameSlots(max) => {
                write!(f, "function needs more than {max} slots for locals and operands")
            }
        }
    }
}

impl LoadError {
    #[cold]
    pub(crate) fn invalid(e: wasmparser::BinaryReaderError) -> Self {
        // Some decoder messages pretty-print byte arrays over several lines (the magic number's
        // `expected=[\n    0x0,\n ...`); errors here are one line.
        let message: Box<str> = match e.message().contains('\n') {
            true => e.message().split_whitespace().collect::<Vec<_>>().join(" ").into(),
            false => e.message().into(),
        };
        LoadError { offset: ModuleOffset::saturating(e.offset()), kind: LoadErrorKind::Invalid(message) }
    }

    #[cold]
    pub(crate) fn limit(offset: impl TryInto<u32>, limit: Limit, value: u64) -> Self {
        LoadError {
            offset: ModuleOffset::saturating(offset),
            kind: LoadErrorKind::Limit(LimitExceeded { limit, value }),
        }
    }

    #[cold]
    pub(crate) fn unsupported(offset: impl TryInto<u32>, what: Unsupported) -> Self {
        LoadError { offset: ModuleOffset::saturating(offset), kind: LoadErrorKind::Unsupported(what) }
    }
}

impl fmt::Display for LoadErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LoadErrorKind::Invalid(m) => f.write_str(m),
            LoadErrorKind::Limit(l) => l.fmt(f),
            LoadErrorKind::Unsupported(u) => u.fmt(f),
        }
    }
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} (at offset {})", self.kind, self.offset)
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
    /// The trapping instruction (0 when the trap happened outside any instruction, e.g. in
    /// instantiation's segment copies or a host function).
    pub offset: ModuleOffset,
    /// The function whose instruction trapped, in its module's index space; `None` outside
    /// any function body (segment copies, a host function, a call refused before it ran).
    pub func: Option<FuncIndex>,
}

impl Trap {
    /// A trap outside any instruction (offset 0, no function).
    pub(crate) fn outside(kind: TrapKind) -> Self {
        Trap { kind, offset: ModuleOffset(0), func: None }
    }
}

impl fmt::Display for Trap {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} (at offset {})", self.kind, self.offset)
    }
}

/// The function type a call expected and the argument types it was given.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SignatureMismatch {
    /// The function's parameter types.
    pub expected: Box<[ValType]>,
    /// The types of the arguments given.
    pub got: Box<[ValType]>,
}

impl fmt::Display for SignatureMismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "expected parameters {:?}, got {:?}", self.expected, self.got)
    }
}

/// Why an invocation did not return values.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ExecError {
    /// The code trapped.
    Trap(Trap),
    /// The instruction budget ran out (docs/counting.md, "The budget"): a distinct outcome, not a
    /// trap.
    BudgetExhausted {
        /// The next instruction that would have executed.
        offset: ModuleOffset,
        /// The function that instruction belongs to (in its module's index space).
        func: Option<FuncIndex>,
    },
    /// The call did not match the function: wrong argument count or types (boxed: the error
    /// type stays two words wide).
    Signature(Box<SignatureMismatch>),
    /// The function handle does not belong to this store.
    UnknownFunc,
}

impl fmt::Display for ExecError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ExecError::Trap(t) => write!(f, "trap: {t}"),
            ExecError::BudgetExhausted { offset, .. } => {
                write!(f, "instruction budget exhausted (next instruction at offset {offset})")
            }
            ExecError::Signature(s) => write!(f, "bad call: {s}"),
            ExecError::UnknownFunc => f.write_str("bad call: no such function"),
        }
    }
}

#[cfg(feature = "std")]
impl std::error::Error for ExecError {}

/// An import whose provided value has an incompatible type (the spec's "incompatible import
/// type").
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LinkError {
    /// The import's module name.
    pub module: String,
    /// The import's field name.
    pub name: String,
    /// What the module imports there.
    pub kind: super::ExternalKind,
}

/// Why instantiation failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum InstantiateError {
    /// The number of imports given differs from the number the module declares (the spec's
    /// "unknown import" when fewer are given).
    ImportCount {
        /// Imports the module declares.
        expected: u32,
        /// Imports given.
        got: u32,
    },
    /// An import has an incompatible type (boxed: the error type stays small).
    Link(Box<LinkError>),
    /// A segment did not fit or the start function trapped or ran out of budget.
    Exec(ExecError),
    /// A limit of ours was exceeded (memory or table size).
    Limit(LimitExceeded),
}

impl fmt::Display for InstantiateError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            InstantiateError::ImportCount { expected, got } => {
                write!(f, "link error: module needs {expected} imports, {got} given")
            }
            InstantiateError::Link(l) => {
                write!(f, "link error: incompatible import type for {}::{}", l.module, l.name)
            }
            InstantiateError::Exec(e) => write!(f, "{e}"),
            InstantiateError::Limit(l) => write!(f, "limit exceeded: {l}"),
        }
    }
}

#[cfg(feature = "std")]
impl std::error::Error for InstantiateError {}

#[cfg(test)]
mod tests {
    use super::*;

    /// The error types stay small: they travel in every `Result` of loading and calling, so a
    /// large variant would widen all of them (the large payloads are boxed for this). Before
    /// the typed fields: `ExecError` 32 bytes, `LoadError` 40 (sizes on 64-bit targets).
    #[test]
    #[cfg(target_pointer_width = "64")]
    fn error_sizes() {
        use core::mem::size_of;
        assert_eq!(size_of::<ModuleOffset>(), 4);
        assert_eq!(size_of::<FuncIndex>(), 4);
        assert_eq!(size_of::<Trap>(), 16);
        assert_eq!(size_of::<ExecError>(), 16);
        assert_eq!(size_of::<InstantiateError>(), 24);
        assert_eq!(size_of::<LoadError>(), 32);
    }
}
