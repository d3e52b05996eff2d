//! `qip-interpret-memory-report-html.wasm`: a QIP Content component (docs/content.md) over
//! `qip_memory::tools::report` (docs/report.md). Exports and buffers only; no logic of its own
//! (the shared exports come from `qip_memory::content_component!`).
//!
//! * input: the multipart request, as for the page-writes and thermal components; capacity
//!   9,469,952 bytes (1 MiB module + 8 MiB input + 32 KiB multipart overhead);
//! * output: `text/html`, UTF-8, byte-identical to `qip-memory report` for the same request;
//!   at most 16 MiB (a larger report is rejected with mode 9 at the request's end);
//! * uniforms (reset to their defaults after every render, rejections included):
//!   `instruction_budget` (default 1,000,000, clamped to 1…1,000,000,000) and `first_page`
//!   (default 0; negative values apply as 0); each setter returns the applied value;
//! * rejections: `failure_modes_per_input_offset() = 10`, `detail = offset * 10 + mode`, the
//!   modes of the README's table (mode 8: no page at or above `first_page` was touched).
#![no_std]

extern crate alloc;

use alloc::vec::Vec;

use qip_memory::tools::Rejection;
use qip_memory::tools::page_writes::{DEFAULT_BUDGET, clamp_budget};
use qip_memory::tools::report::{Options, report};
use qip_memory::tools::thermal::DEFAULT_FIRST_PAGE;

qip_memory::content_component! {
    input_cap: 9_469_952,
    output_cap: output_utf8_cap = 16 << 20,
    output_type: b"text/html",
    arena: 448 << 20,
    oversize_mode: qip_memory::tools::modes::LIMIT.number,
    render: run,
}

const DEFAULTS: Options = Options { budget: DEFAULT_BUDGET, first_page: DEFAULT_FIRST_PAGE };

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
extern "C" fn uniform_set_first_page(v: i32) -> i32 {
    let applied = v.max(0);
    options().first_page = applied as u32;
    applied
}

/// One render: the uniforms go back to their defaults for the next one.
fn run(request: &[u8], slot: &[u8; 70]) -> Result<Vec<u8>, Rejection> {
    let options = core::mem::replace(options(), DEFAULTS);
    report(request, slot, options).map(|r| r.to_html().into_bytes())
}
