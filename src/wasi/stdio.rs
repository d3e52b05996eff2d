//! The guest's standard streams: fd 0 reads [`Stdin`], fds 1 and 2 write to [`Output`]s.
//!
//! Output is written through as the program writes it: one `write_all` and a flush per
//! `fd_write`, so nothing is held back when a run stops. Input is read when the program asks
//! and no sooner: [`Stdin::Bytes`] fills every buffer of an `fd_read` it can; a
//! [`Stdin::Reader`] or [`Stdin::Inherit`] is read once per `fd_read`, into its first
//! non-empty buffer (at most [`CHUNK`] bytes), so that a call never waits for more input than
//! one read of the source returns.

use std::io::{IsTerminal, Read, Write};

use super::abi::{Errno, filetype};
use super::errno::from_io;
use super::guest::{CHUNK, Guest, Iovec};
use super::{Output, Stdin};

/// Writes `bytes` to `out`.
pub(super) fn write(out: &Output, bytes: &[u8]) -> Result<(), Errno> {
    let result = match out {
        Output::Stdout => {
            let mut s = std::io::stdout().lock();
            s.write_all(bytes).and_then(|()| s.flush())
        }
        Output::Stderr => std::io::stderr().lock().write_all(bytes),
        Output::Capture(buf) => {
            buf.borrow_mut().extend_from_slice(bytes);
            Ok(())
        }
        Output::Discard => Ok(()),
    };
    result.map_err(|e| from_io(&e))
}

/// The `$filetype` of an output: a character device when it is our process's stream and
/// that is a terminal, else unknown, as wasmtime reports stdio (`crates/wasi/src/p1.rs`,
/// `From<IsATTY> for Filetype`).
pub(super) fn output_filetype(out: &Output) -> u8 {
    let tty = match out {
        Output::Stdout => std::io::stdout().is_terminal(),
        Output::Stderr => std::io::stderr().is_terminal(),
        Output::Capture(_) | Output::Discard => false,
    };
    if tty { filetype::CHARACTER_DEVICE } else { filetype::UNKNOWN }
}

/// The `$filetype` of the input, by the same rule.
pub(super) fn stdin_filetype(input: &Stdin) -> u8 {
    match input {
        Stdin::Inherit if std::io::stdin().is_terminal() => filetype::CHARACTER_DEVICE,
        _ => filetype::UNKNOWN,
    }
}

/// The bytes of [`Stdin::Bytes`] not yet read, else `None` (unknown).
pub(super) fn stdin_remaining(input: &Stdin, pos: usize) -> Option<u64> {
    match input {
        Stdin::Empty => Some(0),
        Stdin::Bytes(b) => Some(b.len().saturating_sub(pos) as u64),
        Stdin::Reader(_) | Stdin::Inherit => None,
    }
}

/// `fd_read` of fd 0 into `iovs`: the number of bytes read.
pub(super) fn read(
    input: &mut Stdin,
    pos: &mut usize,
    guest: &mut Guest<'_, '_>,
    iovs: &[Iovec],
) -> Result<u32, Errno> {
    match input {
        Stdin::Empty => Ok(0),
        Stdin::Bytes(data) => {
            let mut total = 0u32;
            for v in iovs {
                let rest = &data[(*pos).min(data.len())..];
                if rest.is_empty() {
                    break;
                }
                let n = rest.len().min(v.len as usize);
                guest.write(v.buf, &rest[..n])?;
                *pos += n;
                total += n as u32;
            }
            Ok(total)
        }
        Stdin::Reader(r) => read_once(&mut **r, guest, iovs),
        Stdin::Inherit => read_once(&mut std::io::stdin().lock(), guest, iovs),
    }
}

/// One `read` of `r` into the first non-empty buffer.
fn read_once(r: &mut dyn Read, guest: &mut Guest<'_, '_>, iovs: &[Iovec]) -> Result<u32, Errno> {
    let Some(v) = iovs.iter().find(|v| v.len > 0) else { return Ok(0) };
    let mut buf = alloc::vec![0u8; (v.len as usize).min(CHUNK)];
    let n = loop {
        match r.read(&mut buf) {
            Ok(n) => break n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(from_io(&e)),
        }
    };
    let n = n.min(buf.len());
    guest.write(v.buf, &buf[..n])?;
    Ok(n as u32)
}
