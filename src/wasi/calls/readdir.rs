//! `fd_readdir(fd, buf, buf_len, cookie, → bufused)`: a directory's entries as `$dirent`
//! records, each followed by its name (no NUL).
//!
//! The entries are `.` and `..` (both with the directory's own inode number and type
//! directory, as wasmtime gives them), then the directory's entries sorted by name, byte by
//! byte (the OS's order is not deterministic; wasmtime passes it through). Entry `i` (from 0)
//! has `d_next = i + 1`, and a cookie `c` starts the listing at entry `c`. `d_type` is the
//! entry's own type (a symbolic link is not followed); `d_ino` its inode number on Unix, 0
//! elsewhere.
//!
//! The records fill the buffer in order and the last one is cut where the buffer ends, as the
//! witx describes: `bufused == buf_len` tells the program to call again, with a larger buffer
//! or the last whole entry's `d_next`. A name that is not UTF-8 is [`Errno::ILSEQ`] for the
//! whole call (wasmtime's rule).

use alloc::string::String;
use alloc::vec::Vec;

use super::{Args, Ret, stat};
use crate::wasi::abi::{Errno, filetype, layout};
use crate::wasi::errno::from_io;
use crate::wasi::guest::Guest;
use crate::wasi::{State, path};

/// One entry: name, inode number, type.
struct Entry {
    name: String,
    ino: u64,
    kind: u8,
}

pub(super) fn fd_readdir(st: &mut State, guest: &mut Guest<'_, '_>, args: Args<'_>) -> Ret {
    let (buf, buf_len, cookie, out) = (args.u32(1), args.u32(2), args.u64(3), args.u32(4));
    let dir = st.fds.dir(args.u32(0))?;
    guest.check(buf, u64::from(buf_len))?;
    guest.check(out, 4)?;
    let host = path::verify(dir)?;
    let dir_ino = stat::ino(&std::fs::symlink_metadata(&host).map_err(|e| from_io(&e))?);
    let mut entries = Vec::new();
    for e in std::fs::read_dir(&host).map_err(|e| from_io(&e))? {
        let e = e.map_err(|e| from_io(&e))?;
        let name = e.file_name().into_string().map_err(|_| Errno::ILSEQ)?;
        let meta = e.metadata().map_err(|e| from_io(&e))?;
        entries.push(Entry { name, ino: stat::ino(&meta), kind: stat::of(meta.file_type()) });
    }
    entries.sort_unstable_by(|a, b| a.name.as_bytes().cmp(b.name.as_bytes()));
    let dots = [String::from("."), String::from("..")].into_iter().map(|name| Entry {
        name,
        ino: dir_ino,
        kind: filetype::DIRECTORY,
    });
    let cap = buf_len as usize;
    let mut bytes = Vec::new();
    for (i, e) in dots.chain(entries).enumerate().skip(usize::try_from(cookie).unwrap_or(usize::MAX)) {
        let mut d = [0u8; layout::DIRENT_SIZE];
        d[0..8].copy_from_slice(&(i as u64 + 1).to_le_bytes());
        d[8..16].copy_from_slice(&e.ino.to_le_bytes());
        d[16..20].copy_from_slice(&(e.name.len() as u32).to_le_bytes());
        d[20] = e.kind;
        bytes.extend_from_slice(&d);
        bytes.extend_from_slice(e.name.as_bytes());
        if bytes.len() >= cap {
            bytes.truncate(cap);
            break;
        }
    }
    guest.write(buf, &bytes)?;
    guest.write_u32(out, bytes.len() as u32)?;
    Ok(())
}
