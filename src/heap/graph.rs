//! Reference scanning (docs/heap.md, "References"): the objects, the memory image and the layouts
//! in, the reference graph over **all** objects (live or not) out, as compressed adjacency
//! lists. Edges keep duplicates and discovery order. The same scan of one object can also
//! name the slot each edge was read from ([`labelled_edges`], for the retainers view).

use alloc::vec::Vec;

use super::HeapError;
use super::layout::{BuiltinKind, ClassLayout, DebugInfo};
use super::tlsf::{Object, ObjectIndex, PtrIndex, read_u32};

/// A directed graph over object indices in compressed sparse row form.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Graph {
    /// `offsets[i]..offsets[i + 1]` is the range of `targets` holding node `i`'s successors;
    /// `offsets.len()` = node count + 1.
    pub offsets: Vec<usize>,
    /// Successor node indices.
    pub targets: Vec<ObjectIndex>,
}

impl Graph {
    /// A graph from adjacency lists (`lists[i]` = successors of node `i`).
    pub fn from_lists(lists: &[Vec<ObjectIndex>]) -> Graph {
        let mut g = Graph { offsets: Vec::with_capacity(lists.len() + 1), targets: Vec::new() };
        g.offsets.push(0);
        for l in lists {
            g.targets.extend_from_slice(l);
            g.offsets.push(g.targets.len());
        }
        g
    }

    /// Number of nodes.
    pub fn node_count(&self) -> usize {
        self.offsets.len().saturating_sub(1)
    }

    /// Successors of node `i`.
    #[inline]
    pub fn successors(&self, i: ObjectIndex) -> &[ObjectIndex] {
        let i = i as usize;
        &self.targets[self.offsets[i]..self.offsets[i + 1]]
    }
}

/// Where in its source object an edge was read (the slot kinds of the scan).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Slot {
    /// Field `field` of field node `node`: `DebugInfo::fields[node].own[field]`.
    Field {
        /// Index in [`DebugInfo::fields`].
        node: u32,
        /// Index in that node's `own` fields.
        field: u32,
    },
    /// Element `index` of an Array or StaticArray.
    Element(u64),
    /// Reference field `field` (index in [`super::layout::EntryLayout::references`]) of the
    /// Map or Set entry at position `entry` of its entries buffer.
    Entry {
        /// Position of the entry in the entries buffer.
        entry: u64,
        /// Index in the entry layout's reference fields.
        field: u32,
    },
    /// The `_env` field of a Function: the closure's environment.
    Closure,
    /// Slot `index` of a SmallTuple.
    TupleSlot(u64),
    /// Without DWARF: the word at this payload offset, whose field has no getter.
    Offset(u64),
    /// Without DWARF: the key (`key`) or value of the Map entry at position `entry` of its
    /// entries buffer, or with `set` the Set's element there.
    MapEntry {
        /// Position of the entry in the entries buffer.
        entry: u64,
        /// Whether the word is at offset 0 of the entry (a key, or a Set's element).
        key: bool,
        /// Whether the object is a Set.
        set: bool,
    },
    /// Without DWARF: a reference the visitor read at this address outside the object;
    /// `u64::MAX` when no read of it was seen.
    Read(u64),
}

/// Where a scan puts the edges it finds: plain targets for the whole graph, or targets with
/// their slots for one object.
trait Sink {
    fn edge(&mut self, target: ObjectIndex, slot: Slot);
}

impl Sink for Vec<ObjectIndex> {
    #[inline]
    fn edge(&mut self, target: ObjectIndex, _: Slot) {
        self.push(target);
    }
}

impl Sink for Vec<(ObjectIndex, Slot)> {
    fn edge(&mut self, target: ObjectIndex, slot: Slot) {
        self.push((target, slot));
    }
}

/// Bounded reader of references: the reading of one reference word plus a limit on the number of
/// slots read.
struct Scanner<'a, S> {
    memory: &'a [u8],
    index: &'a PtrIndex,
    budget: u64,
    limit: u64,
    out: S,
    info: &'a DebugInfo,
    /// Scratch for [`DebugInfo::chain`].
    chain: Vec<u32>,
}

impl<S: Sink> Scanner<'_, S> {
    /// `readRef(addr)`: the object whose payload pointer is the u32 at `addr`, if any, read
    /// from `slot`.
    #[inline]
    fn read_ref(&mut self, addr: u64, slot: Slot) -> Result<(), HeapError> {
        if self.budget == 0 {
            return Err(HeapError::ScanLimitExceeded { limit: self.limit });
        }
        self.budget -= 1;
        if let Some(v) = read_u32(self.memory, addr)
            && v != 0
            && let Some(i) = self.index.get(v)
        {
            self.out.edge(i, slot);
        }
        Ok(())
    }

    /// A header word of a scanned payload that must be in memory.
    fn word(&self, object: &Object, addr: u64) -> Result<u32, HeapError> {
        read_u32(self.memory, addr)
            .ok_or(HeapError::PayloadOutOfBounds { payload: object.payload, address: addr })
    }

    fn scan(&mut self, o: &Object, l: &ClassLayout) -> Result<(), HeapError> {
        let p = o.payload;
        let rt_size = u64::from(o.rt_size);
        let mem_len = self.memory.len() as u64;
        let info = self.info;
        // The class's fields, inherited first, through a reused scratch list of their nodes.
        let mut chain = core::mem::take(&mut self.chain);
        info.chain(l, &mut chain);
        for &node in &chain {
            for (field, f) in info.fields[node as usize].own.iter().enumerate() {
                if f.is_reference && f.offset.saturating_add(f.size) <= rt_size {
                    self.read_ref(p + f.offset, Slot::Field { node, field: field as u32 })?;
                }
            }
        }

        match l.kind {
            Some(BuiltinKind::Array) if l.template_is_reference && rt_size >= 16 => {
                let ds = u64::from(self.word(o, p + 4)?);
                let len = u64::from(self.word(o, p + 12)?);
                for i in 0..len {
                    let a = ds + 4 * i;
                    if a + 4 > mem_len {
                        break;
                    }
                    self.read_ref(a, Slot::Element(i))?;
                }
            }
            Some(BuiltinKind::StaticArray) if l.template_is_reference => {
                for i in 0..rt_size >> 2 {
                    let a = p + 4 * i;
                    if a + 4 > mem_len {
                        break;
                    }
                    self.read_ref(a, Slot::Element(i))?;
                }
            }
            Some(BuiltinKind::MapOrSet) => {
                if let Some(e) = &l.entry
                    && !e.references.is_empty()
                    && rt_size >= 20
                {
                    let ent = self.word(o, p + 8)?;
                    let used = self.word(o, p + 16)? as i32;
                    if ent != 0 && self.index.get(ent).is_some() {
                        let ent = u64::from(ent);
                        for i in 0..u64::try_from(used).unwrap_or(0) {
                            let base = ent + i * e.size;
                            let tn = base + e.size - 4;
                            if tn + 4 > mem_len {
                                break;
                            }
                            self.budget = self
                                .budget
                                .checked_sub(1)
                                .ok_or(HeapError::ScanLimitExceeded { limit: self.limit })?;
                            if read_u32(self.memory, tn).is_some_and(|t| t & 1 != 0) {
                                continue;
                            }
                            for (field, r) in e.references.iter().enumerate() {
                                self.read_ref(
                                    base + r.offset,
                                    Slot::Entry { entry: i, field: field as u32 },
                                )?;
                            }
                        }
                    }
                }
            }
            Some(BuiltinKind::Function) => {
                let env = chain.iter().flat_map(|&n| &info.fields[n as usize].own).find(|f| f.name == "_env");
                if let Some(f) = env
                    && f.offset.saturating_add(f.size) <= rt_size
                {
                    self.read_ref(p + f.offset, Slot::Closure)?;
                }
            }
            Some(BuiltinKind::SmallTuple) if rt_size > 8 => {
                let k = (rt_size - 8) >> 2;
                let at = p + rt_size - 8;
                let bitmap = u64::from(self.word(o, at)?) | u64::from(self.word(o, at + 4)?) << 32;
                for i in 0..k.min(64) {
                    if bitmap >> i & 1 != 0 {
                        self.read_ref(p + 4 * i, Slot::TupleSlot(i))?;
                    }
                }
            }
            // Plain classes, and builtins whose slots hold no references.
            _ => {}
        }
        self.chain = chain;
        Ok(())
    }
}

/// Limit on slots read by the scan (`2 × memory length / 4 + 1,048,576`): a consistent heap
/// reads each 4-byte word of its arrays, maps and fields at most once.
pub fn scan_limit(memory_len: usize) -> u64 {
    2 * (memory_len as u64 / 4) + (1 << 20)
}

/// Builds the reference graph over all `objects`.
///
/// # Errors
/// [`HeapError::PayloadOutOfBounds`] when an array, map or tuple header word lies past the end
/// of memory (WARPO dies with a `RangeError`), [`HeapError::ScanLimitExceeded`] when the
/// objects claim more slots than [`scan_limit`].
pub fn scan(
    memory: &[u8],
    objects: &[Object],
    index: &PtrIndex,
    info: &DebugInfo,
) -> Result<Graph, HeapError> {
    let limit = scan_limit(memory.len());
    let mut s = Scanner {
        memory,
        index,
        budget: limit,
        limit,
        out: Vec::<ObjectIndex>::new(),
        info,
        chain: Vec::new(),
    };
    let mut offsets = Vec::with_capacity(objects.len() + 1);
    offsets.push(0);
    // Most rtIds are small: a direct table for them, the map for the rest.
    let small: Vec<Option<&ClassLayout>> = (0..1024u64).map(|id| info.layouts.get(&id)).collect();
    for o in objects {
        let layout = match small.get(o.rtid as usize) {
            Some(l) => *l,
            None => info.layouts.get(&u64::from(o.rtid)),
        };
        if let Some(l) = layout {
            s.scan(o, l)?;
        }
        offsets.push(s.out.len());
    }
    Ok(Graph { offsets, targets: s.out })
}

/// The edges of one object with the slot each was read from, in the order [`scan`] finds
/// them (so the `i`-th pair is the `i`-th successor of the object in the graph).
///
/// # Errors
/// As [`scan`], for this object alone.
pub fn labelled_edges(
    memory: &[u8],
    object: &Object,
    index: &PtrIndex,
    info: &DebugInfo,
) -> Result<Vec<(ObjectIndex, Slot)>, HeapError> {
    let limit = scan_limit(memory.len());
    let mut s = Scanner { memory, index, budget: limit, limit, out: Vec::new(), info, chain: Vec::new() };
    if let Some(l) = info.layouts.get(&u64::from(object.rtid)) {
        s.scan(object, l)?;
    }
    Ok(s.out)
}
