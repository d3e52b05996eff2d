//! `qip-interpret-memory-thermal-ktx2.wasm`: a QIP Content component (docs/content.md) over
//! `qip_memory::tools::thermal`. Exports and buffers only; no logic of its own (the shared
//! exports come from `qip_memory::content_component!`).
//!
//! * input: the multipart request (docs/request.md), content type read from the mutable
//!   70-byte slot on every call; capacity 9,469,952 bytes (1 MiB module + 8 MiB input + 32 KiB
//!   multipart overhead, like the reference wrapper);
//! * output: `image/ktx2` in QIP's canonical RGBA8 sRGB layout (docs/heat-map.md), at most
//!   224 + 4 · 256 · 8,192 = 8,388,832 bytes (32 tiles, so every heat map fits);
//! * uniforms (all reset to their defaults after every render, rejections included):
//!   `instruction_budget` (default 1,000,000, clamped to 1…1,000,000,000), `normalize`
//!   (default 1; 0, or 1 for any nonzero value), `first_page` (default 0; negative values
//!   apply as 0); each setter returns the applied value;
//! * rejections: `failure_modes_per_input_offset() = 10`, `detail = offset * 10 + mode`
//!   (docs/rejections.md; mode 8: no page at or above `first_page` was read or written).
#![no_std]

extern crate alloc;

use alloc::vec::Vec;

use qip_memory::tools::Rejection;
use qip_memory::tools::page_writes::clamp_budget;
use qip_memory::tools::thermal::{Options, thermal};

qip_memory::content_component! {
    input_cap: 9_469_952,
    output_cap: output_bytes_cap = 224 + 4 * 256 * 8192,
    output_type: b"image/ktx2",
    arena: 360 << 20,
    // Unreachable: 32 tiles always fit.
    oversize_mode: qip_memory::tools::modes::LIMIT.number,
    render: run,
}

const DEFAULTS: Options = Options {
    budget: qip_memory::tools::page_writes::DEFAULT_BUDGET,
    normalize: qip_memory::tools::thermal::DEFAULT_NORMALIZE,
    first_page: qip_memory::tools::thermal::DEFAULT_FIRST_PAGE,
};

static mut OPTIONS: Options = DEFAULTS;

/// The uniforms as the next render will see them.
fn options() -> &'static mut Options {
    // SAFETY: single-threaded component; callers do not keep the reference across calls.
    unsafe { &mut *(&raw mut OPTIONS) }
}

#[unsafe(no_mangle)]
extern "C" fn uniform_set_instruction_budget(v: i32) -> i32 {
    let applied = clamp_budget(v as u32);
    options().budget = applied;
    applied as i32
}

#[unsafe(no_mangle)]
extern "C" fn uniform_set_normalize(v: i32) -> i32 {
    options().normalize = v != 0;
    (v != 0) as i32
}

#[unsafe(no_mangle)]
extern "C" fn uniform_set_first_page(v: i32) -> i32 {
    let applied = v.max(0);
    options().first_page = applied as u32;
    applied
}

/// One render: the uniforms go back to their defaults for the next one.
fn run(request: &[u8], slot: &[u8; 70]) -> Result<Vec<u8>, Rejection> {
    let options = core::mem::replace(options(), DEFAULTS);
    thermal(request, slot, options).map(|out| out.ktx2)
}
