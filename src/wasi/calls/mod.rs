//! The 46 functions: one table ([`SPECS`]) gives each its name, its core WebAssembly
//! parameters and its handler, from which [`Wasi::signature`](super::Wasi::signature) and
//! [`Wasi::link`](super::Wasi::link) are derived.
//!
//! The witx's lowering to core types
//! (<https://github.com/WebAssembly/WASI/blob/main/legacy/tools/witx-docs.md>): a `$fd`,
//! `$size`, pointer, enum or flag set of up to 32 bits is an `i32`; `$filesize`, `$timestamp`,
//! `$rights`, `$dircookie` and `$filedelta` are `i64`; a `string` or list is a pointer and a
//! length; each value of an `(expected T (error $errno))` result is written through a pointer
//! appended to the parameters, and the `$errno` is the `i32` result.
//!
//! Each handler checks in one order: enum and flag values ([`Errno::INVAL`], as wiggle
//! decodes them before wasmtime's handlers run), then the descriptor ([`Errno::BADF`] and
//! the like), then every guest range it will touch ([`Errno::FAULT`], before any effect), then
//! does the work.

mod env;
mod fd;
mod io;
mod paths;
mod proc;
mod readdir;
mod stat;
mod time;

use crate::wasm::{FuncType, TrapKind, ValType, Value};

use super::State;
use super::abi::Errno;
use super::guest::Guest;

/// Why a handler did not return success.
#[derive(Debug)]
pub(crate) enum Fail {
    /// An error code for the guest.
    Errno(Errno),
    /// The run ends (`proc_exit`).
    Trap(TrapKind),
}

impl From<Errno> for Fail {
    fn from(e: Errno) -> Fail {
        Fail::Errno(e)
    }
}

/// A handler's result: `Ok` is [`Errno::SUCCESS`].
pub(crate) type Ret = Result<(), Fail>;

/// A call's arguments, already checked against the function's type by
/// [`Wasi::link`](super::Wasi::link) and the interpreter.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Args<'a>(pub &'a [Value]);

impl Args<'_> {
    /// Parameter `i`, an `i32`, as the unsigned value the witx means.
    pub fn u32(&self, i: usize) -> u32 {
        match self.0.get(i) {
            Some(Value::I32(v)) => *v as u32,
            _ => 0,
        }
    }

    /// Parameter `i`, an `i64`, as unsigned.
    pub fn u64(&self, i: usize) -> u64 {
        match self.0.get(i) {
            Some(Value::I64(v)) => *v as u64,
            _ => 0,
        }
    }
}

/// A host function's body.
pub(crate) type Handler = fn(&mut State, &mut Guest<'_, '_>, Args<'_>) -> Ret;

/// One function of the witx.
#[derive(Debug)]
pub(crate) struct Spec {
    pub name: &'static str,
    pub params: &'static [ValType],
    /// Whether it returns an `$errno` (all but `proc_exit`).
    pub errno: bool,
    pub handler: Handler,
}

impl Spec {
    /// Its core WebAssembly type.
    pub fn func_type(&self) -> FuncType {
        let results: &[ValType] = if self.errno { &[I] } else { &[] };
        FuncType::new(self.params.iter().copied(), results.iter().copied())
    }
}

const I: ValType = ValType::I32;
const L: ValType = ValType::I64;

const fn f(name: &'static str, params: &'static [ValType], handler: Handler) -> Spec {
    Spec { name, params, errno: true, handler }
}

/// Every function, in the witx's order; parameters as the witx lists them, then a pointer per
/// result value.
pub(crate) static SPECS: [Spec; 46] = [
    // (argv, argv_buf)
    f("args_get", &[I, I], env::args_get),
    // (→ argc, → argv_buf_size)
    f("args_sizes_get", &[I, I], env::args_sizes_get),
    f("environ_get", &[I, I], env::environ_get),
    f("environ_sizes_get", &[I, I], env::environ_sizes_get),
    // (id, → resolution)
    f("clock_res_get", &[I, I], time::clock_res_get),
    // (id, precision, → time)
    f("clock_time_get", &[I, L, I], time::clock_time_get),
    // (fd, offset, len, advice)
    f("fd_advise", &[I, L, L, I], fd::fd_advise),
    // (fd, offset, len)
    f("fd_allocate", &[I, L, L], fd::fd_allocate),
    f("fd_close", &[I], fd::fd_close),
    f("fd_datasync", &[I], fd::fd_datasync),
    // (fd, → fdstat)
    f("fd_fdstat_get", &[I, I], fd::fd_fdstat_get),
    // (fd, flags)
    f("fd_fdstat_set_flags", &[I, I], fd::fd_fdstat_set_flags),
    // (fd, rights_base, rights_inheriting)
    f("fd_fdstat_set_rights", &[I, L, L], fd::fd_fdstat_set_rights),
    // (fd, → filestat)
    f("fd_filestat_get", &[I, I], fd::fd_filestat_get),
    // (fd, size)
    f("fd_filestat_set_size", &[I, L], fd::fd_filestat_set_size),
    // (fd, atim, mtim, fst_flags)
    f("fd_filestat_set_times", &[I, L, L, I], fd::fd_filestat_set_times),
    // (fd, iovs, iovs_len, offset, → nread)
    f("fd_pread", &[I, I, I, L, I], io::fd_pread),
    // (fd, → prestat)
    f("fd_prestat_get", &[I, I], fd::fd_prestat_get),
    // (fd, path, path_len)
    f("fd_prestat_dir_name", &[I, I, I], fd::fd_prestat_dir_name),
    // (fd, iovs, iovs_len, offset, → nwritten)
    f("fd_pwrite", &[I, I, I, L, I], io::fd_pwrite),
    // (fd, iovs, iovs_len, → nread)
    f("fd_read", &[I, I, I, I], io::fd_read),
    // (fd, buf, buf_len, cookie, → bufused)
    f("fd_readdir", &[I, I, I, L, I], readdir::fd_readdir),
    // (fd, to)
    f("fd_renumber", &[I, I], fd::fd_renumber),
    // (fd, offset, whence, → newoffset)
    f("fd_seek", &[I, L, I, I], fd::fd_seek),
    f("fd_sync", &[I], fd::fd_sync),
    // (fd, → offset)
    f("fd_tell", &[I, I], fd::fd_tell),
    // (fd, iovs, iovs_len, → nwritten)
    f("fd_write", &[I, I, I, I], io::fd_write),
    // (fd, path, path_len)
    f("path_create_directory", &[I, I, I], paths::path_create_directory),
    // (fd, flags, path, path_len, → filestat)
    f("path_filestat_get", &[I, I, I, I, I], paths::path_filestat_get),
    // (fd, flags, path, path_len, atim, mtim, fst_flags)
    f("path_filestat_set_times", &[I, I, I, I, L, L, I], paths::path_filestat_set_times),
    // (old_fd, old_flags, old_path, old_path_len, new_fd, new_path, new_path_len)
    f("path_link", &[I, I, I, I, I, I, I], paths::path_link),
    // (fd, dirflags, path, path_len, oflags, rights_base, rights_inheriting, fdflags, → fd)
    f("path_open", &[I, I, I, I, I, L, L, I, I], paths::path_open),
    // (fd, path, path_len, buf, buf_len, → bufused)
    f("path_readlink", &[I, I, I, I, I, I], paths::path_readlink),
    // (fd, path, path_len)
    f("path_remove_directory", &[I, I, I], paths::path_remove_directory),
    // (fd, old_path, old_path_len, new_fd, new_path, new_path_len)
    f("path_rename", &[I, I, I, I, I, I], paths::path_rename),
    // (old_path, old_path_len, fd, new_path, new_path_len)
    f("path_symlink", &[I, I, I, I, I], paths::path_symlink),
    // (fd, path, path_len)
    f("path_unlink_file", &[I, I, I], paths::path_unlink_file),
    // (in, out, nsubscriptions, → nevents)
    f("poll_oneoff", &[I, I, I, I], time::poll_oneoff),
    // (rval), no result: the run ends.
    Spec { name: "proc_exit", params: &[I], errno: false, handler: proc::proc_exit },
    // (sig)
    f("proc_raise", &[I], proc::proc_raise),
    f("sched_yield", &[], time::sched_yield),
    // (buf, buf_len)
    f("random_get", &[I, I], proc::random_get),
    // (fd, flags, → fd)
    f("sock_accept", &[I, I, I], proc::sock_accept),
    // (fd, ri_data, ri_data_len, ri_flags, → ro_datalen, → ro_flags)
    f("sock_recv", &[I, I, I, I, I, I], proc::sock_recv),
    // (fd, si_data, si_data_len, si_flags, → so_datalen)
    f("sock_send", &[I, I, I, I, I], proc::sock_send),
    // (fd, how)
    f("sock_shutdown", &[I, I], proc::sock_shutdown),
];

/// The function named `name`.
pub(crate) fn spec(name: &str) -> Option<&'static Spec> {
    SPECS.iter().find(|s| s.name == name)
}

/// `Ok` when `value` has no bits outside `all`, else [`Errno::INVAL`] (wiggle's
/// `InvalidFlagValue`).
fn flags(value: u32, all: u32) -> Result<u32, Errno> {
    if value & !all == 0 { Ok(value) } else { Err(Errno::INVAL) }
}

/// `Ok` when `value` is at most `max`, else [`Errno::INVAL`] (wiggle's `InvalidEnumValue`).
fn enumeration(value: u32, max: u32) -> Result<u32, Errno> {
    if value <= max { Ok(value) } else { Err(Errno::INVAL) }
}
