//! The real WASI preview 1 programs of `tests/programs/` (built by `make programs`, described
//! in tests/programs/README.md) and what their tests need around them: the modules' paths,
//! the shared fixture, and fresh temporary directories to preopen and read back.
//!
//! `tests/programs.rs` states what the programs print and write under wasmtime;
//! `tests/programs_profiled.rs` runs the same programs under `qip-memory` beside wasmtime.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

use super::content::artifact;

/// `wordfreq`, Rust std for `wasm32-wasip1`.
pub const RUST: &str = "tests/programs/rust-wasi.wasm";
/// `sortuniq`, C with wasi-libc.
pub const C: &str = "tests/programs/c-wasi.wasm";
/// `revlines`, Zig.
pub const ZIG: &str = "tests/programs/zig-wasi.wasm";
/// `charclass`, C with wasi-libc and tail calls (`-mtail-call`).
pub const C_TAIL: &str = "tests/programs/c-tailcall.wasm";

/// 1,217 bytes of English prose in 23 lines (`wc -c -l`), 5 of them empty.
pub const FIXTURE: &str = "tests/programs/fixtures/harbour.txt";

/// The fixture's bytes.
pub fn fixture() -> Vec<u8> {
    std::fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join(FIXTURE)).unwrap()
}

/// The program at `rel` (one of [`RUST`], [`C`], [`ZIG`], [`C_TAIL`]), built with `make` when missing.
pub fn program(rel: &str) -> PathBuf {
    artifact(rel)
}

/// A fresh directory under the system's temporary directory, removed when dropped.
pub struct TempDir(pub PathBuf);

impl TempDir {
    /// An empty directory whose name holds `label`, the process id and a counter.
    pub fn new(label: &str) -> TempDir {
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let path =
            std::env::temp_dir().join(format!("qip-memory-programs-{}-{n}-{label}", std::process::id()));
        let _ = std::fs::remove_dir_all(&path);
        std::fs::create_dir_all(&path).unwrap();
        TempDir(path)
    }

    /// A directory holding `files` (name, contents).
    pub fn with(label: &str, files: &[(&str, &[u8])]) -> TempDir {
        let dir = TempDir::new(label);
        for (name, bytes) in files {
            std::fs::write(dir.0.join(name), bytes).unwrap();
        }
        dir
    }

    /// Every file in the directory, by name (no subdirectories expected).
    pub fn files(&self) -> BTreeMap<String, Vec<u8>> {
        files_in(&self.0)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Every file in `dir`, by name; panics on a subdirectory (the programs create none).
pub fn files_in(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut out = BTreeMap::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let entry = entry.unwrap();
        assert!(entry.file_type().unwrap().is_file(), "{:?} is not a file", entry.path());
        out.insert(entry.file_name().into_string().unwrap(), std::fs::read(entry.path()).unwrap());
    }
    out
}

/// `(name, contents)` pairs as the map [`TempDir::files`] returns.
pub fn file_map(files: &[(&str, &[u8])]) -> BTreeMap<String, Vec<u8>> {
    files.iter().map(|(n, b)| (n.to_string(), b.to_vec())).collect()
}
