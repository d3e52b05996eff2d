//! Errors of loading, linking and executing modules, as typed values.
//!
//! Every error carries structured fields rather than a sentence: the byte offset of its cause
//! in the module ([`ModuleOffset`]), the function it happened in ([`FuncIndex`]), what is
//! malformed or invalid ([`Invalid`]), the limit that was exceeded and by how much. `Display`
//! turns them into one line; code that needs to decide something matches on the fields.

use alloc::boxed::Box;
use alloc::string::String;
use core::fmt;

use super::ValType;
use super::binary::proposals::{Proposal, RUNS, Sign};

/// A byte offset in a module's binary: where an instruction, a section or an entry begins.
/// Modules are at most [`Limits::max_module_bytes`](super::Limits) long, so 32 bits hold every
/// offset. Displays as `0x…` (lowercase hex), the form `wasm-tools` and `wasm-objdump` print.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct ModuleOffset(pub u32);

impl ModuleOffset {
    /// The offset of a position given in a wider type (`usize` or `u64`), saturated at
    /// `u32::MAX`.
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

/// Why a module could not be loaded: it is malformed or invalid for WebAssembly 2.0, or it
/// exceeds a [`Limits`](super::Limits) value.
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
    /// The bytes do not decode, or do not validate, as a WebAssembly 2.0 module. This includes
    /// features outside 2.0, which are malformed or invalid for 2.0: those the decoder knows
    /// are [`Invalid::Proposal`], named by their proposal.
    Invalid(Invalid),
    /// A limit of ours was exceeded.
    Limit(LimitExceeded),
}

impl LoadErrorKind {
    /// Whether the module was refused by one of our own bounds rather than for being
    /// malformed or invalid.
    pub fn is_limit(&self) -> bool {
        matches!(self, LoadErrorKind::Limit(_))
    }

    /// The proposal after WebAssembly 2.0 the module was refused for using, if that is why.
    pub fn proposal(&self) -> Option<Proposal> {
        match self {
            LoadErrorKind::Invalid(Invalid::Proposal(s)) => Some(s.proposal()),
            _ => None,
        }
    }
}

/// What makes a module malformed (it does not decode: spec chapter 5, "Binary Format") or
/// invalid (it decodes but breaks a rule of spec chapter 3, "Validation"). Displays as the
/// specification's test suite words it where it has a word for it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Invalid {
    /// The bytes end inside a construct.
    UnexpectedEnd,
    /// A LEB128 integer longer than its type allows.
    IntegerTooLong,
    /// A LEB128 integer whose last byte has bits its type does not have.
    IntegerTooLarge,
    /// A length or count larger than the bytes that remain.
    LengthOutOfBounds,
    /// A name that is not UTF-8.
    Utf8,
    /// The module does not start with `\0asm`: its first four bytes.
    MagicNumber([u8; 4]),
    /// The module's version is not 1.
    Version,
    /// A section id above 12.
    SectionId(u8),
    /// A section after one that must follow it, or a second one of its kind.
    SectionOrder(u8),
    /// A section's contents end before or after its declared size.
    SectionSizeMismatch,
    /// A byte that is not a value type.
    ValType,
    /// A byte that is not a reference type.
    RefType,
    /// Limits whose flag byte is neither 0 nor 1.
    LimitsFlags,
    /// A type section entry that is not a function type (`0x60`).
    FuncTypeForm,
    /// A global's mutability byte is neither 0 nor 1.
    Mutability,
    /// An import or export kind byte above 3.
    ExternalKind,
    /// An element segment's flags above 7, or an element kind other than `0x00`.
    ElemKind,
    /// A data segment's flags above 2.
    DataKind,
    /// An opcode that is not an operator of WebAssembly 2.0: its byte, and the sub-opcode of
    /// a prefixed one (`u32::MAX` for none).
    Opcode {
        /// The opcode byte.
        byte: u8,
        /// The sub-opcode after a `0xFC` or `0xFD` prefix.
        sub: u32,
    },
    /// A typed `select` with other than one type.
    SelectArity,
    /// A reserved byte (the memory index of 2.0's memory instructions) that is not zero.
    ZeroByte,
    /// More locals than a function can declare (2^32 - 1).
    TooManyLocals,
    /// The function and code sections declare different numbers of functions.
    FunctionCodeMismatch,
    /// The data count section and the data section disagree.
    DataCountMismatch,
    /// A function body or constant expression that does not end with `end`.
    EndExpected,
    /// Instructions after the final `end` of a function body.
    OperatorsAfterEnd,
    /// An operand of the wrong type, or a missing or extra operand: the type expected and the
    /// type found, `None` where there is no single type (any type, or no operand).
    TypeMismatch {
        /// The type expected, if one.
        expected: Option<ValType>,
        /// The type found, if an operand was there and its type is known.
        found: Option<ValType>,
    },
    /// A branch to a label that is not in scope.
    UnknownLabel(u32),
    /// A local index past the function's locals.
    UnknownLocal(u32),
    /// A global index past the module's globals.
    UnknownGlobal(u32),
    /// A function index past the module's functions.
    UnknownFunction(u32),
    /// A table index past the module's tables.
    UnknownTable(u32),
    /// A memory index past the module's memories.
    UnknownMemory(u32),
    /// A type index past the type section.
    UnknownType(u32),
    /// A data segment index past the module's data segments.
    UnknownData(u32),
    /// An element segment index past the module's element segments.
    UnknownElem(u32),
    /// `memory.init` or `data.drop` in a module without a data count section.
    DataCountRequired,
    /// `global.set` of an immutable global.
    ImmutableGlobal(u32),
    /// A memory access whose alignment exceeds its natural alignment.
    Alignment,
    /// A lane index past the vector's lanes.
    LaneIndex,
    /// An `else` that closes no `if`.
    ElseWithoutIf,
    /// `br_table` labels of different arities.
    BrTableArity,
    /// `ref.func` of a function the module does not declare outside its function bodies.
    UndeclaredFunctionReference(u32),
    /// A constant expression with an instruction that is not constant.
    ConstantExpressionRequired,
    /// Two exports of one name.
    DuplicateExport,
    /// More than one memory (2.0's reason; the decoder names multi-memory instead).
    MultipleMemories,
    /// A memory larger than 65,536 pages.
    MemorySize,
    /// Limits whose minimum exceeds their maximum.
    LimitsOrder,
    /// A shared memory without a maximum (the threads proposal).
    SharedMemoryMaximum,
    /// An atomic instruction whose alignment is not its natural alignment (the threads
    /// proposal: atomics take exactly their access width).
    AtomicAlignment,
    /// A start function that takes parameters or returns results.
    StartFunction,
    /// A tag index past the module's tags (the exception-handling proposal).
    UnknownTag(u32),
    /// A tag whose type has results, or a tag attribute other than 0 (exceptions).
    TagType,
    /// A `try_table` catch clause whose kind byte is not 0 to 3.
    CatchKind,
    /// A legacy `catch`, `catch_all` or `delegate` that closes no `try`, or a `catch` after
    /// `catch_all`.
    CatchWithoutTry,
    /// A legacy `rethrow` whose label is not a `catch` or `catch_all` clause.
    RethrowLabel,
    /// A construct of a proposal after 2.0, the first the decoder met: which proposal and what
    /// was seen (the table of signs, docs/interpreter.md "Proposals after 2.0"). Malformed or
    /// invalid for 2.0 like the rest, but named, so that whoever built the module knows which
    /// feature to turn off. Displays as `uses memory64 (a 64-bit memory); the interpreter
    /// runs WebAssembly 2.0 with threads, exceptions, tail calls and extended constants`.
    Proposal(Sign),
}

impl fmt::Display for Invalid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Invalid::UnexpectedEnd => f.write_str("unexpected end"),
            Invalid::IntegerTooLong => f.write_str("integer representation too long"),
            Invalid::IntegerTooLarge => f.write_str("integer too large"),
            Invalid::LengthOutOfBounds => f.write_str("length out of bounds"),
            Invalid::Utf8 => f.write_str("malformed UTF-8 encoding"),
            Invalid::MagicNumber([a, b, c, d]) => write!(
                f,
                "magic header not detected: a module starts with 00 61 73 6d, this one with \
                 {a:02x} {b:02x} {c:02x} {d:02x}"
            ),
            Invalid::Version => f.write_str("unknown binary version"),
            Invalid::SectionId(id) => write!(f, "malformed section id {id}"),
            Invalid::SectionOrder(id) => write!(f, "section {id} out of order or repeated"),
            Invalid::SectionSizeMismatch => f.write_str("section size mismatch"),
            Invalid::ValType => f.write_str("malformed value type"),
            Invalid::RefType => f.write_str("malformed reference type"),
            Invalid::LimitsFlags => f.write_str("malformed limits flags"),
            Invalid::FuncTypeForm => f.write_str("malformed function type"),
            Invalid::Mutability => f.write_str("malformed mutability"),
            Invalid::ExternalKind => f.write_str("malformed import or export kind"),
            Invalid::ElemKind => f.write_str("malformed elements segment kind"),
            Invalid::DataKind => f.write_str("malformed data segment kind"),
            Invalid::Opcode { byte, sub: u32::MAX } => write!(f, "illegal opcode 0x{byte:02x}"),
            Invalid::Opcode { byte, sub } => write!(f, "illegal opcode 0x{byte:02x} {sub}"),
            Invalid::SelectArity => f.write_str("invalid result arity"),
            Invalid::ZeroByte => f.write_str("zero byte expected"),
            Invalid::TooManyLocals => f.write_str("too many locals"),
            Invalid::FunctionCodeMismatch => {
                f.write_str("function and code section have inconsistent lengths")
            }
            Invalid::DataCountMismatch => {
                f.write_str("data count and data section have inconsistent lengths")
            }
            Invalid::EndExpected => f.write_str("END opcode expected"),
            Invalid::OperatorsAfterEnd => f.write_str("operators remaining after end of function"),
            Invalid::TypeMismatch { expected, found } => {
                f.write_str("type mismatch")?;
                match (expected, found) {
                    (Some(e), Some(t)) => write!(f, ": expected {e}, found {t}"),
                    (Some(e), None) => write!(f, ": expected {e}, found nothing"),
                    (None, Some(t)) => write!(f, ": unexpected {t}"),
                    (None, None) => Ok(()),
                }
            }
            Invalid::UnknownLabel(i) => write!(f, "unknown label {i}"),
            Invalid::UnknownLocal(i) => write!(f, "unknown local {i}"),
            Invalid::UnknownGlobal(i) => write!(f, "unknown global {i}"),
            Invalid::UnknownFunction(i) => write!(f, "unknown function {i}"),
            Invalid::UnknownTable(i) => write!(f, "unknown table {i}"),
            Invalid::UnknownMemory(i) => write!(f, "unknown memory {i}"),
            Invalid::UnknownType(i) => write!(f, "unknown type {i}"),
            Invalid::UnknownData(i) => write!(f, "unknown data segment {i}"),
            Invalid::UnknownElem(i) => write!(f, "unknown elem segment {i}"),
            Invalid::DataCountRequired => f.write_str("data count section required"),
            Invalid::ImmutableGlobal(i) => write!(f, "global {i} is immutable"),
            Invalid::Alignment => f.write_str("alignment must not be larger than natural"),
            Invalid::LaneIndex => f.write_str("invalid lane index"),
            Invalid::ElseWithoutIf => f.write_str("else found outside of an `if` block"),
            Invalid::BrTableArity => f.write_str("type mismatch: br_table labels of different arities"),
            Invalid::UndeclaredFunctionReference(i) => write!(f, "undeclared function reference {i}"),
            Invalid::ConstantExpressionRequired => f.write_str("constant expression required"),
            Invalid::DuplicateExport => f.write_str("duplicate export name"),
            Invalid::MultipleMemories => f.write_str("multiple memories"),
            Invalid::MemorySize => f.write_str("memory size must be at most 65536 pages (4GiB)"),
            Invalid::LimitsOrder => f.write_str("size minimum must not be greater than maximum"),
            Invalid::SharedMemoryMaximum => f.write_str("shared memory must have maximum"),
            Invalid::AtomicAlignment => f.write_str("atomic alignment must be natural"),
            Invalid::StartFunction => f.write_str("start function must have type [] -> []"),
            Invalid::UnknownTag(i) => write!(f, "unknown tag {i}"),
            Invalid::TagType => f.write_str("non-empty tag result type"),
            Invalid::CatchKind => f.write_str("malformed catch clause"),
            Invalid::CatchWithoutTry => f.write_str("catch found outside of a `try` block"),
            Invalid::RethrowLabel => f.write_str("invalid rethrow label"),
            Invalid::Proposal(s) => {
                write!(f, "uses {} ({s}); the interpreter runs {RUNS}", s.proposal().name())
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
    /// Instructions counted in one fuel block (straight-line code between branch targets,
    /// docs/counting.md), 2³¹ − 1; the value is the count reached.
    FuelBlock(u64),
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
            Limit::FuelBlock(max) => {
                write!(f, "more than {max} instructions of straight-line code in one function")
            }
        }
    }
}

impl LoadError {
    /// A malformed or invalid module, found at module offset `offset`.
    #[cold]
    pub(crate) fn invalid(offset: impl TryInto<u32>, why: Invalid) -> Self {
        LoadError { offset: ModuleOffset::saturating(offset), kind: LoadErrorKind::Invalid(why) }
    }

    #[cold]
    pub(crate) fn limit(offset: impl TryInto<u32>, limit: Limit, value: u64) -> Self {
        LoadError {
            offset: ModuleOffset::saturating(offset),
            kind: LoadErrorKind::Limit(LimitExceeded { limit, value }),
        }
    }
}

impl fmt::Display for LoadErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LoadErrorKind::Invalid(m) => m.fmt(f),
            LoadErrorKind::Limit(l) => l.fmt(f),
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
    /// A host function ended the program: WASI's `proc_exit` (the exit code is the WASI
    /// host's to report). Not an error of the program, but the end of the run all the same.
    Exit,
    /// An atomic access whose effective address is not a multiple of its width (the threads
    /// proposal; checked before the bounds).
    UnalignedAtomic,
    /// `memory.atomic.wait32` or `wait64` on a memory that is not shared (the threads proposal).
    ExpectedSharedMemory,
    /// `memory.atomic.wait32` or `wait64` found its value and has no timeout (a negative one):
    /// on the one thread the interpreter runs, no `memory.atomic.notify` can ever wake it, so
    /// the run ends here instead of waiting forever.
    Deadlock,
    /// An exception that no handler of the run caught (the exception-handling proposal;
    /// docs/counting.md): `tag` is its tag's index in the tag index space of the module whose
    /// instruction threw it, or `u16::MAX` when that module cannot name it in 16 bits (an
    /// exception of another module's tag thrown again by `throw_ref`, or a tag index past
    /// 65,534). Sixteen bits keep [`Trap`] at 16 bytes.
    UncaughtException {
        /// The tag's index in the throwing module.
        tag: u16,
    },
    /// `throw_ref` of a null `exnref`.
    NullExceptionReference,
    /// A run created more exception objects than [`Limits::max_exceptions`](super::Limits)
    /// allows (docs/limits.md).
    TooManyExceptions,
}

impl TrapKind {
    /// The trap's message as the spec test suite spells it (the threads proposal's suite for
    /// `unaligned atomic`, its reference interpreter for `expected shared memory`); ours for
    /// the kinds the suite has no word for (a host's exit, a deadlock).
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
            TrapKind::Exit => "program exited",
            TrapKind::UnalignedAtomic => "unaligned atomic",
            TrapKind::ExpectedSharedMemory => "expected shared memory",
            TrapKind::Deadlock => {
                "deadlock: memory.atomic.wait without a timeout on the only thread can never be woken"
            }
            TrapKind::UncaughtException { .. } => "uncaught exception",
            TrapKind::NullExceptionReference => "null exception reference",
            TrapKind::TooManyExceptions => "too many exceptions",
        }
    }
}

impl fmt::Display for TrapKind {
    /// The message; an uncaught exception adds its tag: `uncaught exception (tag 1)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            TrapKind::UncaughtException { tag } if tag != u16::MAX => {
                write!(f, "{} (tag {tag})", self.message())
            }
            _ => f.write_str(self.message()),
        }
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
        // In the text format's names: `expected parameters (i32, i64), got (i32)`.
        let list =
            |types: &[ValType]| types.iter().map(|t| t.name()).collect::<alloc::vec::Vec<_>>().join(", ");
        write!(f, "expected parameters ({}), got ({})", list(&self.expected), list(&self.got))
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
    /// the typed fields: `ExecError` 32 bytes, `LoadError` 40 (sizes on 64-bit targets). The
    /// tag of an uncaught exception ([`TrapKind::UncaughtException`]) took `Trap` from 16 to
    /// 20 bytes and `ExecError` from 16 to 24.
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
        // Every decoder returns it: 8 bytes, with a proposal's sign as with an opcode.
        assert_eq!(size_of::<Invalid>(), 8);
    }
}
