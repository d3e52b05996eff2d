//! `proc_exit`, `proc_raise`, `random_get` and the socket calls.
//!
//! * `proc_exit(code)` records the code ([`Wasi::exit_code`](crate::wasi::Wasi::exit_code))
//!   and ends the run with [`TrapKind::Exit`]. Any `u32` is recorded (wasmtime refuses codes
//!   from 126 up with an error of its own).
//! * `proc_raise` is [`Errno::NOTSUP`], as in wasmtime.
//! * `random_get` fills the buffer from the seeded generator (`rng.rs`), [`CHUNK`] bytes at
//!   a time.
//! * There are no sockets: every `sock_*` call on an open descriptor is [`Errno::NOTSOCK`],
//!   on a closed one [`Errno::BADF`] (wasmtime's answers).

use super::{Args, Fail, Ret, enumeration, flags};
use crate::wasi::State;
use crate::wasi::abi::{Errno, RIFLAGS_ALL, SDFLAGS_ALL, SIGNAL_MAX, fdflags};
use crate::wasi::guest::{CHUNK, Guest};
use crate::wasm::TrapKind;

/// `proc_exit(rval)`.
pub(super) fn proc_exit(st: &mut State, _guest: &mut Guest<'_, '_>, args: Args<'_>) -> Ret {
    st.exit_code = Some(args.u32(0));
    Err(Fail::Trap(TrapKind::Exit))
}

/// `proc_raise(sig)`.
pub(super) fn proc_raise(_st: &mut State, _guest: &mut Guest<'_, '_>, args: Args<'_>) -> Ret {
    enumeration(args.u32(0), SIGNAL_MAX)?;
    Err(Errno::NOTSUP.into())
}

/// `random_get(buf, buf_len)`.
pub(super) fn random_get(st: &mut State, guest: &mut Guest<'_, '_>, args: Args<'_>) -> Ret {
    let (buf, len) = (args.u32(0), args.u32(1));
    guest.check(buf, u64::from(len))?;
    let mut chunk = alloc::vec![0u8; (len as usize).min(CHUNK)];
    let mut done = 0u32;
    while done < len {
        let n = ((len - done) as usize).min(CHUNK);
        st.rng.fill(&mut chunk[..n]);
        guest.write(buf + done, &chunk[..n])?;
        done += n as u32;
    }
    Ok(())
}

/// The answer of every socket call on descriptor `fd`.
fn not_a_socket(st: &State, fd: u32) -> Ret {
    st.fds.get(fd)?;
    Err(Errno::NOTSOCK.into())
}

/// `sock_accept(fd, flags, → fd)`.
pub(super) fn sock_accept(st: &mut State, _guest: &mut Guest<'_, '_>, args: Args<'_>) -> Ret {
    flags(args.u32(1), u32::from(fdflags::ALL))?;
    not_a_socket(st, args.u32(0))
}

/// `sock_recv(fd, ri_data, ri_data_len, ri_flags, → ro_datalen, → ro_flags)`.
pub(super) fn sock_recv(st: &mut State, _guest: &mut Guest<'_, '_>, args: Args<'_>) -> Ret {
    flags(args.u32(3), RIFLAGS_ALL)?;
    not_a_socket(st, args.u32(0))
}

/// `sock_send(fd, si_data, si_data_len, si_flags, → so_datalen)`.
pub(super) fn sock_send(st: &mut State, _guest: &mut Guest<'_, '_>, args: Args<'_>) -> Ret {
    // `$siflags` is a plain `u16`.
    enumeration(args.u32(3), u32::from(u16::MAX))?;
    not_a_socket(st, args.u32(0))
}

/// `sock_shutdown(fd, how)`.
pub(super) fn sock_shutdown(st: &mut State, _guest: &mut Guest<'_, '_>, args: Args<'_>) -> Ret {
    flags(args.u32(1), SDFLAGS_ALL)?;
    not_a_socket(st, args.u32(0))
}
