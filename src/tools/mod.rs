//! The memory tools, end to end: request bytes in, output bytes or a rejection out. The
//! Content components and the CLI are thin front ends over these functions.
//!
//! * [`page_writes`]: `qip-interpret-memory-page-writes-csv.wasm` (`memory-tools.md` 1–2).
//! * [`modes`]: the rejection modes of `memory-tools.md` 1.1 as sentences.
//! * [`heap`]: `assemblyscript-heap-analyzer-json.wasm` (`heap-analyzer.md`), with its own
//!   rejection mode table.

pub mod heap;
pub mod modes;
pub mod page_writes;

pub use modes::mode_description;

use alloc::string::String;

use crate::content::run::Cause;
use crate::wasm::Limits;

/// Our limits for targets (`memory-tools.md`, issue 3): module 1 MiB, memory 192 MiB, and the
/// interpreter's defaults for frames and the value stack.
pub fn target_limits() -> Limits {
    Limits::default()
}

/// Largest target input we accept, in bytes (8 MiB, the reference's nominal limit).
pub const MAX_TARGET_INPUT: usize = 8 << 20;

/// A Content rejection of one of our tools: `detail = offset * 10 + mode`
/// (`memory-tools.md` 1.1).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rejection {
    /// Byte offset in the request that points at the cause.
    pub offset: u32,
    /// The mode (0–9) of the table in `memory-tools.md` 1.1.
    pub mode: u32,
    /// One line in English saying what went wrong.
    pub message: String,
}

/// Failure modes per input offset exported by our tools.
pub const FAILURE_MODES: u32 = 10;

impl Rejection {
    /// The 32-bit failure detail: `offset * 10 + mode`.
    pub fn detail(&self) -> u32 {
        self.offset * FAILURE_MODES + self.mode
    }

    /// The 64-bit `render` result of this rejection (bit 63 set, `qip-content.md` A.5).
    pub fn render_result(&self) -> u64 {
        1 << 63 | self.detail() as u64
    }
}

/// Where the parts of a request start, for turning a [`Cause`] into a request offset.
#[derive(Debug, Clone, Copy)]
pub struct PartOffsets<'a> {
    /// Start of the `component` part's body.
    pub component: usize,
    /// Start of the `input` part's body, if the part was sent.
    pub input: Option<usize>,
    /// Body starts of the uniform parts, in the sorted order given to the runner.
    pub uniforms: &'a [usize],
    /// Length of the whole request.
    pub request_len: usize,
}

/// The rejection for a run failure (`memory-tools.md` 1.1: which offset each mode points at).
pub fn rejection(cause: &Cause, message: String, at: &PartOffsets<'_>) -> Rejection {
    let c = at.component;
    let offset = match *cause {
        Cause::Invalid { offset } => c + offset,
        Cause::Contract | Cause::Output | Cause::Limit => c,
        Cause::Uniform { index } => at.uniforms.get(index).copied().unwrap_or(c),
        Cause::Trap { offset } | Cause::Budget { offset } => c + offset as usize,
        Cause::Rejected { offset, .. } => match at.input {
            Some(i) => i + offset.unwrap_or(0) as usize,
            None => at.request_len,
        },
    };
    Rejection { offset: offset.min(at.request_len) as u32, mode: cause.mode(), message }
}
