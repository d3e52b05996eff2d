//! The WASI host (`qip_memory::wasi`, docs/wasi.md) on arbitrary sequences of preview-1 calls
//! with arbitrary arguments (pointers and lengths out of bounds, closed descriptors, bad flags
//! and enums, `..`, absolute paths, links that lead out) against a sandbox on disk: no panic,
//! and nothing outside the preopened directory created, changed or read
//! (`common/wasi_calls.rs`). `tests/wasi_fuzz.rs` runs the same harness on thousands of
//! deterministic inputs without libFuzzer.
#![no_main]

use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;

#[path = "common/wasi_calls.rs"]
mod wasi_calls;

static WASM: OnceLock<Vec<u8>> = OnceLock::new();

fuzz_target!(|data: &[u8]| {
    let wasm = WASM.get_or_init(|| wat::parse_str(wasi_calls::module_wat()).unwrap());
    let base = std::env::temp_dir().join(format!("qip-wasi-fuzz-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&base);
    std::fs::create_dir_all(&base).unwrap();
    wasi_calls::run(data, wasm, &base);
    let _ = std::fs::remove_dir_all(&base);
});
