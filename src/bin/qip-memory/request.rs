//! The request the tool subcommands (`page-writes`, `thermal`) send: the multipart body `qip
//! run -F` would build (`qip-content.md` A.10, default boundary) for
//!
//! ```text
//! -F component=@TARGET [-F input=TEXT | -F input=@PATH] [-F uniforms[KEY]=VALUE]...
//! ```
//!
//! (fields in that order, uniforms in command-line order). The subcommands pass it to the very
//! library function the component runs, so their output is byte-identical to the component's
//! for the same request and uniforms, and a rejection carries the same request offset and mode.

use std::path::{Path, PathBuf};

use qip_memory::content::form::{self, DEFAULT_BOUNDARY, FieldSource};
use qip_memory::tools::Rejection;

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

impl Target<'_> {
    /// The request body (A.10 with the default boundary).
    ///
    /// # Errors
    /// A [`Failure`] naming an unreadable file or a malformed `-u`.
    pub fn body(&self) -> Result<Vec<u8>, Failure> {
        let name = self.path.to_string_lossy().into_owned();
        let mut fields = vec![(
            "component".to_owned(),
            FieldSource::File { bytes: read_file(self.path)?, filename: name },
        )];
        match &self.input {
            Input::None => {}
            Input::Text(t) => fields.push(("input".to_owned(), FieldSource::Text(t.clone().into_bytes()))),
            Input::File(p) => fields.push((
                "input".to_owned(),
                FieldSource::File { bytes: read_file(p)?, filename: p.to_string_lossy().into_owned() },
            )),
        }
        for u in self.uniforms {
            let (key, value) = crate::split_uniform(u)?;
            fields.push((format!("uniforms[{key}]"), FieldSource::Text(value.as_bytes().to_vec())));
        }
        form::build_body(&fields, DEFAULT_BOUNDARY)
            .map_err(|e| Failure::new(format!("cannot build the request: {e}")))
    }
}

/// The one-line failure for a tool's rejection: offset, mode and the cause.
pub fn rejected(r: Rejection) -> Failure {
    Failure::new(format!("rejected at request offset {} (mode {}): {}", r.offset, r.mode, r.message))
}

/// Saturates a budget option to the uniform's `u32` (the library then clamps it to
/// 1…1,000,000,000 like the component's setter).
pub fn budget(v: u64) -> u32 {
    u32::try_from(v).unwrap_or(u32::MAX)
}
