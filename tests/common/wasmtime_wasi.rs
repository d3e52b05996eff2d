//! The reference runner for WASI preview 1 commands: a core module's `_start` under wasmtime
//! with `wasmtime_wasi::p1`, given what `wasmtime run` would give it, and everything it left
//! behind captured: stdout, stderr, the exit code, and the fuel it burnt.
//!
//! The tests of the real programs (`tests/programs.rs`) state their expectations against it;
//! the tests that compare our WASI host with wasmtime call the same function with the same
//! arguments. An invocation has the shape of a command line:
//!
//! * `argv[0]` is the module's file name without its directory, as `wasmtime run DIR/NAME.wasm`
//!   gives it, followed by `args`;
//! * the environment is exactly `env` (nothing inherited);
//! * each `(host, guest)` of `dirs` is preopened with read and write permissions, in that order
//!   (file descriptors 3, 4, ...), as `wasmtime run --dir HOST::GUEST` does;
//! * stdin is `stdin`, then end of file; stdout and stderr are captured in memory.
//!
//! Wall clock, monotonic clock and random numbers are wasmtime's own (real time, a random seed
//! per run); the programs print only what holds for any values of them.
//!
//! Fuel: the store starts with [`FUEL`] units and wasmtime 48 charges one per Wasm operator
//! executed, except `nop`, `drop`, `block`, `loop`, `unreachable`, `return`, `else` and `end`,
//! which are free (wasmtime-environ's default operator costs), and nothing for the work of
//! host functions. So [`Reference::fuel_consumed`] approximates the instructions a run
//! executes; it is not the count of our interpreter (docs/counting.md).

use std::collections::HashMap;
use std::path::Path;
use std::sync::{Mutex, OnceLock};

use ::wasmtime_wasi::p1::{self, WasiP1Ctx};
use ::wasmtime_wasi::p2::pipe::{MemoryInputPipe, MemoryOutputPipe};
use ::wasmtime_wasi::{FsPerms, I32Exit, WasiCtxBuilder};
use wasmtime::{Config, Engine, Linker, Module, Store};

/// The fuel a run starts with: far more than any test program needs (a few billion
/// instructions take minutes), so running out is a failure of the test, reported as a trap.
pub const FUEL: u64 = 1 << 40;

/// How much of stdout and of stderr is kept (bytes); a program writing more fails the write.
pub const CAPTURE_BYTES: usize = 64 << 20;

/// The exit code `wasmtime run` gives a command that trapped: 128 + SIGABRT.
pub const TRAP_EXIT_CODE: i32 = 134;

/// What a command did under wasmtime.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reference {
    /// Everything written to file descriptor 1.
    pub stdout: Vec<u8>,
    /// Everything written to file descriptor 2.
    pub stderr: Vec<u8>,
    /// The code given to `proc_exit`, 0 when `_start` returned, [`TRAP_EXIT_CODE`] after a trap.
    pub exit_code: i32,
    /// The trap's message when the run trapped (a Rust panic is an `unreachable` trap), else
    /// `None`.
    pub trap: Option<String>,
    /// Fuel units consumed by the run (about one per Wasm instruction; see the module doc).
    pub fuel_consumed: u64,
}

impl Reference {
    /// Stdout as UTF-8 (panics on invalid UTF-8: the test programs print text).
    pub fn stdout_text(&self) -> &str {
        std::str::from_utf8(&self.stdout).expect("stdout is UTF-8")
    }

    /// Stderr as UTF-8 (panics on invalid UTF-8).
    pub fn stderr_text(&self) -> &str {
        std::str::from_utf8(&self.stderr).expect("stderr is UTF-8")
    }
}

/// Runs the command in the file `program` as `wasmtime run --dir H::G ... program ARGS` would,
/// with the environment `env` and `stdin` as its standard input. See the module doc.
///
/// # Panics
///
/// When the file cannot be read, the module does not compile or link (it must import only
/// `wasi_snapshot_preview1`), has no `_start`, or a preopened directory cannot be opened.
pub fn run_in_wasmtime(
    program: &Path,
    args: &[&str],
    env: &[(&str, &str)],
    dirs: &[(&Path, &str)],
    stdin: &[u8],
) -> Reference {
    let bytes = std::fs::read(program).unwrap_or_else(|e| panic!("reading {}: {e}", program.display()));
    let argv0 = program.file_name().expect("a file name").to_str().expect("a UTF-8 file name");
    run_module(&bytes, argv0, args, env, dirs, stdin)
}

/// [`run_in_wasmtime`] for a module given as bytes, with `argv0` as its `argv[0]`.
///
/// # Panics
///
/// As [`run_in_wasmtime`].
pub fn run_module(
    module: &[u8],
    argv0: &str,
    args: &[&str],
    env: &[(&str, &str)],
    dirs: &[(&Path, &str)],
    stdin: &[u8],
) -> Reference {
    let module = compiled(module);
    let stdout = MemoryOutputPipe::new(CAPTURE_BYTES);
    let stderr = MemoryOutputPipe::new(CAPTURE_BYTES);
    let mut builder = WasiCtxBuilder::new();
    builder
        .arg(argv0)
        .args(args)
        .stdin(MemoryInputPipe::new(stdin.to_vec()))
        .stdout(stdout.clone())
        .stderr(stderr.clone());
    for (key, value) in env {
        builder.env(key, value);
    }
    for (host, guest) in dirs {
        builder
            .preopened_dir(host, guest, FsPerms::ReadWrite)
            .unwrap_or_else(|e| panic!("preopening {} as {guest}: {e}", host.display()));
    }
    let mut store = Store::new(engine(), builder.build_p1());
    store.set_fuel(FUEL).unwrap();
    let mut linker: Linker<WasiP1Ctx> = Linker::new(engine());
    p1::add_to_linker_sync(&mut linker, |ctx| ctx).unwrap();
    let instance = linker.instantiate(&mut store, &module).expect("the module links against WASI preview 1");
    let start = instance.get_typed_func::<(), ()>(&mut store, "_start").expect("a command exports _start");
    let (exit_code, trap) = match start.call(&mut store, ()) {
        Ok(()) => (0, None),
        Err(e) => match e.downcast_ref::<I32Exit>() {
            Some(I32Exit(code)) => (*code, None),
            None => (TRAP_EXIT_CODE, Some(format!("{e:?}"))),
        },
    };
    let fuel_consumed = FUEL - store.get_fuel().unwrap();
    drop(store);
    Reference {
        stdout: stdout.contents().to_vec(),
        stderr: stderr.contents().to_vec(),
        exit_code,
        trap,
        fuel_consumed,
    }
}

/// One engine per test binary, with fuel metering on.
fn engine() -> &'static Engine {
    static ENGINE: OnceLock<Engine> = OnceLock::new();
    ENGINE.get_or_init(|| {
        let mut config = Config::new();
        config.consume_fuel(true);
        Engine::new(&config).unwrap()
    })
}

/// `module` compiled once per test binary (Cranelift takes a noticeable time on the Rust
/// program's few hundred KiB).
fn compiled(module: &[u8]) -> Module {
    static CACHE: OnceLock<Mutex<HashMap<Vec<u8>, Module>>> = OnceLock::new();
    let cache = CACHE.get_or_init(Default::default);
    if let Some(m) = cache.lock().unwrap().get(module) {
        return m.clone();
    }
    let m = Module::new(engine(), module).expect("the module compiles");
    cache.lock().unwrap().insert(module.to_vec(), m.clone());
    m
}
