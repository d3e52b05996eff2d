//! `qip-interpret-memory-page-writes-csv.wasm`: a QIP Content component (docs/content.md)
//! over `qip_memory::tools::page_writes`. Exports and buffers only; no logic of its own (the
//! shared exports come from `qip_memory::content_component!`).
//!
//! * input: the multipart request (docs/request.md), content type read from the mutable
//!   70-byte slot on every call; capacity 9,469,952 bytes (1 MiB module + 8 MiB input + 32 KiB
//!   multipart overhead, like the reference wrapper);
//! * output: `text/csv`, UTF-8, at most 1 MiB (a larger table is rejected with mode 9 at the
//!   request's end);
//! * `uniform_set_instruction_budget` (default 1,000,000, clamped to 1…1,000,000,000, reset
//!   after every render);
//! * rejections: `failure_modes_per_input_offset() = 10`, `detail = offset * 10 + mode`.
#![no_std]

extern crate alloc;

use alloc::vec::Vec;

use qip_memory::tools::Rejection;
use qip_memory::tools::page_writes::{DEFAULT_BUDGET, clamp_budget, page_writes};

qip_memory::content_component! {
    input_cap: 9_469_952,
    output_cap: output_utf8_cap = 1 << 20,
    output_type: b"text/csv",
    arena: 240 << 20,
    oversize_mode: qip_memory::tools::modes::LIMIT.number,
    render: run,
}

static mut BUDGET: u32 = DEFAULT_BUDGET;

#[unsafe(no_mangle)]
extern "C" fn uniform_set_instruction_budget(v: i32) -> i32 {
    let applied = clamp_budget(v as u32);
    // SAFETY: single-threaded component; no reference to BUDGET outlives this statement.
    unsafe { BUDGET = applied };
    applied as i32
}

/// One render: the budget goes back to its default for the next one.
fn run(request: &[u8], slot: &[u8; 70]) -> Result<Vec<u8>, Rejection> {
    // SAFETY: single-threaded component; no reference to BUDGET outlives this statement.
    let budget = unsafe { core::mem::replace(&mut *(&raw mut BUDGET), DEFAULT_BUDGET) };
    page_writes(request, slot, budget).map(|out| out.csv.into_bytes())
}
