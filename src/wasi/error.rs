//! The errors of setting up and linking the WASI host. The guest's own failures are not
//! errors here: they are [`Errno`](super::abi::Errno) values the calls return to it.

use alloc::string::String;
use core::fmt;
use std::path::PathBuf;

use crate::wasm::FuncType;

/// A preopened directory that [`Wasi::new`](super::Wasi::new) could not open.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SetupError {
    /// The directory as the host named it ([`Preopen::host`](super::Preopen::host)).
    pub host: PathBuf,
    /// The name the guest was to see it under ([`Preopen::guest`](super::Preopen::guest)).
    pub guest: String,
    /// Why it could not be opened.
    pub kind: SetupErrorKind,
}

/// The cause of a [`SetupError`].
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum SetupErrorKind {
    /// The operating system refused to resolve it: the error's kind, and its raw code when
    /// the OS gave one (rendered with the OS's own message).
    Os {
        /// `std::io::Error::kind`.
        kind: std::io::ErrorKind,
        /// `std::io::Error::raw_os_error`.
        code: Option<i32>,
    },
    /// It exists but is not a directory.
    NotADirectory,
    /// More preopened directories than descriptors ([`MAX_DESCRIPTORS`](super::MAX_DESCRIPTORS)
    /// minus the three of stdio).
    TooMany {
        /// Directories given.
        count: usize,
    },
}

impl SetupError {
    #[cold]
    pub(super) fn os(host: PathBuf, guest: String, e: &std::io::Error) -> SetupError {
        SetupError { host, guest, kind: SetupErrorKind::Os { kind: e.kind(), code: e.raw_os_error() } }
    }
}

impl fmt::Display for SetupError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "cannot preopen directory {} (as {:?}): ", self.host.display(), self.guest)?;
        match &self.kind {
            SetupErrorKind::Os { code: Some(code), .. } => {
                write!(f, "{}", std::io::Error::from_raw_os_error(*code))
            }
            SetupErrorKind::Os { kind, code: None } => write!(f, "{kind}"),
            SetupErrorKind::NotADirectory => f.write_str("not a directory"),
            SetupErrorKind::TooMany { count } => write!(
                f,
                "{count} directories are more than the {} descriptors a guest may hold",
                super::MAX_DESCRIPTORS - 3
            ),
        }
    }
}

impl std::error::Error for SetupError {}

/// Why [`Wasi::link`](super::Wasi::link) gave no function for an import of
/// `wasi_snapshot_preview1` (or [`Wasi::link_thread_spawn`](super::Wasi::link_thread_spawn) for
/// one of `wasi`).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum LinkError {
    /// The name is not one of the 46 functions of preview 1.
    Unknown,
    /// The name is not `thread-spawn`, the one function of wasi-threads' module `wasi`.
    UnknownThreads,
    /// The import declares another type than the witx gives the function.
    Type {
        /// The type the witx gives it, in core WebAssembly types
        /// ([`Wasi::signature`](super::Wasi::signature)); `(i32) -> i32` for `thread-spawn`.
        expected: FuncType,
    },
}

impl fmt::Display for LinkError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LinkError::Unknown => write!(f, "not a function of {}", super::MODULE),
            LinkError::UnknownThreads => {
                write!(f, "not {}, the one function of {}", super::THREAD_SPAWN, super::THREADS_MODULE)
            }
            LinkError::Type { expected } => {
                write!(f, "declared with another type than the witx's {expected}")
            }
        }
    }
}

impl std::error::Error for LinkError {}
