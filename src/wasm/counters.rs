//! The run counters of docs/counting.md.

/// Counters of one run. Every field counts executed instructions of a kind, not bytes.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Counters {
    /// Every executed instruction, each `end` included, the trapping one included.
    pub instructions: u64,
    /// Direct and indirect calls (the entry call is not counted).
    pub calls: u64,
    /// `call_indirect` executions (also counted in `calls`).
    pub indirect_calls: u64,
    /// Function exits: the final `end` of each body reached (directly or by `return`/branch).
    pub returns: u64,
    /// Taken branches: `br`, taken `br_if`, `br_table`, `return`.
    pub branches: u64,
    /// Taken branches back to a loop.
    pub loop_iterations: u64,
    /// Instructions that read memory: loads, `memory.copy` with nonzero length.
    pub memory_reads: u64,
    /// Instructions that write memory: stores, `memory.copy`, `memory.fill`, `memory.init`
    /// with nonzero length.
    pub memory_writes: u64,
}

impl Counters {
    /// `(name, value)` pairs in the documented order, for printing.
    pub fn fields(&self) -> [(&'static str, u64); 8] {
        [
            ("instructions", self.instructions),
            ("calls", self.calls),
            ("indirect_calls", self.indirect_calls),
            ("returns", self.returns),
            ("branches", self.branches),
            ("loop_iterations", self.loop_iterations),
            ("memory_reads", self.memory_reads),
            ("memory_writes", self.memory_writes),
        ]
    }
}
