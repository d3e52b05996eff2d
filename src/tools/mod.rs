//! The memory tools, end to end: request bytes in, output bytes or a rejection out. The
//! Content components and the CLI are thin front ends over these functions.
//!
//! * [`page_writes`]: `qip-interpret-memory-page-writes-csv.wasm` (docs/request.md,
//!   docs/page-table.md).
//! * [`thermal`]: `qip-interpret-memory-thermal-ktx2.wasm` (docs/request.md, docs/heat-map.md).
//! * [`modes`]: the table of rejection modes (docs/rejections.md).
//! * [`explain`](mod@explain): a rejection in the target's terms (function, module offset, budget used).
//! * [`heap`]: `assemblyscript-heap-analyzer-json.wasm` (docs/heap.md), with its own
//!   rejection mode table.
//! * [`request`]: the request front ends build from a target, an input and uniforms.
//! * `export` (feature `std`): a run's call tree and source lines as pprof's `profile.proto`
//!   and callgrind's text format (docs/report.md, "pprof and callgrind").

pub mod explain;
#[cfg(feature = "std")]
pub mod export;
pub mod heap;
pub mod modes;
pub mod page_writes;
pub mod report;
pub mod request;
pub mod thermal;

pub use explain::explain;
pub use modes::mode_description;
pub use request::request_body;

use alloc::boxed::Box;
use alloc::string::String;
use alloc::vec::Vec;

use crate::content::multipart;
use crate::content::run::{Cause, Failure, TargetUniform};
use crate::run::{Content, Run};
use crate::wasm::{Counters, Limits};

/// Our limits for targets (docs/limits.md): module 1 MiB, memory 192 MiB, and the
/// interpreter's defaults for frames and the value stack.
pub fn target_limits() -> Limits {
    Limits::default()
}

/// Largest target input we accept, in bytes (8 MiB, the reference's nominal limit).
pub const MAX_TARGET_INPUT: usize = 8 << 20;

/// A Content rejection of one of our tools: `detail = offset * 10 + mode`
/// (docs/rejections.md).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rejection {
    /// Byte offset in the request that points at the cause.
    pub offset: u32,
    /// The mode (0–9) of the table in docs/rejections.md.
    pub mode: u32,
    /// One line in English saying what went wrong.
    pub message: String,
    /// Where the target was when it stopped, for front ends that explain the rejection in the
    /// module's terms ([`explain()`]); `None` when the target did not run.
    pub stop: Option<Box<Stop>>,
}

/// What the request encoding of a rejection leaves out: the typed cause, the function the run
/// stopped in and how far it got.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stop {
    /// The cause with its module or input offset; `None` for a run that finished but left
    /// nothing to report (mode 8).
    pub cause: Option<Cause>,
    /// The function (index, imports first) holding the trapping instruction, the next
    /// instruction of an exhausted budget or the call past the stack limit.
    pub function: Option<u32>,
    /// The counters when the run stopped (setters and render together); `None` when the
    /// target never ran.
    pub counters: Option<Counters>,
    /// The run's instruction budget.
    pub budget: u32,
}

/// Failure modes per input offset exported by our tools.
pub const FAILURE_MODES: u32 = 10;

impl Rejection {
    /// A rejection without a [`Stop`]: the target did not run.
    pub fn new(offset: u32, mode: u32, message: String) -> Rejection {
        Rejection { offset, mode, message, stop: None }
    }

    /// The 32-bit failure detail: `offset * 10 + mode`.
    pub fn detail(&self) -> u32 {
        self.offset * FAILURE_MODES + self.mode
    }

    /// The 64-bit `render` result of this rejection (bit 63 set, docs/content.md).
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

/// The rejection for a run failure (docs/rejections.md: which offset each mode points at).
pub fn rejection(failure: Failure, budget: u32, at: &PartOffsets<'_>) -> Rejection {
    let cause = &failure.cause;
    let c = at.component;
    let offset = match *cause {
        Cause::Invalid { offset } => c + offset,
        Cause::Contract | Cause::Output | Cause::Limit | Cause::Unresolved | Cause::Entry | Cause::Setup => c,
        Cause::NothingToReport => at.request_len,
        Cause::Uniform { index } => at.uniforms.get(index).copied().unwrap_or(c),
        Cause::Trap { offset, .. } | Cause::Budget { offset } => c + offset as usize,
        Cause::Rejected { offset, .. } => match at.input {
            Some(i) => i + offset.unwrap_or(0) as usize,
            None => at.request_len,
        },
    };
    Rejection {
        offset: offset.min(at.request_len) as u32,
        mode: modes::of(cause),
        stop: Some(Box::new(Stop {
            cause: Some(failure.cause.clone()),
            function: failure.function,
            counters: failure.counters.map(|c| *c),
            budget,
        })),
        message: failure.message,
    }
}

/// A parsed request (docs/request.md): the parts the runner needs and where they start.
#[derive(Debug)]
pub struct Request<'a> {
    /// The target module.
    pub component: &'a [u8],
    /// The target's input (empty without an `input` part).
    pub input: &'a [u8],
    /// Target uniforms in sorted key order.
    pub uniforms: Vec<TargetUniform<'a>>,
    component_offset: usize,
    input_offset: Option<usize>,
    uniform_offsets: Vec<usize>,
    request_len: usize,
}

impl<'a> Request<'a> {
    /// Parses `request` (`content_type`: the 70-byte multipart slot as the host left it) and
    /// checks our input limit.
    ///
    /// # Errors
    /// Mode 0 for a malformed request, mode 9 for an input above [`MAX_TARGET_INPUT`].
    pub fn parse(request: &'a [u8], content_type: &[u8]) -> Result<Request<'a>, Rejection> {
        let req = multipart::parse(request, content_type).map_err(|e| {
            Rejection::new(
                e.offset.min(request.len()) as u32,
                modes::MALFORMED.number,
                reason!("malformed multipart request: {}", multipart::describe(e.kind)),
            )
        })?;
        let (input, input_offset) = match &req.input {
            Some(p) => (p.bytes, Some(p.offset)),
            None => (&[][..], None),
        };
        if input.len() > MAX_TARGET_INPUT {
            return Err(Rejection::new(
                input_offset.unwrap_or(0) as u32,
                modes::LIMIT.number,
                reason!(
                    "target input of {} bytes exceeds our limit of {MAX_TARGET_INPUT} bytes",
                    input.len()
                ),
            ));
        }
        Ok(Request {
            component: req.component.bytes,
            input,
            uniforms: req.uniforms.iter().map(|u| TargetUniform { key: u.key, value: u.value }).collect(),
            component_offset: req.component.offset,
            input_offset,
            uniform_offsets: req.uniforms.iter().map(|u| u.value_offset).collect(),
            request_len: request.len(),
        })
    }

    /// Length of the whole request in bytes (the offset of mode 8).
    pub fn len(&self) -> usize {
        self.request_len
    }

    /// Whether the request is empty (it never is once parsed).
    pub fn is_empty(&self) -> bool {
        self.request_len == 0
    }

    /// The Content run the request asks for: the target, its input and uniforms, with at
    /// most `budget` instructions for setters and render (docs/request.md, "The run").
    pub fn content_run(&self, budget: u32) -> Run<'a> {
        let content = Content { module: self.component, input: self.input, uniforms: self.uniforms.clone() };
        Run { limits: target_limits(), ..Run::content(content, u64::from(budget)) }
    }

    /// The [`Rejection`] of a failure of [`Request::content_run`]'s run, with the request
    /// offsets of docs/rejections.md.
    pub fn rejection(&self, failure: Failure, budget: u32) -> Rejection {
        let at = PartOffsets {
            component: self.component_offset,
            input: self.input_offset,
            uniforms: &self.uniform_offsets,
            request_len: self.request_len,
        };
        rejection(failure, budget, &at)
    }
}
