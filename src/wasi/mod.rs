//! WASI preview 1 (`wasi_snapshot_preview1`) for the interpreter: host functions for the 46
//! functions of the frozen witx (`legacy/preview1/witx/wasi_snapshot_preview1.witx` and
//! `typenames.witx` in the WebAssembly/WASI repository), over `std::fs` and this module's own
//! path resolution (docs/wasi.md).
//!
//! * Input: a [`Config`] (arguments, environment, preopened directories, stdio, a seed) and,
//!   per import of a module, [`Wasi::link`] gives the host function to pass to
//!   [`Store::instantiate`](crate::wasm::Store::instantiate).
//! * Output: the guest's effects (files in its directories, bytes on its streams), the exit
//!   code ([`Wasi::exit_code`]) and the guest memory the calls touched ([`Wasi::io_ranges`]).
//!
//! The rules, each documented where it is kept:
//!
//! * Determinism (`calls/time.rs`, `rng.rs`): the clocks count the
//!   run's instructions, one nanosecond each, plus the time slept in `poll_oneoff`; the
//!   realtime clock starts at [`EPOCH_NS`]; `random_get` is SplitMix64 from
//!   [`Config::seed`]. The environment is [`Config::env`] alone.
//! * Memory (`guest.rs`): every guest byte a call reads or writes goes through
//!   [`Caller::read`](crate::wasm::Caller::read) and
//!   [`Caller::write`](crate::wasm::Caller::write), so observers see it; a range outside
//!   memory is `EFAULT`.
//! * Sandbox (`path.rs`): paths resolve inside the descriptor's directory, component by
//!   component; a way out is `EPERM`, as in wasmtime.
//! * Behaviour where the witx is silent: wasmtime's preview-1 host (`crates/wasi/src/p1.rs`),
//!   and where we differ from it, docs/wasi.md says so.
//!
//! wasmtime's older `wasi-common` crate was not used: its last release is 46.0.3, it was
//! retired from wasmtime, and its memory access (wiggle's) hands the host a plain slice, so
//! the bytes it reads and writes could not be observed.

pub mod abi;
mod calls;
mod errno;
mod error;
mod fds;
mod guest;
mod path;
mod ranges;
mod rng;
mod stdio;
#[cfg(test)]
mod tests;

use alloc::rc::Rc;
use alloc::string::String;
use alloc::vec::Vec;
use core::cell::RefCell;
use core::fmt;
use std::path::PathBuf;

pub use error::{LinkError, SetupError, SetupErrorKind};
pub use fds::MAX_DESCRIPTORS;
pub use guest::{CHUNK, IOV_MAX, PATH_MAX};
pub use path::MAX_SYMLINK_HOPS;
pub use ranges::IO_RANGES_CAP;

use crate::wasm::{Func, FuncType, Store, ValType, Value};
use fds::{Desc, DirFd, Fds};
use guest::Guest;
use ranges::IoRanges;
use rng::SplitMix64;

/// The import module name of every preview-1 function.
pub const MODULE: &str = "wasi_snapshot_preview1";

/// The import module name of wasi-threads (<https://github.com/WebAssembly/wasi-threads>),
/// whose one function is [`THREAD_SPAWN`].
pub const THREADS_MODULE: &str = "wasi";

/// wasi-threads' function, `wasi.thread-spawn` of type `(i32) -> i32`: it would start
/// `wasi_thread_start(tid, arg)` in a new instance sharing the memory and return the new
/// thread's id, or a negative error code. The interpreter runs one thread
/// (docs/interpreter.md, "Threads"), so it spawns none: [`Wasi::link_thread_spawn`].
pub const THREAD_SPAWN: &str = "thread-spawn";

/// What `thread-spawn` returns: −6, the negative of preview 1's `errno::again` ("resource
/// unavailable, try again"). wasi-libc's `pthread_create` turns any negative result into
/// `EAGAIN`, which POSIX gives for "the system lacked the necessary resources to create
/// another thread", so a program that can go on without the thread does.
pub const THREAD_SPAWN_ERROR: i32 = -(abi::Errno::AGAIN.0 as i32);

/// Where the realtime clock starts: 2024-01-01T00:00:00Z, in nanoseconds since the Unix epoch
/// (1,704,067,200 s = 19,723 days × 86,400 s). `clock_time_get(realtime)` returns this plus
/// the run's nanoseconds (docs/wasi.md, "Determinism").
pub const EPOCH_NS: u64 = 1_704_067_200_000_000_000;

/// The most subscriptions one `poll_oneoff` accepts: more is `EINVAL`, as `poll` answers for
/// more descriptors than it may watch.
pub const MAX_SUBSCRIPTIONS: u32 = 4096;

/// What a WASI guest gets.
#[derive(Debug, Default)]
pub struct Config {
    /// `argv`, `argv[0]` included (the front end puts the program's file name there); bytes,
    /// each passed to the guest NUL-terminated.
    pub args: Vec<Vec<u8>>,
    /// The environment, `(name, value)` pairs: the guest sees these and nothing else, as
    /// `name=value`.
    pub env: Vec<(Vec<u8>, Vec<u8>)>,
    /// Preopened directories, descriptors 3, 4, … in this order.
    pub dirs: Vec<Preopen>,
    /// Descriptor 0.
    pub stdin: Stdin,
    /// Descriptor 1.
    pub stdout: Output,
    /// Descriptor 2.
    pub stderr: Output,
    /// The seed of `random_get`'s generator (SplitMix64).
    pub seed: u64,
}

/// A directory the guest may use, wasmtime's `--dir HOST::GUEST`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Preopen {
    /// The host directory.
    pub host: PathBuf,
    /// The name the guest sees (`fd_prestat_dir_name`); programs built with wasi-libc match
    /// their paths against it (`.` or `/data`, say).
    pub guest: String,
}

/// Descriptor 0's source. Read only when the guest reads it.
#[derive(Default)]
pub enum Stdin {
    /// At its end from the start: `fd_read` returns 0.
    #[default]
    Empty,
    /// These bytes, then the end.
    Bytes(Vec<u8>),
    /// Whatever this reader gives (`fd_read` calls `read` once, which may block).
    Reader(alloc::boxed::Box<dyn std::io::Read>),
    /// Our process's standard input, read as the guest reads (a terminal reports as a
    /// character device).
    Inherit,
}

impl fmt::Debug for Stdin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Stdin::Empty => f.write_str("Empty"),
            Stdin::Bytes(b) => write!(f, "Bytes({} bytes)", b.len()),
            Stdin::Reader(_) => f.write_str("Reader"),
            Stdin::Inherit => f.write_str("Inherit"),
        }
    }
}

/// Where descriptor 1 or 2 goes.
#[derive(Debug, Clone, Default)]
pub enum Output {
    /// Our process's standard output, written through (a flush per `fd_write`).
    Stdout,
    /// Our process's standard error, written through.
    Stderr,
    /// Appended to this buffer (tests, library users).
    Capture(Rc<RefCell<Vec<u8>>>),
    /// Dropped.
    #[default]
    Discard,
}

/// The host's state, shared by every host function linked from one [`Wasi`].
#[derive(Debug)]
pub(crate) struct State {
    args: Vec<Vec<u8>>,
    env: Vec<(Vec<u8>, Vec<u8>)>,
    fds: Fds,
    stdin: Stdin,
    /// Bytes of [`Stdin::Bytes`] already read.
    stdin_pos: usize,
    stdout: Output,
    stderr: Output,
    /// Nanoseconds slept in `poll_oneoff`, added to every clock.
    slept_ns: u64,
    rng: SplitMix64,
    exit_code: Option<u32>,
}

impl State {
    /// The monotonic clock's reading, in nanoseconds: one per instruction run so far, plus
    /// the time slept.
    fn now_ns(&self, guest: &Guest<'_, '_>) -> u64 {
        guest.instructions().saturating_add(self.slept_ns)
    }
}

#[derive(Debug)]
struct Shared {
    state: State,
    io: IoRanges,
}

/// A WASI preview-1 host for one run: the state its host functions share.
#[derive(Debug, Clone)]
pub struct Wasi {
    shared: Rc<RefCell<Shared>>,
}

impl Wasi {
    /// Opens the preopened directories (resolving each to its canonical host path) and sets
    /// up the descriptors: 0–2 stdio, 3… the directories.
    ///
    /// # Errors
    /// A [`SetupError`] naming the first directory that does not exist, is not a directory or
    /// cannot be resolved, with the OS's reason.
    pub fn new(config: Config) -> Result<Wasi, SetupError> {
        if config.dirs.len() > MAX_DESCRIPTORS - 3 {
            let (host, guest) = (config.dirs[0].host.clone(), config.dirs[0].guest.clone());
            return Err(SetupError {
                host,
                guest,
                kind: SetupErrorKind::TooMany { count: config.dirs.len() },
            });
        }
        let mut fds = Fds::default();
        for d in [Desc::Stdin, Desc::Stdout, Desc::Stderr] {
            fds.push(d).map_err(|_| unreachable_setup())?;
        }
        for p in &config.dirs {
            let root = std::fs::canonicalize(&p.host)
                .map_err(|e| SetupError::os(p.host.clone(), p.guest.clone(), &e))?;
            let meta =
                std::fs::metadata(&root).map_err(|e| SetupError::os(p.host.clone(), p.guest.clone(), &e))?;
            if !meta.is_dir() {
                return Err(SetupError {
                    host: p.host.clone(),
                    guest: p.guest.clone(),
                    kind: SetupErrorKind::NotADirectory,
                });
            }
            let dir =
                DirFd { root: Rc::from(root.as_path()), rel: Vec::new(), preopen: Some(p.guest.clone()) };
            fds.push(Desc::Dir(dir)).map_err(|_| unreachable_setup())?;
        }
        let state = State {
            args: config.args,
            env: config.env,
            fds,
            stdin: config.stdin,
            stdin_pos: 0,
            stdout: config.stdout,
            stderr: config.stderr,
            slept_ns: 0,
            rng: SplitMix64::new(config.seed),
            exit_code: None,
        };
        Ok(Wasi { shared: Rc::new(RefCell::new(Shared { state, io: IoRanges::default() })) })
    }

    /// The witx signature of preview-1 function `name` in core WebAssembly types (every
    /// handle, size, pointer, enum and flag set an `i32`, every 64-bit value an `i64`, a
    /// string or array a pointer and a length, each result a pointer after the parameters, and
    /// the `$errno` an `i32` result; `proc_exit` returns nothing). `None` for an unknown name.
    pub fn signature(name: &str) -> Option<FuncType> {
        calls::spec(name).map(calls::Spec::func_type)
    }

    /// The names of the 46 functions of preview 1, in the witx's order.
    pub fn functions() -> impl Iterator<Item = &'static str> {
        calls::SPECS.iter().map(|s| s.name)
    }

    /// A host function for the import `wasi_snapshot_preview1.NAME` declared with type `ty`,
    /// added to `store`. Every function linked from one `Wasi` shares its state.
    ///
    /// # Errors
    /// [`LinkError::Unknown`] for a name not in preview 1, [`LinkError::Type`] when `ty` is
    /// not the witx's type.
    pub fn link(&self, store: &mut Store, name: &str, ty: &FuncType) -> Result<Func, LinkError> {
        let spec = calls::spec(name).ok_or(LinkError::Unknown)?;
        let expected = spec.func_type();
        if *ty != expected {
            return Err(LinkError::Type { expected });
        }
        let shared = self.shared.clone();
        let handler = spec.handler;
        Ok(store.host_func(expected, move |caller, args, results| {
            let mut shared = shared.borrow_mut();
            let Shared { state, io } = &mut *shared;
            let mut guest = Guest::new(caller, io);
            let errno = match handler(state, &mut guest, calls::Args(args)) {
                Ok(()) => abi::Errno::SUCCESS,
                Err(calls::Fail::Errno(e)) => e,
                Err(calls::Fail::Trap(kind)) => return Err(kind),
            };
            if let Some(r) = results.first_mut() {
                *r = Value::I32(i32::from(errno.0));
            }
            Ok(())
        }))
    }

    /// A host function for the import `wasi.thread-spawn` ([`THREAD_SPAWN`]) declared with
    /// type `ty`, added to `store`. It spawns no thread: every call returns
    /// [`THREAD_SPAWN_ERROR`], touching no memory (a host call, counted as its `call`).
    ///
    /// # Errors
    /// [`LinkError::UnknownThreads`] for another name of the module `wasi`,
    /// [`LinkError::Type`] when `ty` is not `(i32) -> i32`.
    pub fn link_thread_spawn(&self, store: &mut Store, name: &str, ty: &FuncType) -> Result<Func, LinkError> {
        if name != THREAD_SPAWN {
            return Err(LinkError::UnknownThreads);
        }
        let expected = FuncType::new([ValType::I32], [ValType::I32]);
        if *ty != expected {
            return Err(LinkError::Type { expected });
        }
        Ok(store.host_func(expected, |_, _, results| {
            results[0] = Value::I32(THREAD_SPAWN_ERROR);
            Ok(())
        }))
    }

    /// A host function for the import `module.name` of type `ty`: [`Wasi::link`] for
    /// [`MODULE`], [`Wasi::link_thread_spawn`] for [`THREADS_MODULE`], `None` for any other
    /// module (not WASI's to provide).
    pub fn link_import(
        &self,
        store: &mut Store,
        module: &str,
        name: &str,
        ty: &FuncType,
    ) -> Option<Result<Func, LinkError>> {
        match module {
            MODULE => Some(self.link(store, name, ty)),
            THREADS_MODULE => Some(self.link_thread_spawn(store, name, ty)),
            _ => None,
        }
    }

    /// The code given to `proc_exit`, once the guest has called it (the call ends the run
    /// with [`TrapKind::Exit`](crate::wasm::TrapKind::Exit)).
    pub fn exit_code(&self) -> Option<u32> {
        self.shared.borrow().state.exit_code
    }

    /// The guest memory ranges `[start, end)` (byte addresses in memory 0) that the calls
    /// read or wrote: iovec arrays, buffers, paths, strings and results. Merged and sorted;
    /// at most [`IO_RANGES_CAP`] ranges, coarsened by closing the nearest gaps first when
    /// there would be more (docs/wasi.md, "Observed memory").
    pub fn io_ranges(&self) -> Vec<(u64, u64)> {
        self.shared.borrow().io.to_vec()
    }
}

/// Setup pushes at most [`MAX_DESCRIPTORS`] descriptors (checked first): the push cannot
/// fail, and if it did the error would name no directory.
#[cold]
fn unreachable_setup() -> SetupError {
    SetupError { host: PathBuf::new(), guest: String::new(), kind: SetupErrorKind::TooMany { count: 0 } }
}
