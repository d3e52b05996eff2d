//! The exports every QIP Content component of this project shares (docs/content.md),
//! written once as the macro [`content_component!`](crate::content_component) and called by
//! the three crates in `components/`:
//!
//! * the input buffer and its capacity (`input_ptr`, `input_bytes_cap`), the mutable 70-byte
//!   multipart content-type slot (`input_content_type_ptr`, `input_content_type_size`,
//!   docs/request.md, read with volatile loads on every call because a host may rewrite its UUID);
//! * the output content type and capacity (`output_content_type_ptr`,
//!   `output_content_type_size`, and `output_utf8_cap` for text or `output_bytes_cap` for
//!   binary outputs), `failure_modes_per_input_offset` =
//!   [`FAILURE_MODES`](crate::tools::FAILURE_MODES);
//! * `render(len)`: the previous output is dropped first (the host copied it after the last
//!   call, and large tools need its memory), then the tool's function runs on the request
//!   and the slot; an output above the capacity becomes a rejection of the component's own
//!   mode at offset `len` (the request's end), a rejection becomes `1 << 63 | detail`;
//!   `len` above the capacity is the only trap;
//! * the global allocator: `talc` over a fixed static arena (so the module's memory has
//!   min = max and no `memory.grow`), and a panic handler that traps.
//!
//! Uniform setters stay in the component crates: they are each tool's own.

/// Re-exports for [`content_component!`](crate::content_component); not public API.
#[doc(hidden)]
pub mod __private {
    pub use alloc::format;
    pub use alloc::vec::Vec;
}

/// Defines the shared Content exports (see the [module documentation](self)) in a
/// `#![no_std]` component crate that depends on `talc` 5.1 (without default features):
///
/// ```ignore
/// qip_memory::content_component! {
///     input_cap: 9_469_952,               // bytes the host may write (input_bytes_cap)
///     output_cap: output_utf8_cap = 1 << 20, // getter name and capacity in bytes
///     output_type: b"text/csv",           // the output content type
///     arena: 240 << 20,                   // heap bytes of the allocator's static arena
///     oversize_mode: 9, // rejection mode of an output above the capacity (tools::modes) render:
///     run, // fn(&[u8], &[u8; 70]) -> Result<Vec<u8>, Rejection>
/// }
/// ```
///
/// `render` gets the request bytes (`render`'s `len` bytes of the input buffer) and the
/// content-type slot as the host left it, and returns the output bytes or a
/// [`Rejection`](crate::tools::Rejection) (offsets into the request).
#[macro_export]
macro_rules! content_component {
    (
        input_cap: $input_cap:expr,
        output_cap: $cap_getter:ident = $output_cap:expr,
        output_type: $output_type:expr,
        arena: $arena:expr,
        oversize_mode: $oversize_mode:expr,
        render: $render:expr $(,)?
    ) => {
        const INPUT_CAP: usize = $input_cap;
        const OUTPUT_CAP: usize = $output_cap;
        const ARENA_BYTES: usize = $arena;

        static mut INPUT: [u8; INPUT_CAP] = [0; INPUT_CAP];
        /// The multipart content-type slot; a host may rewrite its 36 UUID bytes.
        static mut INPUT_TYPE: [u8; 70] =
            *b"multipart/form-data;boundary=uuid-00000000-0000-0000-0000-000000000000";
        static OUTPUT_TYPE: &[u8] = $output_type;
        static mut OUTPUT: $crate::content::component::__private::Vec<u8> =
            $crate::content::component::__private::Vec::new();
        static mut ARENA: [u8; ARENA_BYTES] = [0; ARENA_BYTES];

        #[global_allocator]
        // SAFETY: the arena is used by the allocator only; the component is single-threaded.
        static ALLOCATOR: talc::wasm::WasmArenaTalc =
            unsafe { talc::wasm::new_wasm_arena_allocator(&raw mut ARENA) };

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
        extern "C" fn $cap_getter() -> i32 {
            OUTPUT_CAP as i32
        }

        #[unsafe(no_mangle)]
        extern "C" fn output_content_type_ptr() -> i32 {
            OUTPUT_TYPE.as_ptr() as i32
        }

        #[unsafe(no_mangle)]
        extern "C" fn output_content_type_size() -> i32 {
            OUTPUT_TYPE.len() as i32
        }

        #[unsafe(no_mangle)]
        extern "C" fn failure_modes_per_input_offset() -> i32 {
            $crate::tools::FAILURE_MODES as i32
        }

        #[unsafe(no_mangle)]
        extern "C" fn render(len: i32) -> i64 {
            let len = len as u32 as usize;
            if len > INPUT_CAP {
                // The only trap: a host that writes past the declared capacity.
                core::arch::wasm32::unreachable();
            }
            // SAFETY: single-threaded; the slot is read with volatile loads because a host may
            // rewrite it between calls.
            let slot: [u8; 70] = unsafe { core::ptr::read_volatile(&raw const INPUT_TYPE) };
            // SAFETY: the host wrote `len <= INPUT_CAP` bytes; nothing else aliases INPUT
            // during render.
            let request: &[u8] = unsafe { &(&*(&raw const INPUT))[..len] };
            // SAFETY: single-threaded, no other reference to OUTPUT exists; the previous output
            // is dropped before the tool runs (the host copied it after the last call).
            let output = unsafe { &mut *(&raw mut OUTPUT) };
            *output = $crate::content::component::__private::Vec::new();
            let run: fn(
                &[u8],
                &[u8; 70],
            )
                -> Result<$crate::content::component::__private::Vec<u8>, $crate::tools::Rejection> = $render;
            match run(request, &slot) {
                Ok(bytes) if bytes.len() <= OUTPUT_CAP => {
                    *output = bytes;
                    (((output.as_ptr() as u64) << 32) | output.len() as u64) as i64
                }
                Ok(bytes) => {
                    let r = $crate::tools::Rejection::new(
                        len as u32,
                        $oversize_mode,
                        $crate::content::component::__private::format!(
                            "an output of {} bytes exceeds the output capacity of {} bytes",
                            bytes.len(),
                            OUTPUT_CAP
                        ),
                    );
                    r.render_result() as i64
                }
                Err(r) => r.render_result() as i64,
            }
        }
    };
}
