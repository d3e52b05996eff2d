//! Fixed-size linear memory for the wasm32 build: initial = maximum, so the module never needs
//! (and, with the static arena allocator, never contains) `memory.grow`. Passed from here rather
//! than from `.cargo/config.toml` so that a `RUSTFLAGS` set in the environment cannot drop it.

/// Total linear memory in bytes (a multiple of 64 KiB). Must hold the 1 MiB shadow stack
/// (Rust's default, placed first), the read-only data, the input and output buffers and the
/// allocator arena (see `src/lib.rs`); `tests/targets/check.py` checks that everything fits.
const MEMORY_BYTES: u32 = 64 * 1024 * 1024;

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    if std::env::var("CARGO_CFG_TARGET_ARCH").as_deref() == Ok("wasm32") {
        println!("cargo:rustc-link-arg-cdylib=--initial-memory={MEMORY_BYTES}");
        println!("cargo:rustc-link-arg-cdylib=--max-memory={MEMORY_BYTES}");
    }
}
