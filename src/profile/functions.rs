//! Per-function costs of a run (docs/report.md, "Functions"): which code executed the
//! instructions and made the memory accesses, as the functions table shows them. They are the
//! calling-context tree's nodes summed per function
//! ([`CallTree::function_costs`](super::calltree::CallTree::function_costs)): instructions
//! between two enter or leave events belong to the function on top of the stack (its *self*
//! instructions, as in callgrind's "self cost"); every load, store, `memory.copy` and
//! `memory.fill` belongs to the function executing it. The whole run is recorded, the uniform
//! setters included, so the self instructions of all functions add up to the run's instruction
//! counter.

use alloc::vec::Vec;

/// What one function did during a run. Counts are events; sizes are bytes.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FunctionCosts {
    /// Times the function was entered (calls to it plus invocations of it as an export).
    pub entries: u64,
    /// Instructions executed in its own body (not in its callees).
    pub self_instructions: u64,
    /// Loads plus `memory.copy` reads (one per copy).
    pub loads: u64,
    /// Stores plus `memory.copy` writes and `memory.fill`s (one each).
    pub stores: u64,
    /// Bytes read by its loads and copies.
    pub bytes_read: u64,
    /// Bytes written by its stores, copies and fills.
    pub bytes_written: u64,
    /// 64 KiB pages it read or wrote, as a bit set (bit `p % 64` of word `p / 64`).
    pub(crate) pages: Vec<u64>,
}

impl FunctionCosts {
    /// How many distinct 64 KiB pages the function read or wrote.
    pub fn pages_touched(&self) -> u32 {
        self.pages.iter().map(|w| w.count_ones()).sum()
    }

    /// The pages the function read or wrote, ascending.
    pub fn pages(&self) -> impl Iterator<Item = u32> + '_ {
        self.pages
            .iter()
            .enumerate()
            .flat_map(|(i, &w)| (0..64).filter(move |b| w & (1 << b) != 0).map(move |b| (i * 64 + b) as u32))
    }
}
