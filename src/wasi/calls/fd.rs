//! The descriptor calls that move no data: `fd_advise`, `fd_allocate`, `fd_close`,
//! `fd_datasync`, `fd_fdstat_*`, `fd_filestat_*`, `fd_prestat_*`, `fd_renumber`, `fd_seek`,
//! `fd_sync`, `fd_tell`.
//!
//! Which descriptors each accepts, and the errors of the others, are wasmtime's
//! (`crates/wasi/src/p1.rs`): seeking stdio is [`Errno::SPIPE`]; `fd_advise`, `fd_allocate`,
//! `fd_*sync` and `fd_filestat_set_size` take files only; `fd_fdstat_set_rights` is
//! [`Errno::NOTSUP`] on files and directories; `fd_allocate` is [`Errno::NOTSUP`] on files.
//! Rights are reported as wasmtime reports them and not enforced beyond what the OS enforces
//! for the file's open mode.

use std::fs::{File, FileTimes};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use super::{Args, Ret, enumeration, flags, stat};
use crate::wasi::abi::{ADVICE_MAX, Errno, fdflags, filetype, fstflags, layout, rights, whence};
use crate::wasi::errno::from_io;
use crate::wasi::fds::{Desc, DirFd, FileFd};
use crate::wasi::guest::Guest;
use crate::wasi::{EPOCH_NS, State, path, stdio};

/// The rights wasmtime reports for a preopened directory, base (`fs_rights_base`).
const PREOPEN_BASE: u64 = rights::PATH_CREATE_DIRECTORY
    | rights::PATH_CREATE_FILE
    | rights::PATH_LINK_SOURCE
    | rights::PATH_LINK_TARGET
    | rights::PATH_OPEN
    | rights::FD_READDIR
    | rights::PATH_READLINK
    | rights::PATH_RENAME_SOURCE
    | rights::PATH_RENAME_TARGET
    | rights::PATH_SYMLINK
    | rights::PATH_REMOVE_DIRECTORY
    | rights::PATH_UNLINK_FILE
    | rights::PATH_FILESTAT_GET
    | rights::PATH_FILESTAT_SET_TIMES
    | rights::FD_FILESTAT_GET
    | rights::FD_FILESTAT_SET_TIMES;

/// … and inheriting (`fs_rights_inheriting`).
const PREOPEN_INHERITING: u64 = PREOPEN_BASE
    | rights::FD_DATASYNC
    | rights::FD_READ
    | rights::FD_SEEK
    | rights::FD_FDSTAT_SET_FLAGS
    | rights::FD_SYNC
    | rights::FD_TELL
    | rights::FD_WRITE
    | rights::FD_ADVISE
    | rights::FD_ALLOCATE
    | rights::FD_FILESTAT_GET
    | rights::FD_FILESTAT_SET_SIZE
    | rights::FD_FILESTAT_SET_TIMES
    | rights::POLL_FD_READWRITE;

/// The 24-byte `$fdstat`.
fn fdstat(filetype: u8, flags: u16, base: u64, inheriting: u64) -> [u8; layout::FDSTAT_SIZE] {
    let mut b = [0u8; layout::FDSTAT_SIZE];
    b[0] = filetype;
    b[2..4].copy_from_slice(&flags.to_le_bytes());
    b[8..16].copy_from_slice(&base.to_le_bytes());
    b[16..24].copy_from_slice(&inheriting.to_le_bytes());
    b
}

/// `fd_fdstat_get(fd, → fdstat)`.
pub(super) fn fd_fdstat_get(st: &mut State, guest: &mut Guest<'_, '_>, args: Args<'_>) -> Ret {
    let out = args.u32(1);
    let bytes = match st.fds.get(args.u32(0))? {
        Desc::Stdin => fdstat(stdio::stdin_filetype(&st.stdin), 0, rights::FD_READ, rights::FD_READ),
        Desc::Stdout => fdstat(stdio::output_filetype(&st.stdout), 0, rights::FD_WRITE, rights::FD_WRITE),
        Desc::Stderr => fdstat(stdio::output_filetype(&st.stderr), 0, rights::FD_WRITE, rights::FD_WRITE),
        Desc::Dir(DirFd { preopen: Some(_), .. }) => {
            fdstat(filetype::DIRECTORY, 0, PREOPEN_BASE, PREOPEN_INHERITING)
        }
        Desc::Dir(d) => {
            path::verify(d)?;
            let r = rights::ALL
                & !(rights::FD_SEEK
                    | rights::FD_FILESTAT_SET_SIZE
                    | rights::PATH_FILESTAT_SET_SIZE
                    | rights::FD_WRITE);
            fdstat(filetype::DIRECTORY, 0, r, r)
        }
        Desc::File(f) => {
            let t = stat::of(f.file.metadata().map_err(|e| from_io(&e))?.file_type());
            let mut r = rights::ALL;
            if !f.read {
                r &= !(rights::FD_READ | rights::FD_READDIR);
            }
            if !f.write {
                r &= !rights::FD_WRITE;
            }
            let mut fl = 0;
            if f.append {
                fl |= fdflags::APPEND;
            }
            if f.nonblock {
                fl |= fdflags::NONBLOCK;
            }
            fdstat(t, fl, r, r)
        }
    };
    guest.write(out, &bytes)?;
    Ok(())
}

/// `fd_fdstat_set_flags(fd, flags)`: `append` and `nonblock` of a file; the sync flags are
/// [`Errno::INVAL`].
pub(super) fn fd_fdstat_set_flags(st: &mut State, _guest: &mut Guest<'_, '_>, args: Args<'_>) -> Ret {
    let fl = flags(args.u32(1), u32::from(fdflags::ALL))? as u16;
    let f = st.fds.file(args.u32(0))?;
    if fl & (fdflags::DSYNC | fdflags::SYNC | fdflags::RSYNC) != 0 {
        return Err(Errno::INVAL.into());
    }
    f.append = fl & fdflags::APPEND != 0;
    f.nonblock = fl & fdflags::NONBLOCK != 0;
    Ok(())
}

/// `fd_fdstat_set_rights(fd, base, inheriting)`: rights cannot be changed.
pub(super) fn fd_fdstat_set_rights(st: &mut State, _guest: &mut Guest<'_, '_>, args: Args<'_>) -> Ret {
    if args.u64(1) & !rights::ALL != 0 || args.u64(2) & !rights::ALL != 0 {
        return Err(Errno::INVAL.into());
    }
    match st.fds.get(args.u32(0))? {
        Desc::Dir(_) | Desc::File(_) => Err(Errno::NOTSUP.into()),
        _ => Err(Errno::BADF.into()),
    }
}

/// `fd_filestat_get(fd, → filestat)`.
pub(super) fn fd_filestat_get(st: &mut State, guest: &mut Guest<'_, '_>, args: Args<'_>) -> Ret {
    let out = args.u32(1);
    guest.check(out, layout::FILESTAT_SIZE as u64)?;
    let bytes = match st.fds.get(args.u32(0))? {
        Desc::Stdin => stat::filestat_of_type(stdio::stdin_filetype(&st.stdin)),
        Desc::Stdout => stat::filestat_of_type(stdio::output_filetype(&st.stdout)),
        Desc::Stderr => stat::filestat_of_type(stdio::output_filetype(&st.stderr)),
        Desc::Dir(d) => {
            let host = path::verify(d)?;
            stat::filestat(&std::fs::symlink_metadata(host).map_err(|e| from_io(&e))?)
        }
        Desc::File(f) => stat::filestat(&f.file.metadata().map_err(|e| from_io(&e))?),
    };
    guest.write(out, &bytes)?;
    Ok(())
}

/// `fd_filestat_set_size(fd, size)`: the OS's `ftruncate` (an error for a file not open for
/// writing).
pub(super) fn fd_filestat_set_size(st: &mut State, _guest: &mut Guest<'_, '_>, args: Args<'_>) -> Ret {
    let f = st.fds.file(args.u32(0))?;
    f.file.set_len(args.u64(1)).map_err(|e| from_io(&e))?;
    Ok(())
}

/// The host time of a guest timestamp (ns since the Unix epoch).
fn system_time(ns: u64) -> Result<SystemTime, Errno> {
    UNIX_EPOCH.checked_add(Duration::from_nanos(ns)).ok_or(Errno::OVERFLOW)
}

/// The times `*_set_times` asks for: `atim`/`mtim` as given, or "now" (the realtime clock's
/// reading, [`EPOCH_NS`] plus the run's ns, so that a run stays deterministic).
///
/// # Errors
/// [`Errno::INVAL`] for unknown flags or a time both given and "now" (wasmtime's rule).
pub(super) fn times(
    st: &State,
    guest: &Guest<'_, '_>,
    atim: u64,
    mtim: u64,
    fst: u32,
) -> Result<FileTimes, Errno> {
    let fst = flags(fst, u32::from(fstflags::ALL))? as u16;
    let both = |set, now| fst & set != 0 && fst & now != 0;
    if both(fstflags::ATIM, fstflags::ATIM_NOW) || both(fstflags::MTIM, fstflags::MTIM_NOW) {
        return Err(Errno::INVAL);
    }
    let now = || EPOCH_NS.checked_add(st.now_ns(guest)).ok_or(Errno::OVERFLOW);
    let mut t = FileTimes::new();
    if fst & fstflags::ATIM != 0 {
        t = t.set_accessed(system_time(atim)?);
    } else if fst & fstflags::ATIM_NOW != 0 {
        t = t.set_accessed(system_time(now()?)?);
    }
    if fst & fstflags::MTIM != 0 {
        t = t.set_modified(system_time(mtim)?);
    } else if fst & fstflags::MTIM_NOW != 0 {
        t = t.set_modified(system_time(now()?)?);
    }
    Ok(t)
}

/// Sets the times of the directory or file at `host` (opened for reading to do it).
pub(super) fn set_times_at(host: &std::path::Path, t: FileTimes) -> Result<(), Errno> {
    let f = File::open(host).map_err(|e| from_io(&e))?;
    f.set_times(t).map_err(|e| from_io(&e))
}

/// `fd_filestat_set_times(fd, atim, mtim, fst_flags)`.
pub(super) fn fd_filestat_set_times(st: &mut State, guest: &mut Guest<'_, '_>, args: Args<'_>) -> Ret {
    let t = times(st, guest, args.u64(1), args.u64(2), args.u32(3))?;
    match st.fds.get(args.u32(0))? {
        Desc::File(f) => f.file.set_times(t).map_err(|e| from_io(&e))?,
        Desc::Dir(d) => set_times_at(&path::verify(d)?, t)?,
        _ => return Err(Errno::BADF.into()),
    }
    Ok(())
}

/// `fd_advise(fd, offset, len, advice)`: accepted and ignored for files.
pub(super) fn fd_advise(st: &mut State, _guest: &mut Guest<'_, '_>, args: Args<'_>) -> Ret {
    enumeration(args.u32(3), ADVICE_MAX)?;
    st.fds.file(args.u32(0))?;
    Ok(())
}

/// `fd_allocate(fd, offset, len)`: [`Errno::NOTSUP`], as in wasmtime.
pub(super) fn fd_allocate(st: &mut State, _guest: &mut Guest<'_, '_>, args: Args<'_>) -> Ret {
    st.fds.file(args.u32(0))?;
    Err(Errno::NOTSUP.into())
}

/// `fd_close(fd)`: any descriptor, stdio and preopens included.
pub(super) fn fd_close(st: &mut State, _guest: &mut Guest<'_, '_>, args: Args<'_>) -> Ret {
    st.fds.close(args.u32(0))?;
    Ok(())
}

/// `fd_datasync(fd)`.
pub(super) fn fd_datasync(st: &mut State, _guest: &mut Guest<'_, '_>, args: Args<'_>) -> Ret {
    st.fds.file(args.u32(0))?.file.sync_data().map_err(|e| from_io(&e))?;
    Ok(())
}

/// `fd_sync(fd)`.
pub(super) fn fd_sync(st: &mut State, _guest: &mut Guest<'_, '_>, args: Args<'_>) -> Ret {
    st.fds.file(args.u32(0))?.file.sync_all().map_err(|e| from_io(&e))?;
    Ok(())
}

/// `fd_prestat_get(fd, → prestat)`: `$dir` (0) and the guest name's length.
pub(super) fn fd_prestat_get(st: &mut State, guest: &mut Guest<'_, '_>, args: Args<'_>) -> Ret {
    let Desc::Dir(DirFd { preopen: Some(name), .. }) = st.fds.get(args.u32(0))? else {
        return Err(Errno::BADF.into());
    };
    let len = u32::try_from(name.len()).map_err(|_| Errno::OVERFLOW)?;
    let mut b = [0u8; layout::PRESTAT_SIZE];
    b[4..8].copy_from_slice(&len.to_le_bytes());
    guest.write(args.u32(1), &b)?;
    Ok(())
}

/// `fd_prestat_dir_name(fd, path, path_len)`: the guest name, without a NUL;
/// [`Errno::NAMETOOLONG`] when longer than `path_len`, [`Errno::NOTDIR`] for a descriptor
/// that is not a preopened directory (wasmtime's answers).
pub(super) fn fd_prestat_dir_name(st: &mut State, guest: &mut Guest<'_, '_>, args: Args<'_>) -> Ret {
    let Desc::Dir(DirFd { preopen: Some(name), .. }) = st.fds.get(args.u32(0))? else {
        return Err(Errno::NOTDIR.into());
    };
    if name.len() > args.u32(2) as usize {
        return Err(Errno::NAMETOOLONG.into());
    }
    guest.write(args.u32(1), name.as_bytes())?;
    Ok(())
}

/// `fd_renumber(fd, to)`.
pub(super) fn fd_renumber(st: &mut State, _guest: &mut Guest<'_, '_>, args: Args<'_>) -> Ret {
    st.fds.renumber(args.u32(0), args.u32(1))?;
    Ok(())
}

/// The file behind a descriptor that can seek: stdio is [`Errno::SPIPE`], anything else but
/// a file [`Errno::BADF`].
fn seekable(st: &mut State, fd: u32) -> Result<&mut FileFd, Errno> {
    match st.fds.get_mut(fd)? {
        Desc::File(f) => Ok(f),
        Desc::Stdin | Desc::Stdout | Desc::Stderr => Err(Errno::SPIPE),
        Desc::Dir(_) => Err(Errno::BADF),
    }
}

/// `fd_seek(fd, offset, whence, → newoffset)`: a position before 0 or past `u64::MAX` is
/// [`Errno::INVAL`]; past the end is allowed.
pub(super) fn fd_seek(st: &mut State, guest: &mut Guest<'_, '_>, args: Args<'_>) -> Ret {
    let wh = enumeration(args.u32(2), whence::END)?;
    let (delta, out) = (args.u64(1) as i64, args.u32(3));
    let f = seekable(st, args.u32(0))?;
    guest.check(out, 8)?;
    let base = match wh {
        whence::SET => 0,
        whence::CUR => f.pos,
        _ => f.file.metadata().map_err(|e| from_io(&e))?.len(),
    };
    let pos = base.checked_add_signed(delta).ok_or(Errno::INVAL)?;
    f.pos = pos;
    guest.write_u64(out, pos)?;
    Ok(())
}

/// `fd_tell(fd, → offset)`.
pub(super) fn fd_tell(st: &mut State, guest: &mut Guest<'_, '_>, args: Args<'_>) -> Ret {
    let pos = seekable(st, args.u32(0))?.pos;
    guest.write_u64(args.u32(1), pos)?;
    Ok(())
}
