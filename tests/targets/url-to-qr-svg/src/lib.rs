//! `url-to-qr-svg`: a QIP Content component (docs/content.md) used as a test
//! target of the memory tools. It turns one URL (`text/uri-list`) into a QR code drawn as SVG
//! (`image/svg+xml`) with the `qrcode` crate's SVG renderer.
//!
//! Contract:
//! * Input: UTF-8 `text/uri-list`, at most [`INPUT_CAP`] bytes at `input_ptr()`. Lines end at LF
//!   (a CR before it is dropped); every line is trimmed of spaces and tabs; empty lines and lines
//!   starting with `#` (RFC 2483 comments) are ignored. Exactly one line must remain: the URL,
//!   encoded byte for byte.
//! * Output: an SVG document (ASCII) in a static buffer of [`OUTPUT_CAP`] bytes: XML declaration,
//!   a white background `rect` and one black `path`; 8 px per module, a 4-module quiet zone, so
//!   the picture is `(modules + 8) * 8` px square.
//! * Uniform `uniform_set_error_correction(i32) -> i32`: 0 = L, 1 = M (default), 2 = Q, 3 = H;
//!   the value is unsigned, larger values clamp to 3; returns the applied level. Every normal
//!   return of `render` (success or rejection) resets it to 1 (M).
//! * `render(len)` traps (`unreachable`) if `len > INPUT_CAP`. Otherwise it returns
//!   `(output_ptr << 32) | output_size`, or a rejection `(1 << 63) | offset` with
//!   `failure_modes_per_input_offset() == 1` (so the detail is the byte offset itself):
//!   - invalid UTF-8: offset of the first invalid byte;
//!   - no URL line (empty input, or only blank and comment lines): offset = input size (end of
//!     input, where a URL was expected);
//!   - more than one URL line: offset of the first byte of the second URL (after its leading
//!     spaces/tabs);
//!   - the URL does not fit in a version-40 QR code at the chosen level (about 2,953 bytes at L,
//!     2,331 at M, 1,663 at Q, 1,273 at H): offset of the first byte of the URL.
//!
//! Memory: fixed size (`build.rs`: initial = maximum, no `memory.grow`); the heap is a static
//! arena managed by `talc`. The input and output buffers and the arena are zero-initialised
//! statics, i.e. `.bss`, which the linker does not put in any data segment.

use core::cell::UnsafeCell;
use core::sync::atomic::{AtomicU32, Ordering};

use qrcode::render::svg;
use qrcode::{EcLevel, QrCode};

/// Input capacity in bytes (`input_utf8_cap`).
pub const INPUT_CAP: usize = 64 * 1024;
/// Output capacity in bytes (`output_utf8_cap`). A version-40 code takes about 400 KB.
pub const OUTPUT_CAP: usize = 1024 * 1024;
/// Heap arena for the allocator (the SVG string grows by doubling up to 512 KiB).
const ARENA_BYTES: usize = 3 * 1024 * 1024;

const INPUT_TYPE: [u8; 13] = *b"text/uri-list";
const OUTPUT_TYPE: [u8; 13] = *b"image/svg+xml";

/// Content-type strings live in read-only data (one active data segment).
static INPUT_CONTENT_TYPE: [u8; INPUT_TYPE.len()] = INPUT_TYPE;
static OUTPUT_CONTENT_TYPE: [u8; OUTPUT_TYPE.len()] = OUTPUT_TYPE;

/// A zero-initialised static byte buffer (lands in `.bss`).
#[repr(C, align(16))]
struct Buffer<const N: usize>(UnsafeCell<[u8; N]>);

// SAFETY: wasm32-unknown-unknown without the atomics feature is single-threaded.
unsafe impl<const N: usize> Sync for Buffer<N> {}

impl<const N: usize> Buffer<N> {
    const fn new() -> Self {
        Buffer(UnsafeCell::new([0; N]))
    }
    const fn ptr(&self) -> *mut u8 {
        self.0.get() as *mut u8
    }
}

static INPUT: Buffer<INPUT_CAP> = Buffer::new();
static OUTPUT: Buffer<OUTPUT_CAP> = Buffer::new();

#[global_allocator]
static ALLOCATOR: talc::wasm::WasmArenaTalc = {
    static mut ARENA: [core::mem::MaybeUninit<u8>; ARENA_BYTES] =
        [core::mem::MaybeUninit::uninit(); ARENA_BYTES];
    // SAFETY: nothing else ever touches ARENA; it belongs to the allocator.
    unsafe { talc::wasm::new_wasm_arena_allocator(&raw mut ARENA) }
};

const DEFAULT_EC_LEVEL: u32 = 1;
static EC_LEVEL: AtomicU32 = AtomicU32::new(DEFAULT_EC_LEVEL);

// ---- static getters (docs/content.md: each body must be one `i32.const` then `end`) ----

#[no_mangle]
pub extern "C" fn input_ptr() -> i32 {
    INPUT.ptr() as i32
}

#[no_mangle]
pub extern "C" fn input_utf8_cap() -> i32 {
    INPUT_CAP as i32
}

#[no_mangle]
pub extern "C" fn output_utf8_cap() -> i32 {
    OUTPUT_CAP as i32
}

#[no_mangle]
pub extern "C" fn input_content_type_ptr() -> i32 {
    INPUT_CONTENT_TYPE.as_ptr() as i32
}

#[no_mangle]
pub extern "C" fn input_content_type_size() -> i32 {
    INPUT_CONTENT_TYPE.len() as i32
}

#[no_mangle]
pub extern "C" fn output_content_type_ptr() -> i32 {
    OUTPUT_CONTENT_TYPE.as_ptr() as i32
}

#[no_mangle]
pub extern "C" fn output_content_type_size() -> i32 {
    OUTPUT_CONTENT_TYPE.len() as i32
}

#[no_mangle]
pub extern "C" fn failure_modes_per_input_offset() -> i32 {
    1
}

// ---- uniform ----

/// Error-correction level: 0 = L, 1 = M (default), 2 = Q, 3 = H; unsigned, clamped to 3.
#[no_mangle]
pub extern "C" fn uniform_set_error_correction(level: i32) -> i32 {
    let applied = (level as u32).min(3);
    EC_LEVEL.store(applied, Ordering::Relaxed);
    applied as i32
}

// ---- render ----

#[no_mangle]
pub extern "C" fn render(input_size: i32) -> i64 {
    let len = input_size as u32 as usize;
    if len > INPUT_CAP {
        core::arch::wasm32::unreachable();
    }
    // SAFETY: the host wrote `len <= INPUT_CAP` bytes at `input_ptr()`; nothing writes them here.
    let input = unsafe { core::slice::from_raw_parts(INPUT.ptr() as *const u8, len) };
    let level = match EC_LEVEL.load(Ordering::Relaxed) {
        0 => EcLevel::L,
        1 => EcLevel::M,
        2 => EcLevel::Q,
        _ => EcLevel::H,
    };
    let result = match convert(input, level) {
        Ok(size) => ((OUTPUT.ptr() as u32 as u64) << 32 | size as u64) as i64,
        Err(offset) => (1u64 << 63 | offset as u64) as i64,
    };
    // Reset semantics: every normal return restores the authored defaults.
    EC_LEVEL.store(DEFAULT_EC_LEVEL, Ordering::Relaxed);
    result
}

/// Writes the SVG for the one URL of `input` into the output buffer and returns its size, or
/// the rejection offset.
fn convert(input: &[u8], level: EcLevel) -> Result<u32, u32> {
    if let Err(e) = core::str::from_utf8(input) {
        return Err(e.valid_up_to() as u32);
    }
    let (start, url) = single_url(input)?;
    let code = QrCode::with_error_correction_level(url, level).map_err(|_| start)?;
    let image = code.render::<svg::Color>().build();
    let bytes = image.as_bytes();
    if bytes.len() > OUTPUT_CAP {
        // Cannot happen: a version-40 code is well under the capacity.
        return Err(start);
    }
    // SAFETY: the output buffer is only written here, within its capacity.
    unsafe { core::ptr::copy_nonoverlapping(bytes.as_ptr(), OUTPUT.ptr(), bytes.len()) };
    Ok(bytes.len() as u32)
}

/// Finds the only URL line: `(offset, bytes)`. Errors with the offset described in the module
/// docs.
fn single_url(input: &[u8]) -> Result<(u32, &[u8]), u32> {
    let mut found: Option<(usize, &[u8])> = None;
    let mut line_start = 0;
    while line_start < input.len() {
        let line_end =
            input[line_start..].iter().position(|&b| b == b'\n').map_or(input.len(), |i| line_start + i);
        let (lead, line) = trim(&input[line_start..line_end]);
        if !line.is_empty() && line[0] != b'#' {
            let at = line_start + lead;
            if found.is_some() {
                return Err(at as u32);
            }
            found = Some((at, line));
        }
        line_start = line_end + 1;
    }
    found.map(|(at, url)| (at as u32, url)).ok_or(input.len() as u32)
}

/// Strips spaces, tabs and CRs from both ends; returns how many bytes were cut at the front.
fn trim(line: &[u8]) -> (usize, &[u8]) {
    let blank = |b: &u8| matches!(b, b' ' | b'\t' | b'\r');
    let lead = line.iter().take_while(|b| blank(b)).count();
    let trail = line[lead..].iter().rev().take_while(|b| blank(b)).count();
    (lead, &line[lead..line.len() - trail])
}
