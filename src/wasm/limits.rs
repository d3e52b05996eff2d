//! Resource limits of the bounded interpreter (docs/limits.md).
//!
//! Every limit is checked where it can be exceeded; exceeding one is a clean error
//! ([`LoadError`](super::LoadError) at load time, [`InstantiateError::Limit`](super::InstantiateError) at instantiation,
//! a trap or `-1` from a `grow` at run
//! time), never a host crash. Defaults are at least the reference interpreter's.

/// The limits one [`Store`](super::Store) and the modules loaded for it obey.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Limits {
    /// Largest accepted module, in bytes. Default 1,048,576, as in QIP's interpreter.
    pub max_module_bytes: usize,
    /// Largest linear memory, in bytes; `memory.grow` past it returns -1 and a module whose
    /// initial memory exceeds it is rejected. Default 201,326,592 (192 MiB, as in QIP's
    /// interpreter).
    pub max_memory_bytes: u64,
    /// Largest table, in elements; `table.grow` past it returns -1. Default 1,048,576 (the
    /// reference allows 4,096; we allow more).
    pub max_table_elements: u32,
    /// Deepest call stack, in frames (the entry function is frame 1). Default 1,024 (QIP's
    /// interpreter: 256).
    pub max_frames: u32,
    /// Value stack size, in slots (one slot holds one value of any type, v128 included); holds
    /// the parameters, locals and operands of all frames. Default 262,144 (QIP's interpreter:
    /// 32,768 operands plus 32,768 locals).
    pub max_value_stack: u32,
    /// Most functions (imported + defined) in a module. Default 65,536 (QIP's interpreter: 4,096
    /// defined).
    pub max_functions: u32,
    /// Most exception objects a store holds (the exception-handling proposal): each `throw`
    /// creates one, kept while an `exnref` may point at it. They are reclaimed when a call
    /// starts, unless an instance has a global or table of `exnref`s; a `throw` past the
    /// limit traps (`too many exceptions`). Default 65,536.
    pub max_exceptions: u32,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_module_bytes: 1 << 20,
            max_memory_bytes: 192 << 20,
            max_table_elements: 1 << 20,
            max_frames: 1024,
            max_value_stack: 1 << 18,
            max_functions: 1 << 16,
            max_exceptions: 1 << 16,
        }
    }
}

impl Limits {
    /// The same limits with `max_module_bytes` raised for test suites and tools that load
    /// large modules (the spec suite's `binary-leb128.wast` has none larger than 1 MiB, but
    /// real programs may).
    pub fn with_max_module_bytes(mut self, bytes: usize) -> Self {
        self.max_module_bytes = bytes;
        self
    }
}
