//! `qip-memory page-writes`: the page table CSV of `memory-tools.md` 2 without a Wasm host.
//!
//! The request is the multipart body `qip run -F` would build (`qip-content.md` A.10) for
//!
//! ```text
//! -F component=@TARGET [-F input=TEXT | -F input=@PATH] [-F uniforms[KEY]=VALUE]...
//! ```
//!
//! (fields in that order, uniforms in command-line order), and it goes through
//! [`page_writes`](qip_memory::tools::page_writes::page_writes) with the default content-type
//! slot: the very function the component runs, so the CSV is byte-identical to the
//! component's output for the same request and budget, and a rejection carries the same
//! request offset and mode.

use std::io::Write as _;
use std::path::{Path, PathBuf};

use qip_memory::content::form::{self, DEFAULT_BOUNDARY, DEFAULT_CONTENT_TYPE, FieldSource};
use qip_memory::tools::page_writes::page_writes;

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

/// What `page-writes` was asked to do.
pub struct Args<'a> {
    /// The target module.
    pub target: &'a Path,
    /// The target input.
    pub input: Input,
    /// `-u KEY=VALUE` target uniforms, in command-line order, unsplit.
    pub uniforms: &'a [String],
    /// The `instruction_budget` uniform of the component (clamped by the library to
    /// 1…1,000,000,000 like the uniform; values above `u32::MAX` saturate first).
    pub budget: u64,
    /// Print the counters to stderr.
    pub stats: bool,
}

/// The request body for `args` (A.10 with the default boundary).
pub fn request(args: &Args<'_>) -> Result<Vec<u8>, Failure> {
    let target = args.target.to_string_lossy().into_owned();
    let mut fields = vec![(
        "component".to_owned(),
        FieldSource::File { bytes: read_file(args.target)?, filename: target },
    )];
    match &args.input {
        Input::None => {}
        Input::Text(t) => fields.push(("input".to_owned(), FieldSource::Text(t.clone().into_bytes()))),
        Input::File(p) => fields.push((
            "input".to_owned(),
            FieldSource::File { bytes: read_file(p)?, filename: p.to_string_lossy().into_owned() },
        )),
    }
    for u in args.uniforms {
        let (key, value) = crate::split_uniform(u)?;
        fields.push((format!("uniforms[{key}]"), FieldSource::Text(value.as_bytes().to_vec())));
    }
    form::build_body(&fields, DEFAULT_BOUNDARY)
        .map_err(|e| Failure::new(format!("cannot build the request: {e}")))
}

/// Runs `page-writes`: CSV and a newline to stdout, counters to stderr with `--stats`.
pub fn main(args: &Args<'_>) -> Result<(), Failure> {
    let body = request(args)?;
    let budget = u32::try_from(args.budget).unwrap_or(u32::MAX);
    let out = page_writes(&body, DEFAULT_CONTENT_TYPE.as_bytes(), budget).map_err(|r| {
        Failure::new(format!("rejected at request offset {} (mode {}): {}", r.offset, r.mode, r.message))
    })?;
    let mut stdout = std::io::stdout().lock();
    stdout
        .write_all(out.csv.as_bytes())
        .and_then(|()| stdout.write_all(b"\n"))
        .and_then(|()| stdout.flush())
        .map_err(|e| Failure::new(format!("writing to stdout: {e}")))?;
    if args.stats {
        let mut stderr = std::io::stderr().lock();
        for (name, value) in out.counters.fields() {
            // Best effort, like eprintln!.
            let _ = writeln!(stderr, "{name} {value}");
        }
    }
    Ok(())
}
