//! `qip-interpret-memory-thermal-ktx2.wasm`: a QIP Content component (`qip-content.md` A) over
//! `qip_memory::tools::thermal`. Exports and buffers only; no logic of its own.
//!
//! * input: the multipart request (`memory-tools.md` 1), content type read from the mutable
//!   70-byte slot on every call; capacity 9,469,952 bytes (1 MiB module + 8 MiB input + 32 KiB
//!   multipart overhead, like the reference wrapper);
//! * output: `image/ktx2` in QIP's canonical RGBA8 sRGB layout (`qip-content.md` F.1), at most
//!   224 + 4 · 256 · 8,192 = 8,388,832 bytes (32 tiles);
//! * uniforms (all reset to their defaults after every render, rejections included):
//!   `instruction_budget` (default 1,000,000, clamped to 1…1,000,000,000), `normalize`
//!   (default 1; 0, or 1 for any nonzero value), `first_page` (default 0; negative values
//!   apply as 0); each setter returns the applied value;
//! * rejections: `failure_modes_per_input_offset() = 10`, `detail = offset * 10 + mode`
//!   (`memory-tools.md` 1.1; mode 8: no page at or above `first_page` was read or written).
#![no_std]

extern crate alloc;

use alloc::vec::Vec;

use qip_memory::tools::FAILURE_MODES;
use qip_memory::tools::page_writes::clamp_budget;
use qip_memory::tools::thermal::{Options, thermal};

const INPUT_CAP: usize = 9_469_952;
const OUTPUT_CAP: usize = 224 + 4 * 256 * 8192;
const ARENA_BYTES: usize = 360 << 20;

static mut INPUT: [u8; INPUT_CAP] = [0; INPUT_CAP];
/// The multipart content-type slot; a host may rewrite its 36 UUID bytes (A.6.1).
static mut INPUT_TYPE: [u8; 70] = *b"multipart/form-data;boundary=uuid-00000000-0000-0000-0000-000000000000";
static OUTPUT_TYPE: [u8; 10] = *b"image/ktx2";
static mut OUTPUT: Vec<u8> = Vec::new();
static mut OPTIONS: Options =
    Options { budget: DEFAULTS.budget, normalize: DEFAULTS.normalize, first_page: DEFAULTS.first_page };
static mut ARENA: [u8; ARENA_BYTES] = [0; ARENA_BYTES];

const DEFAULTS: Options = Options {
    budget: qip_memory::tools::page_writes::DEFAULT_BUDGET,
    normalize: qip_memory::tools::thermal::DEFAULT_NORMALIZE,
    first_page: qip_memory::tools::thermal::DEFAULT_FIRST_PAGE,
};

#[global_allocator]
// SAFETY: the arena is used by the allocator only; the component is single-threaded.
static ALLOCATOR: talc::wasm::WasmArenaTalc = unsafe { talc::wasm::new_wasm_arena_allocator(&raw mut ARENA) };

#[panic_handler]
fn panic(_: &core::panic::PanicInfo<'_>) -> ! {
    core::arch::wasm32::unreachable()
}

/// The uniforms as the next render will see them.
fn options() -> &'static mut Options {
    // SAFETY: single-threaded component; callers do not keep the reference across calls.
    unsafe { &mut *(&raw mut OPTIONS) }
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
extern "C" fn output_bytes_cap() -> i32 {
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
    let options = core::mem::replace(options(), DEFAULTS);
    // SAFETY: the previous output is dropped first (the host copied it after the last call), so
    // its 8 MiB are free for this run.
    let output = unsafe { &mut *(&raw mut OUTPUT) };
    *output = Vec::new();
    match thermal(request, &slot, options) {
        // At most 32 tiles: the file always fits OUTPUT_CAP.
        Ok(out) => {
            *output = out.ktx2;
            (((output.as_ptr() as u64) << 32) | output.len() as u64) as i64
        }
        Err(r) => r.render_result() as i64,
    }
}
