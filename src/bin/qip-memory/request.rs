//! The request the tool subcommands (`page-writes`, `thermal`, `report`) send:
//! [`request_from_bytes`], the body of
//!
//! ```text
//! -F component=@target.wasm [-F input=TEXT] [-F uniforms[KEY]=VALUE]...
//! ```
//!
//! whatever the target's path and with the input's bytes as text.
//!
//! The subcommands pass it to the very library function the component runs, so their output is
//! byte-identical to the component's for the same request and uniforms, and a rejection carries
//! the same request offset and mode.

use std::path::{Path, PathBuf};

use qip_memory::tools::modes::BUDGET;
use qip_memory::tools::request::request_from_bytes;
use qip_memory::tools::{Rejection, explain};

use crate::{Failure, read_file};

/// The target input of the request.
pub enum Input {
    /// No `input` part (the target gets empty input).
    None,
    /// `--input TEXT`: `-F input=TEXT`.
    Text(String),
    /// `--input-file PATH`: `-F input=@PATH`.
    File(PathBuf),
}

impl Input {
    /// From the `--input` / `--input-file` options (clap keeps them exclusive).
    pub fn from_options(text: &Option<String>, file: &Option<PathBuf>) -> Input {
        match (text, file) {
            (Some(t), _) => Input::Text(t.clone()),
            (None, Some(p)) => Input::File(p.clone()),
            (None, None) => Input::None,
        }
    }
}

/// A target and what to send it.
pub struct Target<'a> {
    /// The target module.
    pub path: &'a Path,
    /// The target input.
    pub input: Input,
    /// `-u KEY=VALUE` target uniforms, in command-line order, unsplit.
    pub uniforms: &'a [String],
}

/// The bytes of a file argument; `-` reads stdin.
fn read(path: &Path) -> Result<Vec<u8>, Failure> {
    if path.as_os_str() == "-" { crate::read_stdin() } else { read_file(path) }
}

/// A request ready to send, with the target's bytes for explaining a rejection.
pub struct Request {
    /// The multipart body.
    pub body: Vec<u8>,
    /// The target module's bytes.
    pub target: Vec<u8>,
    /// The target's path as the user gave it (`-` for stdin), for the rejection line.
    pub path: String,
}

impl Target<'_> {
    /// The request: the target (its bytes, read and compiled by the caller) sent as the file
    /// `target.wasm` and the input as text, whatever their paths ([`request_from_bytes`]), so
    /// any file name works and the request offsets of a rejection depend on the bytes alone
    /// (they equal the component-model build's).
    ///
    /// # Errors
    /// A [`Failure`] naming an unreadable input file or a malformed `-u`.
    pub fn request_for(&self, target: Vec<u8>) -> Result<Request, Failure> {
        if self.path.as_os_str() == "-" && matches!(&self.input, Input::File(p) if p.as_os_str() == "-") {
            return Err(Failure::new("the target and --input-file cannot both be - (stdin)".into()));
        }
        let input = match &self.input {
            Input::None => None,
            Input::Text(t) => Some(t.clone().into_bytes()),
            Input::File(p) => Some(read(p)?),
        };
        let uniforms =
            self.uniforms.iter().map(|u| crate::split_uniform(u)).collect::<Result<Vec<_>, _>>()?;
        let body =
            request_from_bytes(&target, input.as_deref(), &uniforms).map_err(|r| Failure::new(r.message))?;
        Ok(Request { body, target, path: self.path.display().to_string() })
    }
}

/// The one-line failure for a tool's rejection of `req`: the target's path, the cause in the
/// target's terms ([`explain`]) and what to do about it (an exhausted budget says how to raise
/// it), then the request offset and mode as the Content component reports them. With
/// `stats`, the counters of a run that started go to stderr first, as after a success.
pub fn rejected(r: Rejection, req: &Request, stats: bool) -> Failure {
    if stats && let Some(counters) = r.stop.as_ref().and_then(|s| s.counters) {
        crate::print_counters(&counters);
    }
    let mut line = format!("{}: {}", req.path, explain(&r, &req.target));
    if r.mode == BUDGET.number {
        line.push_str(&format!(
            "; raise it with --instruction-budget N (at most {})",
            qip_memory::tools::page_writes::MAX_BUDGET
        ));
    }
    line.push_str(&format!(" (request offset {}, mode {})", r.offset, r.mode));
    Failure::new(line)
}

/// The `--instruction-budget` option as the uniform's value (its default without the option),
/// clamped to 1…1,000,000,000 like the component's setter; a clamped value is said on stderr
/// (one line), not applied silently.
pub fn budget(v: Option<u64>) -> u32 {
    let v = v.unwrap_or(u64::from(qip_memory::tools::page_writes::DEFAULT_BUDGET));
    let max = u64::from(qip_memory::tools::page_writes::MAX_BUDGET);
    let clamped = v.clamp(1, max);
    if clamped != v {
        let why = if v < 1 { "below the least, 1" } else { "above the most, 1000000000" };
        crate::out::stderr(&format!("qip-memory: --instruction-budget {v} is {why}: using {clamped}\n"));
    }
    // `clamped` ≤ 1,000,000,000 fits.
    u32::try_from(clamped).unwrap_or(u32::MAX)
}
