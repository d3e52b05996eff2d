//! `assemblyscript-heap-analyzer-json.wasm`: a QIP Content component (`qip-content.md` A)
//! over `qip_memory::tools::heap`. Exports and buffers only; no logic of its own.
//!
//! * input: a multipart request (content type read from the mutable 70-byte slot on every
//!   call) with fields `wasm` + `dump` (constructor view) or `wasm` + `before` + `after`
//!   (comparison view); capacity 150,994,944 bytes (144 MiB: two 64 MiB dumps, a module of up
//!   to 15 MiB and multipart overhead);
//! * output: `application/json`, UTF-8, no trailing newline, at most 256 MiB; the same bytes as
//!   `qip-memory heap analyze|diff` prints before its newline;
//! * uniforms `sort` (constructor view 0 retained, 1 shallow, 2 count; comparison view
//!   0 delta, 1 alloc, 2 freed, 3 count) and `top` (0 = all rows), default 0, reset after
//!   every render; a setter returns the value it stored (codes are checked by render);
//! * rejections: `failure_modes_per_input_offset() = 10`, `detail = offset * 10 + mode`, modes
//!   in `qip_memory::tools::heap`.
#![no_std]

extern crate alloc;

use alloc::vec::Vec;

use qip_memory::tools::Rejection;
use qip_memory::tools::heap::{FAILURE_MODES, heap_json};

const INPUT_CAP: usize = 144 << 20;
const OUTPUT_CAP: usize = 256 << 20;
const ARENA_BYTES: usize = 620 << 20;

static mut INPUT: [u8; INPUT_CAP] = [0; INPUT_CAP];
/// The multipart content-type slot; a host may rewrite its 36 UUID bytes (A.6.1).
static mut INPUT_TYPE: [u8; 70] = *b"multipart/form-data;boundary=uuid-00000000-0000-0000-0000-000000000000";
static OUTPUT_TYPE: [u8; 16] = *b"application/json";
static mut OUTPUT: Vec<u8> = Vec::new();
static mut SORT: u32 = 0;
static mut TOP: u32 = 0;
static mut ARENA: [u8; ARENA_BYTES] = [0; ARENA_BYTES];

#[global_allocator]
// SAFETY: the arena is used by the allocator only; the component is single-threaded.
static ALLOCATOR: talc::wasm::WasmArenaTalc = unsafe { talc::wasm::new_wasm_arena_allocator(&raw mut ARENA) };

#[panic_handler]
fn panic(_: &core::panic::PanicInfo<'_>) -> ! {
    core::arch::wasm32::unreachable()
}

#[unsafe(no_mangle)]
extern "C" fn input_ptr() -> i32 {
    (&raw const INPUT) as i32
}

#[unsafe(no_mangle)]
extern "C" fn input_bytes_cap() -> i32 {
    INPUT_CAP as i32
}

#[unsafe(no_mangle)]
extern "C" fn input_content_type_ptr() -> i32 {
    (&raw const INPUT_TYPE) as i32
}

#[unsafe(no_mangle)]
extern "C" fn input_content_type_size() -> i32 {
    70
}

#[unsafe(no_mangle)]
extern "C" fn output_utf8_cap() -> i32 {
    OUTPUT_CAP as i32
}

#[unsafe(no_mangle)]
extern "C" fn output_content_type_ptr() -> i32 {
    (&raw const OUTPUT_TYPE) as i32
}

#[unsafe(no_mangle)]
extern "C" fn output_content_type_size() -> i32 {
    OUTPUT_TYPE.len() as i32
}

#[unsafe(no_mangle)]
extern "C" fn failure_modes_per_input_offset() -> i32 {
    FAILURE_MODES as i32
}

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

#[unsafe(no_mangle)]
extern "C" fn render(len: i32) -> i64 {
    let len = len as u32 as usize;
    if len > INPUT_CAP {
        // The only trap: a host that writes past the declared capacity.
        core::arch::wasm32::unreachable();
    }
    // SAFETY: single-threaded; the slot is read with volatile loads because a host may
    // rewrite it between calls (A.6.1).
    let slot: [u8; 70] = unsafe { core::ptr::read_volatile(&raw const INPUT_TYPE) };
    // SAFETY: the host wrote `len <= INPUT_CAP` bytes; nothing else aliases INPUT during render.
    let request: &[u8] = unsafe { &(&*(&raw const INPUT))[..len] };
    // SAFETY: as above; both uniforms go back to their defaults for the next render.
    let (sort, top) = unsafe {
        (core::mem::replace(&mut *(&raw mut SORT), 0), core::mem::replace(&mut *(&raw mut TOP), 0))
    };
    // SAFETY: the previous output is dropped before the analysis needs the arena; the host
    // copied it after the last call.
    unsafe { *(&raw mut OUTPUT) = Vec::new() };
    match heap_json(request, &slot, sort, top) {
        Ok(json) if json.len() <= OUTPUT_CAP => {
            // SAFETY: single-threaded; no other reference to OUTPUT exists.
            let output = unsafe { &mut *(&raw mut OUTPUT) };
            *output = json.into_bytes();
            (((output.as_ptr() as u64) << 32) | output.len() as u64) as i64
        }
        Ok(json) => {
            let r = Rejection {
                offset: len as u32,
                mode: 7,
                message: alloc::format!("JSON of {} bytes exceeds the output capacity", json.len()),
            };
            r.render_result() as i64
        }
        Err(r) => r.render_result() as i64,
    }
}
