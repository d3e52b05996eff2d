//! `markdown-to-html`: a QIP Content component (docs/content.md) used as a test
//! target of the memory tools. It renders CommonMark (`text/markdown`) to HTML (`text/html`)
//! with `pulldown-cmark`.
//!
//! Contract:
//! * Input: UTF-8 Markdown, at most [`INPUT_CAP`] bytes at `input_ptr()`. Parsed as plain
//!   CommonMark (`pulldown_cmark::Options::empty()`: no tables, footnotes, strikethrough, ...).
//! * Output: the HTML exactly as `pulldown_cmark::html` writes it, into a static buffer of
//!   [`OUTPUT_CAP`] bytes. Empty input gives empty output (size 0).
//! * No uniforms.
//! * `render(len)` traps (`unreachable`) if `len > INPUT_CAP`; it also traps if the parser's
//!   heap needs more than the arena (see [`ARENA_BYTES`]). Otherwise it returns
//!   `(output_ptr << 32) | output_size`, or a rejection `(1 << 63) | offset` with
//!   `failure_modes_per_input_offset() == 1` (the detail is the byte offset itself):
//!   - invalid UTF-8: offset of the first invalid byte;
//!   - the HTML would exceed [`OUTPUT_CAP`]: start offset (in the input) of the Markdown event
//!     being written when the output buffer filled up.
//!
//! Memory: fixed size (`build.rs`: initial = maximum, no `memory.grow`); the heap is a static
//! arena managed by `talc`. The input and output buffers and the arena are zero-initialised
//! statics, i.e. `.bss`, which the linker does not put in any data segment.

use core::cell::{Cell, UnsafeCell};
use core::fmt;

use pulldown_cmark::{html, Options, Parser};

/// Input capacity in bytes (`input_utf8_cap`).
pub const INPUT_CAP: usize = 256 * 1024;
/// Output capacity in bytes (`output_utf8_cap`).
pub const OUTPUT_CAP: usize = 1024 * 1024;
/// Heap arena for the allocator. Measured peaks of live heap bytes for 256 KiB inputs: about
/// 3 MiB for ordinary documents, 24-25 MiB for inputs that make one parse-tree node per input
/// byte (`*a*a...`, `a\na\n...`, `>>>...`): the tree is a `Vec` of 32-byte nodes that doubles
/// to 16 MiB while the old 8 MiB block is still live. 60 MiB leaves room for twice that.
pub const ARENA_BYTES: usize = 60 * 1024 * 1024;

const INPUT_TYPE: [u8; 13] = *b"text/markdown";
const OUTPUT_TYPE: [u8; 9] = *b"text/html";

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

// ---- render ----

#[no_mangle]
pub extern "C" fn render(input_size: i32) -> i64 {
    let len = input_size as u32 as usize;
    if len > INPUT_CAP {
        core::arch::wasm32::unreachable();
    }
    // SAFETY: the host wrote `len <= INPUT_CAP` bytes at `input_ptr()`; nothing writes them here.
    let input = unsafe { core::slice::from_raw_parts(INPUT.ptr() as *const u8, len) };
    match convert(input) {
        Ok(size) => ((OUTPUT.ptr() as u32 as u64) << 32 | size as u64) as i64,
        Err(offset) => (1u64 << 63 | offset as u64) as i64,
    }
}

fn convert(input: &[u8]) -> Result<u32, u32> {
    let text = core::str::from_utf8(input).map_err(|e| e.valid_up_to() as u32)?;
    // Input offset of the event most recently handed to the HTML writer.
    let at = Cell::new(0usize);
    let events = Parser::new_ext(text, Options::empty()).into_offset_iter().map(|(event, range)| {
        at.set(range.start);
        event
    });
    let mut out = OutputWriter { len: 0 };
    match html::write_html_fmt(&mut out, events) {
        Ok(()) => Ok(out.len as u32),
        Err(fmt::Error) => Err(at.get() as u32),
    }
}

/// Writes into the static output buffer; fails (without writing) once it would overflow.
struct OutputWriter {
    len: usize,
}

impl fmt::Write for OutputWriter {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        let end = self.len.checked_add(s.len()).filter(|&e| e <= OUTPUT_CAP).ok_or(fmt::Error)?;
        // SAFETY: `[len, end)` lies inside the output buffer, which only this writer touches.
        unsafe { core::ptr::copy_nonoverlapping(s.as_ptr(), OUTPUT.ptr().add(self.len), s.len()) };
        self.len = end;
        Ok(())
    }
}
