//! The WASI error code of an operating-system error, as wasmtime derives it
//! (`crates/wasi/src/filesystem.rs`, `From<&std::io::Error> for ErrorCode`, then
//! `crates/wasi/src/p1.rs`, `From<ErrorCode> for Errno`): the raw OS code where the platform's
//! numbers are known, else the error's `std::io::ErrorKind`, else [`Errno::IO`].
//!
//! Raw codes are read on Linux with the generic numbering (`asm-generic/errno-base.h` and
//! `errno.h`, used by x86, Arm, RISC-V, PowerPC, s390x and LoongArch) and on WASI, whose
//! C library defines each `E*` as the WASI code itself (wasi-libc, `__WASI_ERRNO_*`).

use super::abi::Errno;

/// The WASI error code for `e`.
pub(super) fn from_io(e: &std::io::Error) -> Errno {
    if let Some(code) = e.raw_os_error()
        && let Some(errno) = from_raw(code)
    {
        return errno;
    }
    from_kind(e.kind())
}

#[cfg(all(
    target_os = "linux",
    any(
        target_arch = "x86_64",
        target_arch = "x86",
        target_arch = "aarch64",
        target_arch = "arm",
        target_arch = "riscv64",
        target_arch = "riscv32",
        target_arch = "powerpc64",
        target_arch = "s390x",
        target_arch = "loongarch64"
    )
))]
fn from_raw(code: i32) -> Option<Errno> {
    // Linux's generic numbers → WASI's.
    Some(match code {
        1 => Errno::PERM,
        2 => Errno::NOENT,
        4 => Errno::INTR,
        5 => Errno::IO,
        6 => Errno::NXIO,
        7 => Errno::TOOBIG,
        9 => Errno::BADF,
        11 => Errno::AGAIN,
        12 => Errno::NOMEM,
        13 => Errno::ACCES,
        14 => Errno::FAULT,
        16 => Errno::BUSY,
        17 => Errno::EXIST,
        18 => Errno::XDEV,
        19 => Errno::NODEV,
        20 => Errno::NOTDIR,
        21 => Errno::ISDIR,
        22 => Errno::INVAL,
        23 => Errno::NFILE,
        24 => Errno::MFILE,
        25 => Errno::NOTTY,
        26 => Errno::TXTBSY,
        27 => Errno::FBIG,
        28 => Errno::NOSPC,
        29 => Errno::SPIPE,
        30 => Errno::ROFS,
        31 => Errno::MLINK,
        32 => Errno::PIPE,
        35 => Errno::DEADLK,
        36 => Errno::NAMETOOLONG,
        37 => Errno::NOLCK,
        38 => Errno::NOSYS,
        39 => Errno::NOTEMPTY,
        40 => Errno::LOOP,
        75 => Errno::OVERFLOW,
        84 => Errno::ILSEQ,
        88 => Errno::NOTSOCK,
        95 => Errno::NOTSUP,
        110 => Errno::TIMEDOUT,
        114 => Errno::ALREADY,
        115 => Errno::INPROGRESS,
        116 => Errno::STALE,
        122 => Errno::DQUOT,
        _ => return None,
    })
}

#[cfg(target_os = "wasi")]
fn from_raw(code: i32) -> Option<Errno> {
    // wasi-libc's errno values are the WASI codes.
    u16::try_from(code).ok().filter(|&c| (1..=76).contains(&c)).map(Errno)
}

#[cfg(not(any(
    target_os = "wasi",
    all(
        target_os = "linux",
        any(
            target_arch = "x86_64",
            target_arch = "x86",
            target_arch = "aarch64",
            target_arch = "arm",
            target_arch = "riscv64",
            target_arch = "riscv32",
            target_arch = "powerpc64",
            target_arch = "s390x",
            target_arch = "loongarch64"
        )
    )
)))]
fn from_raw(_code: i32) -> Option<Errno> {
    None
}

/// The code for an error known only by its kind (std's own errors, and other platforms).
fn from_kind(kind: std::io::ErrorKind) -> Errno {
    use std::io::ErrorKind as K;
    match kind {
        K::NotFound => Errno::NOENT,
        // wasmtime: a permission error without an OS code is `NotPermitted`.
        K::PermissionDenied => Errno::PERM,
        K::AlreadyExists => Errno::EXIST,
        K::InvalidInput => Errno::INVAL,
        K::NotADirectory => Errno::NOTDIR,
        K::IsADirectory => Errno::ISDIR,
        K::DirectoryNotEmpty => Errno::NOTEMPTY,
        K::ReadOnlyFilesystem => Errno::ROFS,
        K::StorageFull => Errno::NOSPC,
        K::NotSeekable => Errno::SPIPE,
        K::FileTooLarge => Errno::FBIG,
        K::ResourceBusy => Errno::BUSY,
        K::ExecutableFileBusy => Errno::TXTBSY,
        K::Deadlock => Errno::DEADLK,
        K::CrossesDevices => Errno::XDEV,
        K::TooManyLinks => Errno::MLINK,
        K::InvalidFilename => Errno::NAMETOOLONG,
        K::ArgumentListTooLong => Errno::TOOBIG,
        K::Interrupted => Errno::INTR,
        K::Unsupported => Errno::NOTSUP,
        K::OutOfMemory => Errno::NOMEM,
        K::BrokenPipe => Errno::PIPE,
        K::WouldBlock => Errno::AGAIN,
        K::QuotaExceeded => Errno::DQUOT,
        K::StaleNetworkFileHandle => Errno::STALE,
        K::TimedOut => Errno::TIMEDOUT,
        _ => Errno::IO,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_without_os_codes() {
        let e = |k| from_io(&std::io::Error::from(k));
        assert_eq!(e(std::io::ErrorKind::NotFound), Errno(44));
        assert_eq!(e(std::io::ErrorKind::PermissionDenied), Errno(63));
        assert_eq!(e(std::io::ErrorKind::AlreadyExists), Errno(20));
        assert_eq!(e(std::io::ErrorKind::Other), Errno(29));
    }

    #[test]
    #[cfg(all(target_os = "linux", target_arch = "x86_64"))]
    fn linux_codes() {
        // ENOENT 2, EACCES 13, ENOTEMPTY 39, ELOOP 40 (asm-generic/errno*.h) → WASI 44, 2, 55, 32.
        let e = |c| from_io(&std::io::Error::from_raw_os_error(c));
        assert_eq!(e(2), Errno(44));
        assert_eq!(e(13), Errno(2));
        assert_eq!(e(39), Errno(55));
        assert_eq!(e(40), Errno(32));
        // An unlisted code falls back to its kind: 105 (ENOBUFS) is `Other`-like → EIO.
        assert_eq!(e(105), Errno(29));
    }
}
