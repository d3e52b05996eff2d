//! Every access the WASI calls make to the guest's memory, in one place: the bounds check
//! (computed in 64 bits, so no pointer plus length can wrap), the observer's event (through
//! [`Caller::read`] and [`Caller::write`], which report `host_read` and `host_write`) and the
//! record of the range in [`IoRanges`].
//!
//! A pointer and length whose range `[ptr, ptr + len)` is not inside memory 0 is
//! [`Errno::FAULT`]; nothing is read, written, observed or recorded for it. The witx's own
//! rule (<https://github.com/WebAssembly/WASI/blob/main/legacy/tools/witx-docs.md>,
//! "Pointers") is to trap there, and wasmtime traps; we return the error instead, so the
//! program sees which call failed (docs/wasi.md). Pointers need no alignment: the
//! interpreter's memory is byte-addressed.
//!
//! Guest-sized copies into the host are bounded: a path by [`PATH_MAX`], an iovec array by
//! [`IOV_MAX`] entries; buffers are never copied whole (the calls stream them in chunks of
//! at most [`CHUNK`] bytes).

use alloc::string::String;
use alloc::vec::Vec;

use super::abi::{Errno, layout};
use super::ranges::IoRanges;
use crate::wasm::Caller;

/// The longest path a call accepts, in bytes (POSIX's `PATH_MAX` on Linux): a longer one is
/// [`Errno::NAMETOOLONG`].
pub const PATH_MAX: u32 = 4096;

/// The most entries of an iovec array a call accepts (POSIX's `IOV_MAX`): more is
/// [`Errno::INVAL`], as `readv` and `writev` answer.
pub const IOV_MAX: u32 = 1024;

/// The largest piece of a buffer the host holds at once, in bytes: file and stream data and
/// random bytes move between the host and the guest in pieces of at most this size, each its
/// own observed access.
pub const CHUNK: usize = 64 * 1024;

/// One entry of an iovec or ciovec array (`$iovec`: `buf` at 0, `buf_len` at 4).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Iovec {
    pub buf: u32,
    pub len: u32,
}

/// The calling instance's memory as the WASI calls see it.
pub(super) struct Guest<'g, 'c> {
    caller: &'g mut Caller<'c>,
    io: &'g mut IoRanges,
}

impl<'g, 'c> Guest<'g, 'c> {
    pub fn new(caller: &'g mut Caller<'c>, io: &'g mut IoRanges) -> Self {
        Guest { caller, io }
    }

    /// The run's exact instruction count, the call included (docs/counting.md).
    pub fn instructions(&self) -> u64 {
        self.caller.instructions()
    }

    /// `Ok` when `[addr, addr + len)` lies inside memory 0, else [`Errno::FAULT`].
    pub fn check(&self, addr: u32, len: u64) -> Result<(), Errno> {
        let Ok(len) = u32::try_from(len) else { return Err(Errno::FAULT) };
        // `Caller::in_bounds` adds in `usize`: where that is 32 bits, a sum past 2³² would
        // wrap, and no 32-bit host has a memory that large anyway.
        if usize::BITS <= 32 && addr.checked_add(len).is_none() {
            return Err(Errno::FAULT);
        }
        if self.caller.in_bounds(addr, len) { Ok(()) } else { Err(Errno::FAULT) }
    }

    /// `len` bytes at `addr`, observed and recorded as read.
    pub fn read(&mut self, addr: u32, len: u32) -> Result<&[u8], Errno> {
        self.check(addr, u64::from(len))?;
        self.io.add(u64::from(addr), u64::from(addr) + u64::from(len));
        self.caller.read(addr, len).ok_or(Errno::FAULT)
    }

    /// Writes `bytes` at `addr`, observed and recorded as written.
    pub fn write(&mut self, addr: u32, bytes: &[u8]) -> Result<(), Errno> {
        self.check(addr, bytes.len() as u64)?;
        self.io.add(u64::from(addr), u64::from(addr) + bytes.len() as u64);
        self.caller.write(addr, bytes).ok_or(Errno::FAULT)
    }

    /// Writes a little-endian `u32` (a `$size`, `$fd` or pointer result).
    pub fn write_u32(&mut self, addr: u32, value: u32) -> Result<(), Errno> {
        self.write(addr, &value.to_le_bytes())
    }

    /// Writes a little-endian `u64` (a `$filesize` or `$timestamp` result).
    pub fn write_u64(&mut self, addr: u32, value: u64) -> Result<(), Errno> {
        self.write(addr, &value.to_le_bytes())
    }

    /// A witx `string` (pointer and length): UTF-8 of at most [`PATH_MAX`] bytes.
    ///
    /// # Errors
    /// [`Errno::FAULT`] outside memory, then [`Errno::NAMETOOLONG`] past [`PATH_MAX`] (nothing
    /// is read then), [`Errno::ILSEQ`] when not UTF-8 (wasmtime's answer).
    pub fn string(&mut self, addr: u32, len: u32) -> Result<String, Errno> {
        self.check(addr, u64::from(len))?;
        if len > PATH_MAX {
            return Err(Errno::NAMETOOLONG);
        }
        let bytes = self.read(addr, len)?;
        core::str::from_utf8(bytes).map(String::from).map_err(|_| Errno::ILSEQ)
    }

    /// An iovec (or ciovec) array of `count` entries at `addr`, read in one access; every
    /// buffer it names is checked to lie inside memory, so that a call fails with
    /// [`Errno::FAULT`] before it has moved any data.
    ///
    /// # Errors
    /// [`Errno::INVAL`] for more than [`IOV_MAX`] entries; [`Errno::FAULT`] for the array or
    /// a buffer outside memory.
    pub fn iovecs(&mut self, addr: u32, count: u32) -> Result<Vec<Iovec>, Errno> {
        if count > IOV_MAX {
            return Err(Errno::INVAL);
        }
        let bytes = self.read(addr, count * layout::IOVEC_SIZE)?;
        let list: Vec<Iovec> = bytes
            .chunks_exact(layout::IOVEC_SIZE as usize)
            .map(|e| Iovec { buf: le_u32(&e[0..4]), len: le_u32(&e[4..8]) })
            .collect();
        for v in &list {
            self.check(v.buf, u64::from(v.len))?;
        }
        Ok(list)
    }
}

/// The little-endian `u32` at the start of `b` (at least 4 bytes).
pub(super) fn le_u32(b: &[u8]) -> u32 {
    u32::from_le_bytes([b[0], b[1], b[2], b[3]])
}

/// The little-endian `u64` at the start of `b` (at least 8 bytes).
pub(super) fn le_u64(b: &[u8]) -> u64 {
    let mut a = [0; 8];
    a.copy_from_slice(&b[..8]);
    u64::from_le_bytes(a)
}
