//! `assemblyscript-heap-analyzer-json.wasm`: a QIP Content component (docs/content.md)
//! over `qip_memory::tools::heap`. Exports and buffers only; no logic of its own (the shared
//! exports come from `qip_memory::content_component!`).
//!
//! * input: a multipart request (content type read from the mutable 70-byte slot on every
//!   call) with fields `wasm` + `dump` (constructor view) or `wasm` + `before` + `after`
//!   (comparison view); capacity 150,994,944 bytes (144 MiB: two 64 MiB dumps, a module of up
//!   to 15 MiB and multipart overhead);
//! * output: `application/json`, UTF-8, no trailing newline, at most 256 MiB (larger JSON is
//!   rejected with mode 7 at the request's end); the same bytes as `qip-memory heap
//!   analyze|diff` prints before its newline;
//! * uniforms `sort` (constructor view 0 retained, 1 shallow, 2 count; comparison view
//!   0 delta, 1 alloc, 2 freed, 3 count) and `top` (0 = all rows), default 0, reset after
//!   every render; a setter returns the value it stored (codes are checked by render);
//! * rejections: `failure_modes_per_input_offset() = 10`, `detail = offset * 10 + mode`, modes
//!   in `qip_memory::tools::heap`.
#![no_std]

extern crate alloc;

use alloc::string::String;
use alloc::vec::Vec;

use qip_memory::tools::Rejection;
use qip_memory::tools::heap::heap_json;

qip_memory::content_component! {
    input_cap: 144 << 20,
    output_cap: output_utf8_cap = 256 << 20,
    output_type: b"application/json",
    arena: 620 << 20,
    oversize_mode: qip_memory::tools::heap::OUTPUT_TOO_LARGE.number,
    render: run,
}

static mut SORT: u32 = 0;
static mut TOP: u32 = 0;

#[unsafe(no_mangle)]
extern "C" fn uniform_set_sort(v: i32) -> i32 {
    // SAFETY: single-threaded component; no reference to SORT outlives this statement.
    unsafe { SORT = v as u32 };
    v
}

#[unsafe(no_mangle)]
extern "C" fn uniform_set_top(v: i32) -> i32 {
    // SAFETY: single-threaded component; no reference to TOP outlives this statement.
    unsafe { TOP = v as u32 };
    v
}

/// One render: both uniforms go back to their defaults for the next one.
fn run(request: &[u8], slot: &[u8; 70]) -> Result<Vec<u8>, Rejection> {
    // SAFETY: single-threaded component; no reference to SORT or TOP outlives this statement.
    let (sort, top) = unsafe {
        (core::mem::replace(&mut *(&raw mut SORT), 0), core::mem::replace(&mut *(&raw mut TOP), 0))
    };
    heap_json(request, slot, sort, top).map(String::into_bytes)
}
