//! The numbers and layouts of `wasi_snapshot_preview1`, as the frozen witx defines them
//! (`legacy/preview1/witx/typenames.witx` in the WebAssembly/WASI repository; the same files
//! ship in wasmtime-wasi as `witx/p1/`).
//!
//! Enumerations count from 0 in the order the witx lists their cases; flags are bit `n` for
//! the `n`-th case. Records are laid out as C structs with natural alignment (the witx's
//! "canonical ABI" for preview 1): every field at the next multiple of its own size, the
//! record's size a multiple of its largest field. The offsets below are derived that way and
//! checked by the tests against the same rule written out by hand.

/// An error code of the witx's `$errno` (`(enum (@witx tag u16) ...)`): 0 is success, the
/// others in the witx's order. A call returns it as its `i32` result.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Errno(pub u16);

impl Errno {
    /// `$success` (0).
    pub const SUCCESS: Errno = Errno(0);
    /// `$2big` (1): argument list too long.
    pub const TOOBIG: Errno = Errno(1);
    /// `$acces` (2): permission denied.
    pub const ACCES: Errno = Errno(2);
    /// `$again` (6): resource unavailable, or operation would block.
    pub const AGAIN: Errno = Errno(6);
    /// `$already` (7): connection already in progress.
    pub const ALREADY: Errno = Errno(7);
    /// `$badf` (8): bad file descriptor.
    pub const BADF: Errno = Errno(8);
    /// `$busy` (10): device or resource busy.
    pub const BUSY: Errno = Errno(10);
    /// `$deadlk` (16): resource deadlock would occur.
    pub const DEADLK: Errno = Errno(16);
    /// `$dquot` (19): reserved (disk quota).
    pub const DQUOT: Errno = Errno(19);
    /// `$exist` (20): file exists.
    pub const EXIST: Errno = Errno(20);
    /// `$fault` (21): bad address (a pointer or length outside the guest's memory).
    pub const FAULT: Errno = Errno(21);
    /// `$fbig` (22): file too large.
    pub const FBIG: Errno = Errno(22);
    /// `$ilseq` (25): illegal byte sequence (a path that is not UTF-8).
    pub const ILSEQ: Errno = Errno(25);
    /// `$inprogress` (26): operation in progress.
    pub const INPROGRESS: Errno = Errno(26);
    /// `$intr` (27): interrupted function.
    pub const INTR: Errno = Errno(27);
    /// `$inval` (28): invalid argument.
    pub const INVAL: Errno = Errno(28);
    /// `$io` (29): I/O error.
    pub const IO: Errno = Errno(29);
    /// `$isdir` (31): is a directory.
    pub const ISDIR: Errno = Errno(31);
    /// `$loop` (32): too many levels of symbolic links.
    pub const LOOP: Errno = Errno(32);
    /// `$mfile` (33): file descriptor value too large (too many open descriptors).
    pub const MFILE: Errno = Errno(33);
    /// `$mlink` (34): too many links.
    pub const MLINK: Errno = Errno(34);
    /// `$nametoolong` (37): filename too long.
    pub const NAMETOOLONG: Errno = Errno(37);
    /// `$nfile` (41): too many files open in system.
    pub const NFILE: Errno = Errno(41);
    /// `$nodev` (43): no such device.
    pub const NODEV: Errno = Errno(43);
    /// `$noent` (44): no such file or directory.
    pub const NOENT: Errno = Errno(44);
    /// `$nolck` (46): no locks available.
    pub const NOLCK: Errno = Errno(46);
    /// `$nomem` (48): not enough space.
    pub const NOMEM: Errno = Errno(48);
    /// `$nospc` (51): no space left on device.
    pub const NOSPC: Errno = Errno(51);
    /// `$nosys` (52): function not supported.
    pub const NOSYS: Errno = Errno(52);
    /// `$notdir` (54): not a directory or a symbolic link to a directory.
    pub const NOTDIR: Errno = Errno(54);
    /// `$notempty` (55): directory not empty.
    pub const NOTEMPTY: Errno = Errno(55);
    /// `$notsock` (57): not a socket.
    pub const NOTSOCK: Errno = Errno(57);
    /// `$notsup` (58): not supported.
    pub const NOTSUP: Errno = Errno(58);
    /// `$notty` (59): inappropriate I/O control operation.
    pub const NOTTY: Errno = Errno(59);
    /// `$nxio` (60): no such device or address.
    pub const NXIO: Errno = Errno(60);
    /// `$overflow` (61): value too large to be stored in data type.
    pub const OVERFLOW: Errno = Errno(61);
    /// `$perm` (63): operation not permitted (wasmtime's answer to a path that leads out of
    /// its directory, and ours).
    pub const PERM: Errno = Errno(63);
    /// `$pipe` (64): broken pipe.
    pub const PIPE: Errno = Errno(64);
    /// `$rofs` (69): read-only file system.
    pub const ROFS: Errno = Errno(69);
    /// `$spipe` (70): invalid seek.
    pub const SPIPE: Errno = Errno(70);
    /// `$stale` (72): reserved (stale file handle).
    pub const STALE: Errno = Errno(72);
    /// `$timedout` (73): connection timed out.
    pub const TIMEDOUT: Errno = Errno(73);
    /// `$txtbsy` (74): text file busy.
    pub const TXTBSY: Errno = Errno(74);
    /// `$xdev` (75): cross-device link.
    pub const XDEV: Errno = Errno(75);
    /// `$notcapable` (76): extension, capabilities insufficient.
    pub const NOTCAPABLE: Errno = Errno(76);
}

/// `$clockid` (`u32`): the four clocks.
pub mod clock {
    /// `$realtime`: time since 1970-01-01T00:00:00Z.
    pub const REALTIME: u32 = 0;
    /// `$monotonic`: a clock that never goes back.
    pub const MONOTONIC: u32 = 1;
    /// `$process_cputime_id`: the process's CPU time.
    pub const PROCESS_CPUTIME: u32 = 2;
    /// `$thread_cputime_id`: the thread's CPU time.
    pub const THREAD_CPUTIME: u32 = 3;
}

/// `$rights` (`u64` flags): what a descriptor may be used for, bit `n` for the witx's `n`-th
/// right.
pub mod rights {
    /// `fd_datasync`.
    pub const FD_DATASYNC: u64 = 1 << 0;
    /// `fd_read` (and `sock_recv`).
    pub const FD_READ: u64 = 1 << 1;
    /// `fd_seek`.
    pub const FD_SEEK: u64 = 1 << 2;
    /// `fd_fdstat_set_flags`.
    pub const FD_FDSTAT_SET_FLAGS: u64 = 1 << 3;
    /// `fd_sync`.
    pub const FD_SYNC: u64 = 1 << 4;
    /// `fd_tell`.
    pub const FD_TELL: u64 = 1 << 5;
    /// `fd_write` (and `sock_send`).
    pub const FD_WRITE: u64 = 1 << 6;
    /// `fd_advise`.
    pub const FD_ADVISE: u64 = 1 << 7;
    /// `fd_allocate`.
    pub const FD_ALLOCATE: u64 = 1 << 8;
    /// `path_create_directory`.
    pub const PATH_CREATE_DIRECTORY: u64 = 1 << 9;
    /// `path_open` with `oflags::creat`.
    pub const PATH_CREATE_FILE: u64 = 1 << 10;
    /// `path_link` from this directory.
    pub const PATH_LINK_SOURCE: u64 = 1 << 11;
    /// `path_link` into this directory.
    pub const PATH_LINK_TARGET: u64 = 1 << 12;
    /// `path_open`.
    pub const PATH_OPEN: u64 = 1 << 13;
    /// `fd_readdir`.
    pub const FD_READDIR: u64 = 1 << 14;
    /// `path_readlink`.
    pub const PATH_READLINK: u64 = 1 << 15;
    /// `path_rename` from this directory.
    pub const PATH_RENAME_SOURCE: u64 = 1 << 16;
    /// `path_rename` into this directory.
    pub const PATH_RENAME_TARGET: u64 = 1 << 17;
    /// `path_filestat_get`.
    pub const PATH_FILESTAT_GET: u64 = 1 << 18;
    /// Changing a file's size through a path (`path_open` with `oflags::trunc`).
    pub const PATH_FILESTAT_SET_SIZE: u64 = 1 << 19;
    /// `path_filestat_set_times`.
    pub const PATH_FILESTAT_SET_TIMES: u64 = 1 << 20;
    /// `fd_filestat_get`.
    pub const FD_FILESTAT_GET: u64 = 1 << 21;
    /// `fd_filestat_set_size`.
    pub const FD_FILESTAT_SET_SIZE: u64 = 1 << 22;
    /// `fd_filestat_set_times`.
    pub const FD_FILESTAT_SET_TIMES: u64 = 1 << 23;
    /// `path_symlink`.
    pub const PATH_SYMLINK: u64 = 1 << 24;
    /// `path_remove_directory`.
    pub const PATH_REMOVE_DIRECTORY: u64 = 1 << 25;
    /// `path_unlink_file`.
    pub const PATH_UNLINK_FILE: u64 = 1 << 26;
    /// `poll_oneoff` on this descriptor.
    pub const POLL_FD_READWRITE: u64 = 1 << 27;
    /// `sock_shutdown`.
    pub const SOCK_SHUTDOWN: u64 = 1 << 28;
    /// `sock_accept`.
    pub const SOCK_ACCEPT: u64 = 1 << 29;
    /// Every right the witx defines (30 bits).
    pub const ALL: u64 = (1 << 30) - 1;
}

/// `$filetype` (`u8`).
pub mod filetype {
    /// `$unknown` (also a pipe, which preview 1 has no code for, and stdio that is not a
    /// terminal, as wasmtime reports it).
    pub const UNKNOWN: u8 = 0;
    /// `$block_device`.
    pub const BLOCK_DEVICE: u8 = 1;
    /// `$character_device` (a terminal).
    pub const CHARACTER_DEVICE: u8 = 2;
    /// `$directory`.
    pub const DIRECTORY: u8 = 3;
    /// `$regular_file`.
    pub const REGULAR_FILE: u8 = 4;
    /// `$socket_dgram`.
    pub const SOCKET_DGRAM: u8 = 5;
    /// `$socket_stream`.
    pub const SOCKET_STREAM: u8 = 6;
    /// `$symbolic_link`.
    pub const SYMBOLIC_LINK: u8 = 7;
}

/// `$fdflags` (`u16` flags).
pub mod fdflags {
    /// `$append`: every write goes to the end of the file.
    pub const APPEND: u16 = 1 << 0;
    /// `$dsync`.
    pub const DSYNC: u16 = 1 << 1;
    /// `$nonblock`.
    pub const NONBLOCK: u16 = 1 << 2;
    /// `$rsync`.
    pub const RSYNC: u16 = 1 << 3;
    /// `$sync`.
    pub const SYNC: u16 = 1 << 4;
    /// Every flag the witx defines.
    pub const ALL: u16 = (1 << 5) - 1;
}

/// `$oflags` (`u16` flags) of `path_open`.
pub mod oflags {
    /// `$creat`: create the file if it does not exist.
    pub const CREAT: u16 = 1 << 0;
    /// `$directory`: fail if not a directory.
    pub const DIRECTORY: u16 = 1 << 1;
    /// `$excl`: fail if the file exists.
    pub const EXCL: u16 = 1 << 2;
    /// `$trunc`: truncate to size 0.
    pub const TRUNC: u16 = 1 << 3;
    /// Every flag the witx defines.
    pub const ALL: u16 = (1 << 4) - 1;
}

/// `$lookupflags` (`u32` flags).
pub mod lookupflags {
    /// `$symlink_follow`: a symbolic link at the end of the path is followed.
    pub const SYMLINK_FOLLOW: u32 = 1 << 0;
}

/// `$fstflags` (`u16` flags) of the `*_set_times` calls.
pub mod fstflags {
    /// `$atim`: set the access time to the value given.
    pub const ATIM: u16 = 1 << 0;
    /// `$atim_now`: set the access time to the realtime clock's now.
    pub const ATIM_NOW: u16 = 1 << 1;
    /// `$mtim`: set the modification time to the value given.
    pub const MTIM: u16 = 1 << 2;
    /// `$mtim_now`: set the modification time to the realtime clock's now.
    pub const MTIM_NOW: u16 = 1 << 3;
    /// Every flag the witx defines.
    pub const ALL: u16 = (1 << 4) - 1;
}

/// `$whence` (`u8`) of `fd_seek`.
pub mod whence {
    /// `$set`: from the start of the file.
    pub const SET: u32 = 0;
    /// `$cur`: from the current offset.
    pub const CUR: u32 = 1;
    /// `$end`: from the end of the file.
    pub const END: u32 = 2;
}

/// `$eventtype` (`u8`) of `poll_oneoff`.
pub mod eventtype {
    /// `$clock`.
    pub const CLOCK: u8 = 0;
    /// `$fd_read`.
    pub const FD_READ: u8 = 1;
    /// `$fd_write`.
    pub const FD_WRITE: u8 = 2;
}

/// `$subclockflags` (`u16`): `$subscription_clock_abstime`, the timeout is an absolute time
/// of the subscription's clock.
pub const SUBSCRIPTION_CLOCK_ABSTIME: u16 = 1 << 0;

/// `$eventrwflags` (`u16`): `$fd_readwrite_hangup`, the peer has closed (nothing left to
/// read).
pub const FD_READWRITE_HANGUP: u16 = 1 << 0;

/// The largest `$advice` (`$noreuse`, 5).
pub const ADVICE_MAX: u32 = 5;
/// The largest `$signal` (`$sys`, 30).
pub const SIGNAL_MAX: u32 = 30;
/// Every `$riflags` bit (`$recv_peek`, `$recv_waitall`).
pub const RIFLAGS_ALL: u32 = 0b11;
/// Every `$sdflags` bit (`$rd`, `$wr`).
pub const SDFLAGS_ALL: u32 = 0b11;

/// Record layouts: sizes and field offsets in bytes (C layout, natural alignment).
pub mod layout {
    /// `$iovec` / `$ciovec`: `buf` (pointer, u32) at 0, `buf_len` (u32) at 4.
    pub const IOVEC_SIZE: u32 = 8;
    /// `$fdstat`: `fs_filetype` (u8) at 0, `fs_flags` (u16) at 2, `fs_rights_base` (u64)
    /// at 8, `fs_rights_inheriting` (u64) at 16.
    pub const FDSTAT_SIZE: usize = 24;
    /// `$filestat`: `dev` at 0, `ino` at 8, `filetype` (u8) at 16, `nlink` at 24, `size` at
    /// 32, `atim` at 40, `mtim` at 48, `ctim` at 56 (all u64 but `filetype`).
    pub const FILESTAT_SIZE: usize = 64;
    /// `$prestat`: the tag (u8, `$dir` = 0) at 0, `pr_name_len` (u32) at 4.
    pub const PRESTAT_SIZE: usize = 8;
    /// `$dirent`: `d_next` (u64) at 0, `d_ino` (u64) at 8, `d_namlen` (u32) at 16, `d_type`
    /// (u8) at 20; 24 bytes, the name follows.
    pub const DIRENT_SIZE: usize = 24;
    /// `$subscription`: `userdata` (u64) at 0, the union's tag (u8) at 8, its payload at 16:
    /// for a clock `id` (u32) at 16, `timeout` (u64) at 24, `precision` (u64) at 32, `flags`
    /// (u16) at 40; for an fd, `file_descriptor` (u32) at 16.
    pub const SUBSCRIPTION_SIZE: u32 = 48;
    /// `$event`: `userdata` (u64) at 0, `error` (u16) at 8, `type` (u8) at 10, `nbytes`
    /// (u64) at 16, `flags` (u16) at 24.
    pub const EVENT_SIZE: u32 = 32;
}
