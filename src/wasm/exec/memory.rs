//! Every access to linear memory the executor makes, in one place: the effective address and
//! its bounds check (WebAssembly Core Specification 2.0, section 4.4.7 "Memory
//! Instructions": `ea = i + memarg.offset`, trapping when `ea + N` exceeds the memory's byte
//! length), the access counters of docs/counting.md and the observer's event.
//!
//! Each function takes the memory's bytes, the counters, the observer and `at`, which gives
//! the exact instruction count for the observer's event; it is only called when the observer
//! is enabled, so a plain run computes nothing for it. A failed bounds check returns
//! [`TrapKind::MemoryOutOfBounds`] and leaves memory, counters and observer untouched.

use crate::wasm::counters::Counters;
use crate::wasm::error::TrapKind;
use crate::wasm::ir::AtomicOp;
use crate::wasm::observe::Observer;
use crate::wasm::store::MemoryInst;

/// The bytes of a page (spec 2.0, section 2.5.8: 64 KiB).
const PAGE: u64 = 65536;

/// The effective address `addr + offset`, computed in 64 bits so it cannot wrap, as an index
/// into memory (`None` if it does not fit `usize`, which no memory reaches).
#[inline(always)]
fn effective(addr: u32, offset: u32) -> (u64, Option<usize>) {
    let ea = addr as u64 + offset as u64;
    (ea, usize::try_from(ea).ok())
}

/// A load of `W` bytes at `addr + offset` (a scalar or `v128.load`), counted as one read.
#[inline(always)]
pub(super) fn load<const W: usize, O: Observer>(
    data: &[u8],
    addr: u32,
    offset: u32,
    counters: &mut Counters,
    obs: &mut O,
    at: impl FnOnce(u64) -> u64,
) -> Result<[u8; W], TrapKind> {
    // One bounds check: the `W` bytes from `ea` exist or the access traps.
    let (ea, at_index) = effective(addr, offset);
    let bytes = at_index
        .and_then(|a| data.get(a..))
        .and_then(|d| d.first_chunk::<W>())
        .ok_or(TrapKind::MemoryOutOfBounds)?;
    counters.memory_reads += 1;
    if O::ENABLED {
        obs.load(ea, W as u32, at(counters.instructions));
    }
    Ok(*bytes)
}

/// A store of the `W` bytes `bytes` at `addr + offset`, counted as one write.
#[inline(always)]
pub(super) fn store<const W: usize, O: Observer>(
    data: &mut [u8],
    addr: u32,
    offset: u32,
    bytes: [u8; W],
    counters: &mut Counters,
    obs: &mut O,
    at: impl FnOnce(u64) -> u64,
) -> Result<(), TrapKind> {
    let (ea, at_index) = effective(addr, offset);
    let d = at_index
        .and_then(|a| data.get_mut(a..))
        .and_then(|d| d.first_chunk_mut::<W>())
        .ok_or(TrapKind::MemoryOutOfBounds)?;
    *d = bytes;
    counters.memory_writes += 1;
    if O::ENABLED {
        obs.store(ea, W as u32, at(counters.instructions));
    }
    Ok(())
}

/// A load of `width` bytes (1 to 16, the SIMD transforming and lane loads), returned as a
/// little-endian integer zero-extended to 128 bits; one read.
#[inline(always)]
pub(super) fn load_narrow<O: Observer>(
    data: &[u8],
    addr: u32,
    offset: u32,
    width: u32,
    counters: &mut Counters,
    obs: &mut O,
    at: impl FnOnce(u64) -> u64,
) -> Result<u128, TrapKind> {
    let w = width.min(16) as usize;
    let (ea, at_index) = effective(addr, offset);
    let bytes = at_index.and_then(|a| data.get(a..)?.get(..w)).ok_or(TrapKind::MemoryOutOfBounds)?;
    let mut raw = [0u8; 16];
    raw[..w].copy_from_slice(bytes);
    counters.memory_reads += 1;
    if O::ENABLED {
        obs.load(ea, w as u32, at(counters.instructions));
    }
    Ok(u128::from_le_bytes(raw))
}

/// A store of the low `width` bytes (1 to 16) of `value`, little-endian (the SIMD lane
/// stores); one write.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub(super) fn store_narrow<O: Observer>(
    data: &mut [u8],
    addr: u32,
    offset: u32,
    width: u32,
    value: u128,
    counters: &mut Counters,
    obs: &mut O,
    at: impl FnOnce(u64) -> u64,
) -> Result<(), TrapKind> {
    let w = width.min(16) as usize;
    let (ea, at_index) = effective(addr, offset);
    let d = at_index.and_then(|a| data.get_mut(a..)?.get_mut(..w)).ok_or(TrapKind::MemoryOutOfBounds)?;
    d.copy_from_slice(&value.to_le_bytes()[..w]);
    counters.memory_writes += 1;
    if O::ENABLED {
        obs.store(ea, w as u32, at(counters.instructions));
    }
    Ok(())
}

/// `memory.copy` of `n` bytes from `s` to `d` (overlap allowed). Both ranges are checked
/// before anything moves; a copy of 0 bytes is no access.
#[inline(always)]
pub(super) fn copy<O: Observer>(
    data: &mut [u8],
    (d, s, n): (u32, u32, u32),
    counters: &mut Counters,
    obs: &mut O,
    at: impl FnOnce(u64) -> u64,
) -> Result<(), TrapKind> {
    let (d, s, n) = (d as u64, s as u64, n as u64);
    let size = data.len() as u64;
    if s + n > size || d + n > size {
        return Err(TrapKind::MemoryOutOfBounds);
    }
    if n > 0 {
        counters.memory_reads += 1;
        counters.memory_writes += 1;
        if O::ENABLED {
            obs.copy(d, s, n, at(counters.instructions));
        }
        data.copy_within(s as usize..(s + n) as usize, d as usize);
    }
    Ok(())
}

/// `memory.fill` of `n` bytes at `d` with the byte `value`.
#[inline(always)]
pub(super) fn fill<O: Observer>(
    data: &mut [u8],
    (d, value, n): (u32, u8, u32),
    counters: &mut Counters,
    obs: &mut O,
    at: impl FnOnce(u64) -> u64,
) -> Result<(), TrapKind> {
    let (d, n) = (d as u64, n as u64);
    if d + n > data.len() as u64 {
        return Err(TrapKind::MemoryOutOfBounds);
    }
    if n > 0 {
        counters.memory_writes += 1;
        if O::ENABLED {
            obs.fill(d, n, at(counters.instructions));
        }
        data[d as usize..(d + n) as usize].fill(value);
    }
    Ok(())
}

/// `memory.init`: `n` bytes of the data segment `segment` (empty once dropped) from `s` to
/// `d`. Counted and observed as a write of the destination range.
#[inline(always)]
pub(super) fn init<O: Observer>(
    data: &mut [u8],
    segment: &[u8],
    (d, s, n): (u32, u32, u32),
    counters: &mut Counters,
    obs: &mut O,
    at: impl FnOnce(u64) -> u64,
) -> Result<(), TrapKind> {
    let (d, s, n) = (d as u64, s as u64, n as u64);
    if s + n > segment.len() as u64 || d + n > data.len() as u64 {
        return Err(TrapKind::MemoryOutOfBounds);
    }
    if n > 0 {
        counters.memory_writes += 1;
        if O::ENABLED {
            obs.fill(d, n, at(counters.instructions));
        }
        data[d as usize..(d + n) as usize].copy_from_slice(&segment[s as usize..(s + n) as usize]);
    }
    Ok(())
}

/// An atomic access of the threads proposal on one thread ([`AtomicOp`]: class and width `w`),
/// at `addr + offset`, with the operands `a` and `b` (see `Op::Atomic`). The result, if the
/// operator has one, zero-extended from `w` bytes; `None` for a store.
///
/// The order of the checks is the threads specification's (`document/core/exec/
/// instructions.rst`): the effective address must be a multiple of `w`
/// ([`TrapKind::UnalignedAtomic`]), a wait's memory must be shared
/// ([`TrapKind::ExpectedSharedMemory`]), then the `w` bytes must lie inside the memory
/// ([`TrapKind::MemoryOutOfBounds`]). Counted as docs/counting.md ("Threads") says: a load one
/// read, a store one write, a read-modify-write or compare-exchange (also one whose compare
/// fails) one read and one write, a wait one read, a notify nothing; an access that traps on
/// those checks counts none. On one thread no waiter exists: a notify returns 0; a wait
/// returns 1 ("not-equal") when the value differs, else 2 ("timed-out") at once for a timeout
/// of 0 or more nanoseconds, and with a negative (infinite) timeout it could never return:
/// [`TrapKind::Deadlock`], after its read.
///
/// Out of line, one copy per observer: the loop pays one call for all the atomics. Built with
/// `only-2-0` the decoder refuses them, so no [`AtomicOp`] reaches this.
#[inline(never)]
pub(super) fn atomic<O: Observer>(
    mem: &mut MemoryInst,
    op: AtomicOp,
    (addr, a, b, offset): (u32, u64, u64, u32),
    counters: &mut Counters,
    obs: &mut O,
    at: impl FnOnce(u64) -> u64,
) -> Result<Option<u64>, TrapKind> {
    #[cfg(not(feature = "only-2-0"))]
    {
        use crate::wasm::ir::AtomicClass as C;
        let w = u64::from(op.width);
        let ea = addr as u64 + offset as u64;
        if !ea.is_multiple_of(w) {
            return Err(TrapKind::UnalignedAtomic);
        }
        if op.class == C::Wait && !mem.ty.shared {
            return Err(TrapKind::ExpectedSharedMemory);
        }
        let bytes = usize::try_from(ea)
            .ok()
            .and_then(|i| mem.data.get_mut(i..)?.get_mut(..w as usize))
            .ok_or(TrapKind::MemoryOutOfBounds)?;
        if op.class == C::Notify {
            return Ok(Some(0));
        }
        let mask = if w == 8 { u64::MAX } else { (1u64 << (8 * w)) - 1 };
        let mut raw = [0u8; 8];
        raw[..w as usize].copy_from_slice(bytes);
        let old = u64::from_le_bytes(raw);
        let now = if O::ENABLED { at(counters.instructions) } else { 0 };
        let new = match op.class {
            C::Load | C::Wait => {
                counters.memory_reads += 1;
                if O::ENABLED {
                    obs.load(ea, w as u32, now);
                }
                return match op.class {
                    C::Load => Ok(Some(old)),
                    _ if old != a & mask => Ok(Some(1)),
                    _ if b as i64 >= 0 => Ok(Some(2)),
                    _ => Err(TrapKind::Deadlock),
                };
            }
            C::Store => a,
            C::Add => old.wrapping_add(a),
            C::Sub => old.wrapping_sub(a),
            C::And => old & a,
            C::Or => old | a,
            C::Xor => old ^ a,
            C::Xchg => a,
            C::Cmpxchg if old == a & mask => b,
            C::Cmpxchg => old,
            C::Notify => unreachable!("returned above"),
        };
        bytes.copy_from_slice(&new.to_le_bytes()[..w as usize]);
        if op.class != C::Store {
            counters.memory_reads += 1;
            if O::ENABLED {
                obs.load(ea, w as u32, now);
            }
        }
        counters.memory_writes += 1;
        if O::ENABLED {
            obs.store(ea, w as u32, now);
        }
        Ok((op.class != C::Store).then_some(old))
    }
    #[cfg(feature = "only-2-0")]
    {
        let _ = (mem, op, addr, a, b, offset, counters, obs, at);
        unreachable!()
    }
}

/// `memory.size` in pages.
#[inline(always)]
pub(super) fn size(mem: &MemoryInst) -> u32 {
    (mem.data.len() as u64 / PAGE) as u32
}

/// `memory.grow` by `delta` pages: the old size in pages, or `-1` (as `u32::MAX`) when the
/// memory's maximum (declared, or the store's limit) would be passed. New pages are zero.
#[inline(always)]
pub(super) fn grow(mem: &mut MemoryInst, delta: u32) -> u32 {
    let old = mem.data.len() as u64 / PAGE;
    let new = old + delta as u64;
    if new > mem.max_pages {
        u32::MAX
    } else {
        mem.data.resize((new * PAGE) as usize, 0);
        old as u32
    }
}
