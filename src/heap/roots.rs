//! Roots (docs/heap.md, "Roots"): global variables, shadow-stack words and pinned
//! objects, in that order, as a list that may hold duplicates.

use alloc::string::String;
use alloc::vec::Vec;

use super::layout::DebugInfo;
use super::module::ModuleInfo;
use super::tlsf::{Object, ObjectIndex, PINNED_COLOR, PtrIndex, read_u32};

/// A global variable of class type with a value at dump time.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GlobalRoot {
    /// Internal name of the global.
    pub name: String,
    /// Its class name.
    pub class_name: String,
    /// Wasm global index (position in the global section).
    pub global_index: u64,
    /// The global's value: a payload pointer or anything else.
    pub value: u32,
}

/// The global roots: candidates of `info` whose global index has an i32 value, from
/// the dump's mutable-i32 values or the global's init literal.
pub fn global_roots(info: &DebugInfo, module: &ModuleInfo<'_>, dump_values: &[u32]) -> Vec<GlobalRoot> {
    let values = module.global_values(dump_values);
    info.globals
        .iter()
        .filter_map(|c| {
            let value = usize::try_from(c.index).ok().and_then(|i| values.get(i).copied().flatten())?;
            Some(GlobalRoot {
                name: c.name.clone(),
                class_name: c.class_name.clone(),
                global_index: c.index,
                value,
            })
        })
        .collect()
}

/// Where a root comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RootKind {
    /// A global variable; `source_address` is the wasm global index.
    Global,
    /// A shadow-stack word; `source_address` is its linear-memory address.
    Local,
    /// A pinned object (color 3); `source_address` is 0.
    Pinned,
}

/// One root.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Root {
    /// The object held (its index in the walk's list).
    pub object: ObjectIndex,
    /// The object's payload pointer.
    pub object_ptr: u64,
    /// The kind of root.
    pub kind: RootKind,
    /// Global index, stack-word address or 0, by kind.
    pub source_address: u64,
}

/// The roots, in order: globals whose value is an object, every shadow-stack word in
/// `[stack_pointer, heap_base)` (stopping at the end of memory) that is an object's payload
/// pointer, and every pinned object.
pub fn roots(
    memory: &[u8],
    heap_base: u32,
    stack_pointer: u32,
    objects: &[Object],
    index: &PtrIndex,
    globals: &[GlobalRoot],
) -> Vec<Root> {
    let mut out = Vec::new();
    for g in globals {
        if g.value != 0
            && let Some(i) = index.get(g.value)
        {
            out.push(Root {
                object: i,
                object_ptr: u64::from(g.value),
                kind: RootKind::Global,
                source_address: g.global_index,
            });
        }
    }
    let mut addr = u64::from(stack_pointer);
    while addr < u64::from(heap_base) {
        let Some(v) = read_u32(memory, addr) else { break };
        if v != 0
            && let Some(i) = index.get(v)
        {
            out.push(Root {
                object: i,
                object_ptr: u64::from(v),
                kind: RootKind::Local,
                source_address: addr,
            });
        }
        addr += 4;
    }
    for (i, o) in objects.iter().enumerate() {
        if o.color == PINNED_COLOR {
            out.push(Root {
                object: i as ObjectIndex,
                object_ptr: o.payload,
                kind: RootKind::Pinned,
                source_address: 0,
            });
        }
    }
    out
}
