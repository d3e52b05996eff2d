//! `$filestat` and `$filetype` from the host's metadata.
//!
//! Timestamps are nanoseconds since the Unix epoch (0 when the host has none); `dev`, `ino`
//! and `nlink` are the host's on Unix (wasmtime reports `dev` 1 and a hash of the two as
//! `ino`), and 0, 0 and 1 elsewhere.

use std::fs::{FileType, Metadata};
use std::time::{SystemTime, UNIX_EPOCH};

use crate::wasi::abi::{filetype, layout};

/// The `$filetype` of a host file type (a FIFO is `unknown`: preview 1 has no code for it).
pub(super) fn of(t: FileType) -> u8 {
    if t.is_symlink() {
        return filetype::SYMBOLIC_LINK;
    }
    if t.is_dir() {
        return filetype::DIRECTORY;
    }
    if t.is_file() {
        return filetype::REGULAR_FILE;
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if t.is_block_device() {
            return filetype::BLOCK_DEVICE;
        }
        if t.is_char_device() {
            return filetype::CHARACTER_DEVICE;
        }
        if t.is_socket() {
            return filetype::SOCKET_STREAM;
        }
    }
    filetype::UNKNOWN
}

/// Nanoseconds since the Unix epoch, 0 for none or before it, saturated at `u64::MAX`.
fn ns(t: std::io::Result<SystemTime>) -> u64 {
    match t.ok().and_then(|t| t.duration_since(UNIX_EPOCH).ok()) {
        Some(d) => u64::try_from(d.as_nanos()).unwrap_or(u64::MAX),
        None => 0,
    }
}

/// The `(dev, ino, nlink, ctim)` of `m`.
#[cfg(unix)]
fn unix_fields(m: &Metadata) -> (u64, u64, u64, u64) {
    use std::os::unix::fs::MetadataExt;
    let ctim = u64::try_from(m.ctime())
        .ok()
        .and_then(|s| s.checked_mul(1_000_000_000))
        .and_then(|s| s.checked_add(u64::try_from(m.ctime_nsec()).unwrap_or(0)))
        .unwrap_or(0);
    (m.dev(), m.ino(), m.nlink(), ctim)
}

#[cfg(not(unix))]
fn unix_fields(_m: &Metadata) -> (u64, u64, u64, u64) {
    (0, 0, 1, 0)
}

/// The inode number of `m` (0 off Unix).
pub(super) fn ino(m: &Metadata) -> u64 {
    unix_fields(m).1
}

/// The 64-byte `$filestat` of `m`.
pub(super) fn filestat(m: &Metadata) -> [u8; layout::FILESTAT_SIZE] {
    let (dev, ino, nlink, ctim) = unix_fields(m);
    let mut b = [0u8; layout::FILESTAT_SIZE];
    b[0..8].copy_from_slice(&dev.to_le_bytes());
    b[8..16].copy_from_slice(&ino.to_le_bytes());
    b[16] = of(m.file_type());
    b[24..32].copy_from_slice(&nlink.to_le_bytes());
    b[32..40].copy_from_slice(&m.len().to_le_bytes());
    b[40..48].copy_from_slice(&ns(m.accessed()).to_le_bytes());
    b[48..56].copy_from_slice(&ns(m.modified()).to_le_bytes());
    b[56..64].copy_from_slice(&ctim.to_le_bytes());
    b
}

/// A `$filestat` with only a file type (stdio's, as wasmtime reports it: all else 0).
pub(super) fn filestat_of_type(t: u8) -> [u8; layout::FILESTAT_SIZE] {
    let mut b = [0u8; layout::FILESTAT_SIZE];
    b[16] = t;
    b
}
