//! The TLSF block walk (docs/heap.md, "The heap walk"): a memory image and `__heap_base` in,
//! the used blocks ("objects") in ascending address order out, plus an index from payload
//! pointer to object.

use alloc::vec;
use alloc::vec::Vec;

use super::HeapError;

/// Size of the TLSF root structure, in bytes.
pub const ROOT_SIZE: u64 = 1572;
/// Bytes from a block's `mmInfo` word to its payload (`BLOCK_OVERHEAD + OBJECT_OVERHEAD`).
pub const TOTAL_OVERHEAD: u64 = 20;
/// Color of a pinned object (`nextWithColor & 3`).
pub const PINNED_COLOR: u8 = 3;

/// Address of the TLSF root: `__heap_base` rounded up to 16.
pub fn tlsf_root(heap_base: u32) -> u64 {
    (u64::from(heap_base) + 15) & !15
}

/// Address of the first block: `((R + 1572 + 4 + 15) & ~15) − 4`, i.e. `R + 1580`.
pub fn first_block(heap_base: u32) -> u64 {
    ((tlsf_root(heap_base) + ROOT_SIZE + 4 + 15) & !15) - 4
}

/// Reads the little-endian u32 at `addr`, `None` when `addr + 4` is past the end.
#[inline]
pub fn read_u32(memory: &[u8], addr: u64) -> Option<u32> {
    let a = usize::try_from(addr).ok()?;
    let b = memory.get(a..a.checked_add(4)?)?;
    Some(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
}

/// One used TLSF block = one managed object.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Object {
    /// Payload pointer (block address + 20): the object's address in references and JSON.
    pub payload: u64,
    /// The block's `mmInfo` word (size in bits 2–31, flags in bits 0–1).
    pub mm_info: u32,
    /// `rtId`, the runtime class id.
    pub rtid: u32,
    /// `rtSize`, the payload length requested at allocation, in bytes.
    pub rt_size: u32,
    /// `nextWithColor & 3` (3 = pinned).
    pub color: u8,
}

impl Object {
    /// Shallow size: `4 + (mmInfo & ~3)` bytes, i.e. the block with its 4-byte header.
    #[inline]
    pub fn shallow_size(&self) -> u64 {
        4 + u64::from(self.mm_info & !3)
    }
}

/// Walks the blocks from [`first_block`] to the first zero-size block or the end of memory
/// Free blocks are skipped. The walk always advances (at least 4 + 4 bytes per block,
/// 64-bit arithmetic), so it ends on every input.
///
/// # Errors
/// [`HeapError::BlockHeaderOutOfBounds`] when a used block's 20-byte header does not fit.
pub fn walk(memory: &[u8], heap_base: u32) -> Result<Vec<Object>, HeapError> {
    let memory_len = memory.len() as u64;
    let mut objects = Vec::new();
    let mut cursor = first_block(heap_base);
    while let Some(mm) = read_u32(memory, cursor) {
        let size = u64::from(mm & !3);
        if size == 0 {
            break;
        }
        if mm & 1 == 0 {
            let word = |at: u64| read_u32(memory, cursor + at);
            let (Some(next), Some(rtid), Some(rt_size)) = (word(4), word(12), word(16)) else {
                return Err(HeapError::BlockHeaderOutOfBounds { block: cursor, memory_len });
            };
            objects.push(Object {
                payload: cursor + TOTAL_OVERHEAD,
                mm_info: mm,
                rtid,
                rt_size,
                color: (next & 3) as u8,
            });
        }
        cursor += 4 + size;
    }
    Ok(objects)
}

/// Index of an object (position in the walk's address-ordered list).
pub type ObjectIndex = u32;

/// Every object's payload pointer → object index. Dense (one slot per 16 bytes of heap)
/// when every payload is 16-aligned, as the runtime guarantees; a binary search otherwise.
#[derive(Debug, Clone)]
pub struct PtrIndex {
    /// `slots[(p >> 4) - base]` = object index + 1, or 0. Empty when not dense.
    slots: Vec<u32>,
    /// `first payload >> 4`.
    base: u64,
    /// Payloads in ascending order (used when `slots` is empty).
    sorted: Vec<u64>,
    dense: bool,
}

impl PtrIndex {
    /// Builds the index of `objects` (ascending payloads).
    pub fn new(objects: &[Object]) -> PtrIndex {
        let aligned = objects.iter().all(|o| o.payload & 15 == 0);
        if aligned && let (Some(first), Some(last)) = (objects.first(), objects.last()) {
            let base = first.payload >> 4;
            let mut slots = vec![0u32; ((last.payload >> 4) - base + 1) as usize];
            for (i, o) in objects.iter().enumerate() {
                slots[((o.payload >> 4) - base) as usize] = i as u32 + 1;
            }
            return PtrIndex { slots, base, sorted: Vec::new(), dense: true };
        }
        PtrIndex {
            slots: Vec::new(),
            base: 0,
            sorted: objects.iter().map(|o| o.payload).collect(),
            dense: false,
        }
    }

    /// The object whose payload pointer is exactly `ptr`.
    #[inline]
    pub fn get(&self, ptr: u32) -> Option<ObjectIndex> {
        let p = u64::from(ptr);
        if self.dense {
            if p & 15 != 0 {
                return None;
            }
            let s = (p >> 4).checked_sub(self.base)?;
            match self.slots.get(s as usize) {
                Some(&v) if v != 0 => Some(v - 1),
                _ => None,
            }
        } else {
            self.sorted.binary_search(&p).ok().map(|i| i as ObjectIndex)
        }
    }
}
