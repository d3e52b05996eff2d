//! The table instructions (WebAssembly Core Specification 2.0, section 4.4.6 "Table
//! Instructions") on [`TableInst`]s, whose elements are slot-encoded references (0 is null,
//! else the store function index + 1). Every function checks its whole range before it
//! changes anything and fails with [`TrapKind::TableOutOfBounds`].

use alloc::vec::Vec;

use crate::wasm::error::TrapKind;
use crate::wasm::store::TableInst;

/// The reference at index `i` (`table.get`).
#[inline(always)]
pub(super) fn get(tab: &TableInst, i: u32) -> Result<u64, TrapKind> {
    tab.elems.get(i as usize).copied().ok_or(TrapKind::TableOutOfBounds)
}

/// Writes `v` at index `i` (`table.set`).
#[inline(always)]
pub(super) fn set(tab: &mut TableInst, i: u32, v: u64) -> Result<(), TrapKind> {
    let e = tab.elems.get_mut(i as usize).ok_or(TrapKind::TableOutOfBounds)?;
    *e = v;
    Ok(())
}

/// The callee of `call_indirect` through index `i`: the store function index, or the trap
/// for an index past the end (undefined element) or a null entry (uninitialized element).
/// The type check is the caller's.
#[inline(always)]
pub(super) fn callee(tab: &TableInst, i: u32) -> Result<u32, TrapKind> {
    match tab.elems.get(i as usize) {
        None => Err(TrapKind::UndefinedElement),
        Some(0) => Err(TrapKind::UninitializedElement),
        Some(&e) => Ok((e - 1) as u32),
    }
}

/// `table.grow` by `delta` entries of `init`: the old size, or `-1` (as `u32::MAX`) past the
/// table's maximum.
#[inline(always)]
pub(super) fn grow(tab: &mut TableInst, init: u64, delta: u32) -> u32 {
    let old = tab.elems.len() as u64;
    let new = old + delta as u64;
    if new > tab.max {
        u32::MAX
    } else {
        tab.elems.resize(new as usize, init);
        old as u32
    }
}

/// `table.fill` of `n` entries from `i` with `v`.
#[inline(always)]
pub(super) fn fill(tab: &mut TableInst, i: u32, v: u64, n: u32) -> Result<(), TrapKind> {
    let (i, n) = (i as usize, n as usize);
    let range = tab.elems.get_mut(i..i.checked_add(n).ok_or(TrapKind::TableOutOfBounds)?);
    range.ok_or(TrapKind::TableOutOfBounds)?.fill(v);
    Ok(())
}

/// `table.copy` of `n` entries from index `s` of `tables[src]` to index `d` of
/// `tables[dst]` (the same table allowed, ranges may overlap).
#[inline(always)]
pub(super) fn copy(
    tables: &mut [TableInst],
    (dst, src): (usize, usize),
    (d, s, n): (u32, u32, u32),
) -> Result<(), TrapKind> {
    let (d, s, n) = (d as u64, s as u64, n as u64);
    if s + n > tables[src].elems.len() as u64 || d + n > tables[dst].elems.len() as u64 {
        return Err(TrapKind::TableOutOfBounds);
    }
    let (d, s, n) = (d as usize, s as usize, n as usize);
    if dst == src {
        tables[dst].elems.copy_within(s..s + n, d);
    } else {
        let tmp: Vec<u64> = tables[src].elems[s..s + n].to_vec();
        tables[dst].elems[d..d + n].copy_from_slice(&tmp);
    }
    Ok(())
}

/// `table.init`: `n` references of the element segment `items` (empty once dropped) from `s`
/// to index `d`.
#[inline(always)]
pub(super) fn init(tab: &mut TableInst, items: &[u64], (d, s, n): (u32, u32, u32)) -> Result<(), TrapKind> {
    let (d, s, n) = (d as u64, s as u64, n as u64);
    if s + n > items.len() as u64 || d + n > tab.elems.len() as u64 {
        return Err(TrapKind::TableOutOfBounds);
    }
    tab.elems[d as usize..(d + n) as usize].copy_from_slice(&items[s as usize..(s + n) as usize]);
    Ok(())
}
