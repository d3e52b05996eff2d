//! Per-function costs of a run (docs/report.md, "Functions"): which code executed the
//! instructions and made the memory accesses.
//!
//! [`FunctionRecorder`] follows the interpreter's [`Observer::enter`] and [`Observer::leave`]
//! events with a shadow call stack. Instructions between two such events belong to the
//! function on top of the stack (its *self* instructions, as in callgrind's "self cost"); every
//! load, store, `memory.copy` and `memory.fill` belongs to the function executing it. The whole
//! run is recorded, the uniform setters included, so the self instructions of all functions add
//! up to the run's instruction counter.

use alloc::vec::Vec;

use super::pages::PAGE_SIZE;
use crate::wasm::Observer;

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
    pages: Vec<u64>,
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

    fn touch(&mut self, addr: u64, len: u64) {
        let (first, last) = (addr / PAGE_SIZE, (addr + len - 1) / PAGE_SIZE);
        for p in first..=last {
            let w = (p / 64) as usize;
            if w >= self.pages.len() {
                self.pages.resize(w + 1, 0);
            }
            self.pages[w] |= 1 << (p % 64);
        }
    }
}

/// Records [`FunctionCosts`] per function of the module (index space of the `name` section:
/// imports first). Call [`FunctionRecorder::finish`] with the run's final instruction count.
#[derive(Debug, Clone, Default)]
pub struct FunctionRecorder {
    costs: Vec<FunctionCosts>,
    /// The shadow call stack: function indices, innermost last.
    stack: Vec<u32>,
    /// The instruction count at the last enter or leave.
    last: u64,
    /// Index in `costs` of the running function (top of `stack`), or `usize::MAX` when none.
    top: usize,
}

impl FunctionRecorder {
    /// An empty recorder.
    pub fn new() -> Self {
        FunctionRecorder { top: usize::MAX, ..Self::default() }
    }

    /// The functions on the shadow stack, outermost first (empty between invocations).
    pub fn call_stack(&self) -> &[u32] {
        &self.stack
    }

    /// Ends the recording: the instructions since the last event go to the function that was
    /// running (the one that trapped or ran out of budget). Returns the costs indexed by
    /// function index; functions never entered have all zeros. `instructions` is the run's
    /// final instruction count.
    pub fn finish(mut self, instructions: u64) -> Vec<FunctionCosts> {
        self.switch(instructions);
        self.costs
    }

    fn costs(&mut self, func: u32) -> &mut FunctionCosts {
        let i = func as usize;
        if i >= self.costs.len() {
            self.costs.resize(i + 1, FunctionCosts::default());
        }
        &mut self.costs[i]
    }

    /// Gives the instructions since the last event to the running function.
    fn switch(&mut self, instructions: u64) {
        if let Some(&top) = self.stack.last() {
            let n = instructions.saturating_sub(self.last);
            self.costs(top).self_instructions += n;
        }
        self.last = instructions;
    }

    #[inline(always)]
    fn read(&mut self, addr: u64, len: u64) {
        self.access(addr, len, false);
    }

    #[inline(always)]
    fn write(&mut self, addr: u64, len: u64) {
        self.access(addr, len, true);
    }

    #[inline(always)]
    fn access(&mut self, addr: u64, len: u64, write: bool) {
        let Some(c) = self.costs.get_mut(self.top) else { return };
        if write {
            c.stores += 1;
            c.bytes_written += len;
        } else {
            c.loads += 1;
            c.bytes_read += len;
        }
        let page = addr / PAGE_SIZE;
        let bit = 1 << (page % 64);
        match c.pages.get_mut((page / 64) as usize) {
            Some(w) if len <= PAGE_SIZE - addr % PAGE_SIZE => *w |= bit,
            _ => c.touch(addr, len),
        }
    }
}

impl Observer for FunctionRecorder {
    fn enter(&mut self, func: u32, instructions: u64) {
        self.switch(instructions);
        self.stack.push(func);
        self.costs(func).entries += 1;
        self.top = func as usize;
    }
    fn leave(&mut self, instructions: u64) {
        self.switch(instructions);
        self.stack.pop();
        self.top = self.stack.last().map_or(usize::MAX, |&f| f as usize);
    }
    #[inline]
    fn load(&mut self, addr: u64, len: u32, _: u64) {
        self.read(addr, len as u64);
    }
    #[inline]
    fn store(&mut self, addr: u64, len: u32, _: u64) {
        self.write(addr, len as u64);
    }
    fn copy(&mut self, dst: u64, src: u64, len: u64, _: u64) {
        self.read(src, len);
        self.write(dst, len);
    }
    fn fill(&mut self, dst: u64, len: u64, _: u64) {
        self.write(dst, len);
    }
    fn host_read(&mut self, addr: u64, len: u64, _: u64) {
        self.read(addr, len);
    }
    fn host_write(&mut self, addr: u64, len: u64, _: u64) {
        self.write(addr, len);
    }
}
