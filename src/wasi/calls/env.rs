//! `args_*` and `environ_*`: the program's arguments and environment ([`super::super::Config`]).
//!
//! `*_sizes_get` writes the count and the buffer size in bytes (every string with its NUL,
//! an environment entry as `name=value`); `*_get` writes the pointer array (one `u32` per
//! string, pointing into the buffer) in one access and the buffer in another.

use alloc::vec::Vec;

use super::{Args, Ret};
use crate::wasi::State;
use crate::wasi::abi::Errno;
use crate::wasi::guest::Guest;

/// The strings as the guest receives them: NUL-terminated.
fn args_strings(st: &State) -> impl Iterator<Item = Vec<u8>> + '_ {
    st.args.iter().map(|a| {
        let mut s = a.clone();
        s.push(0);
        s
    })
}

fn env_strings(st: &State) -> impl Iterator<Item = Vec<u8>> + '_ {
    st.env.iter().map(|(k, v)| {
        let mut s = Vec::with_capacity(k.len() + v.len() + 2);
        s.extend_from_slice(k);
        s.push(b'=');
        s.extend_from_slice(v);
        s.push(0);
        s
    })
}

/// Writes the count and the total size of `strings` at the two result pointers.
fn sizes(guest: &mut Guest<'_, '_>, args: Args<'_>, strings: impl Iterator<Item = Vec<u8>>) -> Ret {
    let (count_ptr, size_ptr) = (args.u32(0), args.u32(1));
    let (mut count, mut size) = (0u64, 0u64);
    for s in strings {
        count += 1;
        size += s.len() as u64;
    }
    let count = u32::try_from(count).map_err(|_| Errno::OVERFLOW)?;
    let size = u32::try_from(size).map_err(|_| Errno::OVERFLOW)?;
    guest.check(count_ptr, 4)?;
    guest.check(size_ptr, 4)?;
    guest.write_u32(count_ptr, count)?;
    guest.write_u32(size_ptr, size)?;
    Ok(())
}

/// Writes the pointer array at `args[0]` and the strings at `args[1]`.
fn strings(guest: &mut Guest<'_, '_>, args: Args<'_>, strings: impl Iterator<Item = Vec<u8>>) -> Ret {
    let (array, buf) = (args.u32(0), args.u32(1));
    let (mut pointers, mut bytes) = (Vec::new(), Vec::new());
    for s in strings {
        let at = u32::try_from(u64::from(buf) + bytes.len() as u64).map_err(|_| Errno::FAULT)?;
        pointers.extend_from_slice(&at.to_le_bytes());
        bytes.extend_from_slice(&s);
    }
    guest.check(array, pointers.len() as u64)?;
    guest.check(buf, bytes.len() as u64)?;
    guest.write(array, &pointers)?;
    guest.write(buf, &bytes)?;
    Ok(())
}

/// `args_sizes_get(→ argc, → argv_buf_size)`.
pub(super) fn args_sizes_get(st: &mut State, guest: &mut Guest<'_, '_>, args: Args<'_>) -> Ret {
    sizes(guest, args, args_strings(st))
}

/// `args_get(argv, argv_buf)`.
pub(super) fn args_get(st: &mut State, guest: &mut Guest<'_, '_>, args: Args<'_>) -> Ret {
    strings(guest, args, args_strings(st))
}

/// `environ_sizes_get(→ count, → buf_size)`.
pub(super) fn environ_sizes_get(st: &mut State, guest: &mut Guest<'_, '_>, args: Args<'_>) -> Ret {
    sizes(guest, args, env_strings(st))
}

/// `environ_get(environ, environ_buf)`.
pub(super) fn environ_get(st: &mut State, guest: &mut Guest<'_, '_>, args: Args<'_>) -> Ret {
    strings(guest, args, env_strings(st))
}
