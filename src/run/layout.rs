//! Where things live in a target's memory, as far as the module and the run tell: data
//! segments, the input and output of a Content target, a program's stack and heap, the
//! buffers its WASI calls used. [`Layout::regions`] turns it into the page table's
//! [`Regions`] once the lowest stack pointer is known.
//!
//! The stack pointer (docs/programs.md, "Regions"):
//! * a Content target: global 0 when it is a mutable `i32` (docs/page-table.md);
//! * a program: the global the `name` section calls `__stack_pointer`; else global 0 when it
//!   is a mutable `i32` and the module is LLVM's output (it has a `target_features` section,
//!   or its `producers` section names clang, rustc or LLVM); else none, and no stack region is
//!   drawn or labelled.
//!
//! A program's heap starts at `__heap_base` when the module exports it or names it (a global
//! of that name); otherwise, for a module with an LLVM stack, where wasm-ld puts it: after the
//! data segments and the stack, 16-byte aligned.

use alloc::vec::Vec;

use crate::content::contract::Contract;
use crate::profile::pages::{Range, Regions};
use crate::wasm::{ExternalKind, Module, Names, ValType};

/// How the stack pointer was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StackSource {
    /// Global 0, a mutable `i32`, by the Content contract's rule.
    Content,
    /// The global the `name` section calls `__stack_pointer`.
    Named,
    /// Global 0 of a module LLVM produced (a mutable `i32`; wasm-ld makes it the stack pointer).
    Llvm,
}

/// The stack pointer of a target.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StackPointer {
    /// Its index in the module's global index space (imports first).
    pub global: u32,
    /// Its initial value (the top of the stack), when it is a defined global with a constant
    /// initializer.
    pub top: Option<u32>,
    /// How it was found.
    pub source: StackSource,
    /// The lowest byte the stack may reach as the module is laid out: the end of the highest
    /// data segment below the top, else 0. A program's heat map counts writes in
    /// `[floor, top)` as stack writes (docs/programs.md, "Heat map").
    pub floor: u64,
}

/// How a program's heap start was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HeapSource {
    /// A global called `__heap_base` (exported or named), as wasm-ld defines it.
    HeapBase,
    /// No `__heap_base`: the first 16-byte aligned byte after the data segments and the
    /// stack, where wasm-ld places it.
    AfterDataAndStack,
}

/// A program's heap: from `start` to the end of memory.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Heap {
    /// First byte of the heap.
    pub start: u64,
    /// How `start` was found.
    pub source: HeapSource,
}

/// What is known about a target's memory besides the recorded accesses.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Layout {
    /// Active data segments of memory 0 with a constant offset and nonzero length, in order.
    pub data: Vec<Range>,
    /// A Content target's input region `[input_ptr, input_ptr + capacity)`.
    pub input: Option<Range>,
    /// A Content target's input bytes as copied before the run.
    pub input_bytes: Option<Range>,
    /// A Content target's output `[ptr, ptr + size)`, when it returned a nonempty one.
    pub output: Option<Range>,
    /// The stack pointer, if the target has one.
    pub stack: Option<StackPointer>,
    /// A program's heap, if found.
    pub heap: Option<Heap>,
    /// The guest memory WASI calls read or wrote, merged, ascending.
    pub io: Vec<Range>,
}

/// The data segments of memory 0 with a constant offset and nonzero length.
fn data_ranges(module: &Module) -> Vec<Range> {
    module
        .active_data()
        .filter(|(mem, _, bytes)| *mem == 0 && !bytes.is_empty())
        .filter_map(|(_, at, bytes)| at.map(|a| (a as u64, a as u64 + bytes.len() as u64)))
        .collect()
}

/// Whether global `index` of `module` is a mutable `i32`.
fn mutable_i32(module: &Module, index: u32) -> bool {
    module.global_types().get(index as usize).is_some_and(|t| t.mutable && t.content_type == ValType::I32)
}

/// Whether LLVM produced the module `bytes`: a `target_features` section (only LLVM writes
/// one), or a `producers` section naming clang, rustc or LLVM.
pub fn is_llvm_output(bytes: &[u8]) -> bool {
    use crate::wasm::binary::sections::custom_section;
    if custom_section(bytes, "target_features").is_some() {
        return true;
    }
    let Some(producers) = custom_section(bytes, "producers") else { return false };
    [&b"clang"[..], b"rustc", b"LLVM"].iter().any(|n| producers.windows(n.len()).any(|w| w == *n))
}

impl Layout {
    /// The layout of a Content target's run: its data segments, input region and bytes,
    /// output, and global 0 as the stack pointer when it is a mutable `i32`.
    pub fn content(module: &Module, contract: &Contract, input_len: usize, output: Option<Range>) -> Layout {
        let data = data_ranges(module);
        let stack = contract.stack_pointer.map(|top| StackPointer {
            global: 0,
            top: Some(top),
            source: StackSource::Content,
            floor: floor(&data, top),
        });
        Layout {
            data,
            input: contract.input.map(|i| (i.ptr as u64, i.ptr as u64 + i.cap as u64)),
            input_bytes: contract.input.map(|i| (i.ptr as u64, i.ptr as u64 + input_len as u64)),
            output: output.filter(|r| r.0 < r.1),
            stack,
            heap: None,
            io: Vec::new(),
        }
    }

    /// The layout of a program (`bytes`, loaded as `module`) before it runs: data segments,
    /// the stack pointer and the heap start by the rules of the [module documentation](self).
    pub fn program(bytes: &[u8], module: &Module) -> Layout {
        let data = data_ranges(module);
        let names = Names::of_module(bytes);
        let named = |name: &str| names.globals.iter().find(|(_, n)| *n == name).map(|&(i, _)| i);
        let stack = match named("__stack_pointer") {
            Some(g) if mutable_i32(module, g) => Some((g, StackSource::Named)),
            _ if mutable_i32(module, 0) && is_llvm_output(bytes) => Some((0, StackSource::Llvm)),
            _ => None,
        };
        let stack = stack.map(|(global, source)| {
            let top = module.global_init(global).map(|v| v as u32);
            StackPointer { global, top, source, floor: top.map_or(0, |t| floor(&data, t)) }
        });
        let exported = module
            .exports()
            .iter()
            .find(|e| e.kind == ExternalKind::Global && e.name == "__heap_base")
            .map(|e| e.index)
            .or_else(|| named("__heap_base"));
        let heap_base = exported.and_then(|g| module.global_init(g)).map(|v| v as u32 as u64);
        let heap = match (heap_base, stack) {
            (Some(start), _) => Some(Heap { start, source: HeapSource::HeapBase }),
            (None, Some(StackPointer { top: Some(top), .. })) => {
                let end = data.iter().map(|r| r.1).chain([u64::from(top)]).max().unwrap_or(0);
                Some(Heap { start: end.next_multiple_of(16), source: HeapSource::AfterDataAndStack })
            }
            _ => None,
        };
        Layout { data, input: None, input_bytes: None, output: None, stack, heap, io: Vec::new() }
    }

    /// The regions of the page table for a run whose stack pointer went as low as
    /// `lowest_stack_pointer` and whose memory ended `memory_bytes` long.
    pub fn regions(&self, lowest_stack_pointer: Option<u32>, memory_bytes: u64) -> Regions {
        Regions {
            data: self.data.clone(),
            input: self.input,
            input_bytes: self.input_bytes,
            stack: Regions::stack_range(self.stack.and_then(|s| s.top), lowest_stack_pointer),
            output: self.output,
            heap: self.heap.map(|h| (h.start, memory_bytes.max(h.start))).filter(|r| r.0 < r.1),
            io: self.io.clone(),
        }
    }
}

/// The end of the highest data segment that lies below `top`, else 0: how far down the stack
/// can grow before it meets the data (wasm-ld places either the data or nothing below it).
fn floor(data: &[Range], top: u32) -> u64 {
    data.iter().map(|r| r.1).filter(|&end| end <= u64::from(top)).max().unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_floor_is_the_highest_data_end_below_the_top() {
        assert_eq!(floor(&[(1024, 2000), (70_000, 70_010)], 65_536), 2000);
        assert_eq!(floor(&[(70_000, 70_010)], 65_536), 0);
        assert_eq!(floor(&[], 65_536), 0);
    }
}
