//! Memory analyzers for WebAssembly.
//!
//! The crate is one library with thin front ends (QIP Content components, a native CLI, WASI
//! components). Everything with logic lives here:
//!
//! * [`wasm`]: the bounded interpreter: decode and validate (WebAssembly 2.0, our own decoder), translate each
//!   function body once into a compact internal form, execute it with QIP's exact counters
//!   (docs/counting.md), a budget, limits (docs/limits.md) and a monomorphised observer.
//! * [`run`]: the typed run at the centre: a program (a Content target, a WASI command, a
//!   module's export), its budget and limits, executed under an observer into one
//!   [`run::Finished`] that every analysis takes.
//! * [`profile`]: the analyses built on the interpreter's observations (page table, heat map,
//!   functions, time); [`tools`]: the memory tools end to end, over a run or a request.
//! * [`heap`]: the AssemblyScript heap analyzer compatible with WARPO's `as-heap-analyzer`
//!   (docs/heap.md): dump reader, DWARF layouts (gimli), TLSF walk, reference
//!   graph, roots, dominators, retained sizes, constructor and comparison views, JSON.
//! * [`wasi`] (feature `wasi`): WASI preview 1 (`wasi_snapshot_preview1`) for the interpreter,
//!   deterministic (clocks count instructions, randomness is seeded) and observed (every guest
//!   buffer a call reads or writes), sandboxed to its preopened directories (docs/wasi.md).
//!
//! The library is `#![no_std]` + `alloc`; the `std` feature only adds conveniences.
#![no_std]
#![deny(missing_docs)]
#![cfg_attr(docsrs, feature(doc_cfg))]

extern crate alloc;

/// A rejection's reason, `format!`ted; with the feature `detail-only` the empty string, so
/// that no formatting code for reasons is linked. The QIP Content components use that
/// feature: they report a rejection as `offset * 10 + mode` only (docs/rejections.md), and
/// every host compiles them on every run (docs/components.md).
macro_rules! reason {
    ($($arg:tt)*) => {
        if cfg!(feature = "detail-only") {
            alloc::string::String::new()
        } else {
            alloc::format!($($arg)*)
        }
    };
}
#[cfg(feature = "std")]
extern crate std;

pub mod content;
pub mod heap;
pub mod image;
mod order;
pub mod profile;
pub mod run;
pub mod tools;
#[cfg(feature = "wasi")]
pub mod wasi;
pub mod wasm;
