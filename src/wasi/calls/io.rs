//! `fd_read`, `fd_pread`, `fd_write`, `fd_pwrite`: data between descriptors and the guest's
//! buffers.
//!
//! Every buffer of the iovec array is used in order, as `readv` and `writev` do (wasmtime
//! moves only the first non-empty one per call, which the witx allows as a short transfer).
//! Buffers whose lengths add up past `u32::MAX` are [`Errno::INVAL`] (POSIX's rule for a sum
//! past `SSIZE_MAX`). A buffer is written from guest memory in one access and read into it in
//! pieces of at most [`CHUNK`] bytes, each its own observed write; a read stops at the end of
//! the file. An error after some bytes moved returns the count so far, as POSIX does.
//!
//! Files keep their own offset ([`FileFd::pos`]); in append mode every write goes to the
//! file's current end (an `fd_pwrite` too, as Linux's `pwrite` on an `O_APPEND` file does and
//! wasmtime copies), and `fd_write` leaves the offset there.

use std::fs::File;

use super::{Args, Ret};
use crate::wasi::abi::Errno;
use crate::wasi::errno::from_io;
use crate::wasi::fds::{Desc, FileFd};
use crate::wasi::guest::{CHUNK, Guest, Iovec};
use crate::wasi::{State, stdio};

/// Reads at `pos` without moving any offset.
#[cfg(unix)]
fn read_at(f: &File, buf: &mut [u8], pos: u64) -> std::io::Result<usize> {
    std::os::unix::fs::FileExt::read_at(f, buf, pos)
}

#[cfg(not(unix))]
fn read_at(mut f: &File, buf: &mut [u8], pos: u64) -> std::io::Result<usize> {
    use std::io::{Read, Seek, SeekFrom};
    f.seek(SeekFrom::Start(pos))?;
    f.read(buf)
}

/// Writes all of `buf` at `pos`.
#[cfg(unix)]
fn write_at(f: &File, buf: &[u8], pos: u64) -> std::io::Result<()> {
    std::os::unix::fs::FileExt::write_all_at(f, buf, pos)
}

#[cfg(not(unix))]
fn write_at(mut f: &File, buf: &[u8], pos: u64) -> std::io::Result<()> {
    use std::io::{Seek, SeekFrom, Write};
    f.seek(SeekFrom::Start(pos))?;
    f.write_all(buf)
}

/// The iovec array of `args[1..3]`, its buffers adding up to at most `u32::MAX` bytes.
fn iovecs(guest: &mut Guest<'_, '_>, args: Args<'_>) -> Result<alloc::vec::Vec<Iovec>, Errno> {
    let list = guest.iovecs(args.u32(1), args.u32(2))?;
    let total: u64 = list.iter().map(|v| u64::from(v.len)).sum();
    if total > u64::from(u32::MAX) {
        return Err(Errno::INVAL);
    }
    Ok(list)
}

/// Reads `f` from `pos` into the buffers; returns the bytes read.
fn read_file(f: &File, mut pos: u64, guest: &mut Guest<'_, '_>, iovs: &[Iovec]) -> Result<u32, Errno> {
    let largest = iovs.iter().map(|v| v.len as usize).max().unwrap_or(0);
    let mut chunk = alloc::vec![0u8; largest.min(CHUNK)];
    let mut total = 0u32;
    for v in iovs {
        let mut filled = 0u32;
        while filled < v.len {
            let want = ((v.len - filled) as usize).min(CHUNK);
            let n = match read_at(f, &mut chunk[..want], pos) {
                Ok(n) => n,
                Err(_) if total > 0 => return Ok(total),
                Err(e) => return Err(from_io(&e)),
            };
            guest.write(v.buf + filled, &chunk[..n])?;
            filled += n as u32;
            total += n as u32;
            pos = pos.saturating_add(n as u64);
            if n < want {
                return Ok(total);
            }
        }
    }
    Ok(total)
}

/// Writes the buffers to `f` at `pos`, or at its end in append mode; returns the bytes written
/// and the offset after them.
fn write_file(
    f: &FileFd,
    mut pos: u64,
    guest: &mut Guest<'_, '_>,
    iovs: &[Iovec],
) -> Result<(u32, u64), Errno> {
    let mut total = 0u32;
    for v in iovs {
        if v.len == 0 {
            continue;
        }
        if f.append {
            pos = match f.file.metadata() {
                Ok(m) => m.len(),
                Err(_) if total > 0 => return Ok((total, pos)),
                Err(e) => return Err(from_io(&e)),
            };
        }
        let bytes = guest.read(v.buf, v.len)?;
        match write_at(&f.file, bytes, pos) {
            Ok(()) => {}
            Err(_) if total > 0 => return Ok((total, pos)),
            Err(e) => return Err(from_io(&e)),
        }
        total += v.len;
        pos = pos.saturating_add(u64::from(v.len));
    }
    Ok((total, pos))
}

/// `fd_read(fd, iovs, iovs_len, → nread)`: a file or stdin.
pub(super) fn fd_read(st: &mut State, guest: &mut Guest<'_, '_>, args: Args<'_>) -> Ret {
    let (fd, out) = (args.u32(0), args.u32(3));
    if !matches!(st.fds.get(fd)?, Desc::File(_) | Desc::Stdin) {
        return Err(Errno::BADF.into());
    }
    let iovs = iovecs(guest, args)?;
    guest.check(out, 4)?;
    let n = match st.fds.get_mut(fd)? {
        Desc::File(f) => {
            let n = read_file(&f.file, f.pos, guest, &iovs)?;
            f.pos = f.pos.saturating_add(u64::from(n));
            n
        }
        _ => stdio::read(&mut st.stdin, &mut st.stdin_pos, guest, &iovs)?,
    };
    guest.write_u32(out, n)?;
    Ok(())
}

/// `fd_pread(fd, iovs, iovs_len, offset, → nread)`: a file; stdin is [`Errno::SPIPE`].
pub(super) fn fd_pread(st: &mut State, guest: &mut Guest<'_, '_>, args: Args<'_>) -> Ret {
    let (fd, offset, out) = (args.u32(0), args.u64(3), args.u32(4));
    match st.fds.get(fd)? {
        Desc::File(_) => {}
        Desc::Stdin => return Err(Errno::SPIPE.into()),
        _ => return Err(Errno::BADF.into()),
    }
    let iovs = iovecs(guest, args)?;
    guest.check(out, 4)?;
    let f = st.fds.file(fd)?;
    let n = read_file(&f.file, offset, guest, &iovs)?;
    guest.write_u32(out, n)?;
    Ok(())
}

/// `fd_write(fd, iovs, iovs_len, → nwritten)`: a file, stdout or stderr.
pub(super) fn fd_write(st: &mut State, guest: &mut Guest<'_, '_>, args: Args<'_>) -> Ret {
    let (fd, out) = (args.u32(0), args.u32(3));
    if !matches!(st.fds.get(fd)?, Desc::File(_) | Desc::Stdout | Desc::Stderr) {
        return Err(Errno::BADF.into());
    }
    let iovs = iovecs(guest, args)?;
    guest.check(out, 4)?;
    let n = match st.fds.get_mut(fd)? {
        Desc::File(f) => {
            let (n, pos) = write_file(f, f.pos, guest, &iovs)?;
            f.pos = pos;
            n
        }
        Desc::Stdout => write_stream(&st.stdout, guest, &iovs)?,
        _ => write_stream(&st.stderr, guest, &iovs)?,
    };
    guest.write_u32(out, n)?;
    Ok(())
}

/// Writes the buffers to an output stream, buffer by buffer.
fn write_stream(to: &crate::wasi::Output, guest: &mut Guest<'_, '_>, iovs: &[Iovec]) -> Result<u32, Errno> {
    let mut total = 0u32;
    for v in iovs.iter().filter(|v| v.len > 0) {
        let bytes = guest.read(v.buf, v.len)?;
        match stdio::write(to, bytes) {
            Ok(()) => total += v.len,
            Err(_) if total > 0 => return Ok(total),
            Err(e) => return Err(e),
        }
    }
    Ok(total)
}

/// `fd_pwrite(fd, iovs, iovs_len, offset, → nwritten)`: a file; stdout and stderr are
/// [`Errno::SPIPE`]. The file's offset does not move.
pub(super) fn fd_pwrite(st: &mut State, guest: &mut Guest<'_, '_>, args: Args<'_>) -> Ret {
    let (fd, offset, out) = (args.u32(0), args.u64(3), args.u32(4));
    match st.fds.get(fd)? {
        Desc::File(_) => {}
        Desc::Stdout | Desc::Stderr => return Err(Errno::SPIPE.into()),
        _ => return Err(Errno::BADF.into()),
    }
    let iovs = iovecs(guest, args)?;
    guest.check(out, 4)?;
    let f = st.fds.file(fd)?;
    let (n, _) = write_file(f, offset, guest, &iovs)?;
    guest.write_u32(out, n)?;
    Ok(())
}
