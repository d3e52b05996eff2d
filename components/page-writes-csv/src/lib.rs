//! `qip-interpret-memory-page-writes-csv.wasm`: a QIP Content component (`qip-content.md` A)
//! over `qip_memory::tools::page_writes`. Exports and buffers only; no logic of its own.
//!
//! * input: the multipart request (`memory-tools.md` 1), content type read from the mutable
//!   70-byte slot on every call; capacity 9,469,952 bytes (1 MiB module + 8 MiB input + 32 KiB
//!   multipart overhead, like the reference wrapper);
//! * output: `text/csv`, UTF-8, at most 1 MiB;
//! * `uniform_set_instruction_budget` (default 1,000,000, clamped to 1…1,000,000,000, reset
//!   after every render);
//! * rejections: `failure_modes_per_input_offset() = 10`, `detail = offset * 10 + mode`.
#![no_std]

extern crate alloc;

use alloc::vec::Vec;

use qip_memory::tools::page_writes::{DEFAULT_BUDGET, clamp_budget, page_writes};
use qip_memory::tools::{FAILURE_MODES, Rejection};

const INPUT_CAP: usize = 9_469_952;
const OUTPUT_CAP: usize = 1 << 20;
const ARENA_BYTES: usize = 240 << 20;

static mut INPUT: [u8; INPUT_CAP] = [0; INPUT_CAP];
/// The multipart content-type slot; a host may rewrite its 36 UUID bytes (A.6.1).
static mut INPUT_TYPE: [u8; 70] = *b"multipart/form-data;boundary=uuid-00000000-0000-0000-0000-000000000000";
static OUTPUT_TYPE: [u8; 8] = *b"text/csv";
static mut OUTPUT: Vec<u8> = Vec::new();
static mut BUDGET: u32 = DEFAULT_BUDGET;
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
extern "C" fn uniform_set_instruction_budget(v: i32) -> i32 {
    let applied = clamp_budget(v as u32);
    // SAFETY: single-threaded component; no reference to BUDGET outlives this statement.
    unsafe { BUDGET = applied };
    applied as i32
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
    // SAFETY: as above.
    let budget = unsafe { core::mem::replace(&mut *(&raw mut BUDGET), DEFAULT_BUDGET) };
    match page_writes(request, &slot, budget) {
        Ok(out) if out.csv.len() <= OUTPUT_CAP => {
            // SAFETY: the previous output is dropped here; the host copied it after the last call.
            let output = unsafe { &mut *(&raw mut OUTPUT) };
            *output = out.csv.into_bytes();
            (((output.as_ptr() as u64) << 32) | output.len() as u64) as i64
        }
        Ok(out) => {
            let r = Rejection {
                offset: len as u32,
                mode: 9,
                message: alloc::format!("CSV of {} bytes exceeds the output capacity", out.csv.len()),
            };
            r.render_result() as i64
        }
        Err(r) => r.render_result() as i64,
    }
}
