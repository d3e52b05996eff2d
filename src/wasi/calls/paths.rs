//! The `path_*` calls: every path is resolved by `path.rs` inside the directory descriptor it
//! comes with, and only the resolved host path reaches the OS.
//!
//! `path_open` follows wasmtime's `open_at` (`crates/wasi/src/filesystem.rs`): the file is
//! opened for reading when the rights ask for `fd_read` or not for `fd_write`, for writing
//! when they ask for `fd_write` or the flags for `creat` or `trunc`; `directory` with `creat`,
//! `excl` or `trunc` is [`Errno::INVAL`]; the sync flags are [`Errno::NOTSUP`]; a directory
//! opened for writing is [`Errno::ISDIR`], a last component that is a symbolic link not to be
//! followed [`Errno::LOOP`] (or [`Errno::EXIST`] with `creat` and `excl`), as the OS's
//! `O_NOFOLLOW` answers. Only regular files and directories are opened: a device, FIFO or
//! socket is [`Errno::NOTSUP`], since opening one can block.
//!
//! `path_link` with `symlink_follow` is [`Errno::INVAL`] (wasmtime). `path_symlink` stores
//! any relative target text (a link that leads out is refused when a path goes through it);
//! an absolute target is [`Errno::PERM`], and so is `path_readlink` of one (wasmtime).
//! `path_filestat_set_times` on a symbolic link not followed is [`Errno::NOTSUP`] (`std` sets
//! a file's times through an open file). A path ending in `.` or `..` names a directory, not
//! an entry of it: creating, linking or symlinking there is [`Errno::EXIST`], removing a
//! directory [`Errno::INVAL`], unlinking [`Errno::ISDIR`], renaming [`Errno::BUSY`].

use std::fs::OpenOptions;

use super::fd::{set_times_at, times};
use super::{Args, Ret, flags, stat};
use crate::wasi::State;
use crate::wasi::abi::{Errno, fdflags, layout, lookupflags, oflags, rights};
use crate::wasi::errno::from_io;
use crate::wasi::fds::{Desc, DirFd, FileFd};
use crate::wasi::guest::Guest;
use crate::wasi::path::{Parent, resolve, resolve_parent};

/// The directory descriptor `fd` (a copy: the table may change before it is used).
fn dir(st: &State, fd: u32) -> Result<DirFd, Errno> {
    st.fds.dir(fd).cloned()
}

/// Whether `lookupflags` asks to follow a last symbolic link.
fn follow(value: u32) -> Result<bool, Errno> {
    Ok(flags(value, lookupflags::SYMLINK_FOLLOW)? != 0)
}

/// The parent's entry, or `err` when the path names no entry (it ends in `.` or `..`).
fn entry_or(p: &Parent, err: Errno) -> Result<std::path::PathBuf, Errno> {
    if p.name.is_some() { Ok(p.entry()) } else { Err(err) }
}

fn io<T>(r: std::io::Result<T>) -> Result<T, Errno> {
    r.map_err(|e| from_io(&e))
}

/// `path_create_directory(fd, path, path_len)`.
pub(super) fn path_create_directory(st: &mut State, guest: &mut Guest<'_, '_>, args: Args<'_>) -> Ret {
    let d = dir(st, args.u32(0))?;
    let p = guest.string(args.u32(1), args.u32(2))?;
    let parent = resolve_parent(&d, &p)?;
    io(std::fs::create_dir(entry_or(&parent, Errno::EXIST)?))?;
    Ok(())
}

/// `path_filestat_get(fd, flags, path, path_len, → filestat)`.
pub(super) fn path_filestat_get(st: &mut State, guest: &mut Guest<'_, '_>, args: Args<'_>) -> Ret {
    let fol = follow(args.u32(1))?;
    let d = dir(st, args.u32(0))?;
    let p = guest.string(args.u32(2), args.u32(3))?;
    let out = args.u32(4);
    guest.check(out, layout::FILESTAT_SIZE as u64)?;
    let r = resolve(&d, &p, fol)?;
    let meta = r.meta.ok_or(Errno::NOENT)?;
    guest.write(out, &stat::filestat(&meta))?;
    Ok(())
}

/// `path_filestat_set_times(fd, flags, path, path_len, atim, mtim, fst_flags)`.
pub(super) fn path_filestat_set_times(st: &mut State, guest: &mut Guest<'_, '_>, args: Args<'_>) -> Ret {
    let fol = follow(args.u32(1))?;
    let t = times(st, guest, args.u64(4), args.u64(5), args.u32(6))?;
    let d = dir(st, args.u32(0))?;
    let p = guest.string(args.u32(2), args.u32(3))?;
    let r = resolve(&d, &p, fol)?;
    match r.meta {
        None => Err(Errno::NOENT.into()),
        Some(m) if m.file_type().is_symlink() => Err(Errno::NOTSUP.into()),
        Some(_) => Ok(set_times_at(&r.host, t)?),
    }
}

/// `path_link(old_fd, old_flags, old_path, old_path_len, new_fd, new_path, new_path_len)`: a
/// hard link to the old path's entry itself (a symbolic link is not followed).
pub(super) fn path_link(st: &mut State, guest: &mut Guest<'_, '_>, args: Args<'_>) -> Ret {
    let fol = follow(args.u32(1))?;
    let old = dir(st, args.u32(0))?;
    let new = dir(st, args.u32(4))?;
    let old_path = guest.string(args.u32(2), args.u32(3))?;
    let new_path = guest.string(args.u32(5), args.u32(6))?;
    if fol {
        return Err(Errno::INVAL.into());
    }
    let src = resolve(&old, &old_path, false)?;
    if src.meta.is_none() {
        return Err(Errno::NOENT.into());
    }
    let dst = resolve_parent(&new, &new_path)?;
    io(std::fs::hard_link(&src.host, entry_or(&dst, Errno::EXIST)?))?;
    Ok(())
}

/// `path_open(fd, dirflags, path, path_len, oflags, rights_base, rights_inheriting, fdflags,
/// → fd)`.
pub(super) fn path_open(st: &mut State, guest: &mut Guest<'_, '_>, args: Args<'_>) -> Ret {
    let fol = follow(args.u32(1))?;
    let of = flags(args.u32(4), u32::from(oflags::ALL))? as u16;
    let (base, inheriting) = (args.u64(5), args.u64(6));
    if base & !rights::ALL != 0 || inheriting & !rights::ALL != 0 {
        return Err(Errno::INVAL.into());
    }
    let fdfl = flags(args.u32(7), u32::from(fdflags::ALL))? as u16;
    let out = args.u32(8);
    let p = guest.string(args.u32(2), args.u32(3))?;
    let d = match st.fds.get(args.u32(0))? {
        Desc::Dir(d) => d.clone(),
        Desc::File(_) => return Err(Errno::NOTDIR.into()),
        _ => return Err(Errno::BADF.into()),
    };
    if fdfl & (fdflags::DSYNC | fdflags::SYNC | fdflags::RSYNC) != 0 {
        return Err(Errno::NOTSUP.into());
    }
    let has = |flag: u16| of & flag != 0;
    if has(oflags::DIRECTORY) && (has(oflags::CREAT) || has(oflags::EXCL) || has(oflags::TRUNC)) {
        return Err(Errno::INVAL.into());
    }
    guest.check(out, 4)?;
    if !st.fds.has_room() {
        return Err(Errno::MFILE.into());
    }
    let write = base & rights::FD_WRITE != 0 || has(oflags::CREAT) || has(oflags::TRUNC);
    let read = base & rights::FD_READ != 0 || base & rights::FD_WRITE == 0;
    let file = |file| {
        Desc::File(FileFd {
            file,
            pos: 0,
            append: fdfl & fdflags::APPEND != 0,
            nonblock: fdfl & fdflags::NONBLOCK != 0,
            read,
            write,
        })
    };
    let r = resolve(&d, &p, fol)?;
    let desc = match &r.meta {
        None if !has(oflags::CREAT) => return Err(Errno::NOENT.into()),
        None => file(io(OpenOptions::new().read(read).write(true).create_new(true).open(&r.host))?),
        Some(m) if m.file_type().is_symlink() => {
            let e = if has(oflags::CREAT) && has(oflags::EXCL) { Errno::EXIST } else { Errno::LOOP };
            return Err(e.into());
        }
        Some(_) if has(oflags::CREAT) && has(oflags::EXCL) => return Err(Errno::EXIST.into()),
        Some(m) if m.is_dir() => {
            if write {
                return Err(Errno::ISDIR.into());
            }
            Desc::Dir(DirFd { root: d.root.clone(), rel: r.comps, preopen: None })
        }
        Some(m) if m.is_file() => {
            if has(oflags::DIRECTORY) {
                return Err(Errno::NOTDIR.into());
            }
            file(io(OpenOptions::new().read(read).write(write).truncate(has(oflags::TRUNC)).open(&r.host))?)
        }
        Some(_) => return Err(Errno::NOTSUP.into()),
    };
    let fd = st.fds.push(desc)?;
    guest.write_u32(out, fd)?;
    Ok(())
}

/// `path_readlink(fd, path, path_len, buf, buf_len, → bufused)`: the link's target, cut to
/// `buf_len` bytes, without a NUL; an absolute target is [`Errno::PERM`] (wasmtime's rule).
pub(super) fn path_readlink(st: &mut State, guest: &mut Guest<'_, '_>, args: Args<'_>) -> Ret {
    let d = dir(st, args.u32(0))?;
    let p = guest.string(args.u32(1), args.u32(2))?;
    let (buf, buf_len, out) = (args.u32(3), args.u32(4), args.u32(5));
    guest.check(buf, u64::from(buf_len))?;
    guest.check(out, 4)?;
    let r = resolve(&d, &p, false)?;
    match &r.meta {
        None => return Err(Errno::NOENT.into()),
        Some(m) if !m.file_type().is_symlink() => return Err(Errno::INVAL.into()),
        Some(_) => {}
    }
    let target = io(std::fs::read_link(&r.host))?;
    if target.has_root() {
        // wasmtime's `read_link` refuses to show an absolute target (an escape attempt).
        return Err(Errno::PERM.into());
    }
    let target = target.to_str().ok_or(Errno::ILSEQ)?.as_bytes();
    let n = target.len().min(buf_len as usize);
    guest.write(buf, &target[..n])?;
    guest.write_u32(out, n as u32)?;
    Ok(())
}

/// `path_remove_directory(fd, path, path_len)`.
pub(super) fn path_remove_directory(st: &mut State, guest: &mut Guest<'_, '_>, args: Args<'_>) -> Ret {
    let d = dir(st, args.u32(0))?;
    let p = guest.string(args.u32(1), args.u32(2))?;
    let parent = resolve_parent(&d, &p)?;
    io(std::fs::remove_dir(entry_or(&parent, Errno::INVAL)?))?;
    Ok(())
}

/// `path_rename(fd, old_path, old_path_len, new_fd, new_path, new_path_len)`.
pub(super) fn path_rename(st: &mut State, guest: &mut Guest<'_, '_>, args: Args<'_>) -> Ret {
    let old = dir(st, args.u32(0))?;
    let new = dir(st, args.u32(3))?;
    let old_path = guest.string(args.u32(1), args.u32(2))?;
    let new_path = guest.string(args.u32(4), args.u32(5))?;
    let src = resolve_parent(&old, &old_path)?;
    let dst = resolve_parent(&new, &new_path)?;
    let (from, to) = (entry_or(&src, Errno::BUSY)?, entry_or(&dst, Errno::BUSY)?);
    if src.trailing_slash || dst.trailing_slash {
        let m = io(std::fs::symlink_metadata(&from))?;
        if !m.is_dir() {
            return Err(Errno::NOTDIR.into());
        }
    }
    io(std::fs::rename(from, to))?;
    Ok(())
}

/// `path_symlink(old_path, old_path_len, fd, new_path, new_path_len)`: a symbolic link at the
/// new path whose target is the old path's text; an absolute target is [`Errno::PERM`]
/// (wasmtime's rule). Unix only; elsewhere [`Errno::NOTSUP`].
pub(super) fn path_symlink(st: &mut State, guest: &mut Guest<'_, '_>, args: Args<'_>) -> Ret {
    let d = dir(st, args.u32(2))?;
    let target = guest.string(args.u32(0), args.u32(1))?;
    let new_path = guest.string(args.u32(3), args.u32(4))?;
    let parent = resolve_parent(&d, &new_path)?;
    let at = entry_or(&parent, Errno::EXIST)?;
    if std::path::Path::new(&target).has_root() {
        // wasmtime refuses an absolute target at creation (an escape attempt).
        return Err(Errno::PERM.into());
    }
    #[cfg(unix)]
    {
        io(std::os::unix::fs::symlink(target, at))?;
        Ok(())
    }
    #[cfg(not(unix))]
    {
        let _ = (target, at);
        Err(Errno::NOTSUP.into())
    }
}

/// `path_unlink_file(fd, path, path_len)`: a file or a symbolic link (not followed).
pub(super) fn path_unlink_file(st: &mut State, guest: &mut Guest<'_, '_>, args: Args<'_>) -> Ret {
    let d = dir(st, args.u32(0))?;
    let p = guest.string(args.u32(1), args.u32(2))?;
    let parent = resolve_parent(&d, &p)?;
    let at = entry_or(&parent, Errno::ISDIR)?;
    let meta = io(std::fs::symlink_metadata(&at))?;
    if meta.is_dir() {
        return Err(Errno::ISDIR.into());
    }
    if parent.trailing_slash {
        return Err(Errno::NOTDIR.into());
    }
    io(std::fs::remove_file(at))?;
    Ok(())
}
