//! The request the tool subcommands (`page-writes`, `thermal`) send:
//! [`qip_memory::tools::request_body`] for
//!
//! ```text
//! -F component=@TARGET [-F input=TEXT | -F input=@PATH] [-F uniforms[KEY]=VALUE]...
//! ```
//!
//! The subcommands pass it to the very library function the component runs, so their output is
//! byte-identical to the component's for the same request and uniforms, and a rejection carries
//! the same request offset and mode.

use std::path::{Path, PathBuf};

use qip_memory::content::form::{FieldSource, FormErrorKind};
use qip_memory::tools::request::unbuildable;
use qip_memory::tools::{Rejection, request_body};

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

/// `-F NAME=@PATH`: the file's bytes, sent with its name; `-` reads stdin (filename `-`, as
/// `qip run -F NAME=@-` sends it).
fn file(path: &Path) -> Result<FieldSource, Failure> {
    let bytes = if path.as_os_str() == "-" { crate::read_stdin()? } else { read_file(path)? };
    Ok(FieldSource::File { bytes, filename: path.to_string_lossy().into_owned() })
}

impl Target<'_> {
    /// The request body (A.10 with the default boundary).
    ///
    /// # Errors
    /// A [`Failure`] naming an unreadable file or a malformed `-u`.
    pub fn body(&self) -> Result<Vec<u8>, Failure> {
        if self.path.as_os_str() == "-" && matches!(&self.input, Input::File(p) if p.as_os_str() == "-") {
            return Err(Failure::new("the target and --input-file cannot both be - (stdin)".into()));
        }
        let component = file(self.path)?;
        let input = match &self.input {
            Input::None => None,
            Input::Text(t) => Some(FieldSource::Text(t.clone().into_bytes())),
            Input::File(p) => Some(file(p)?),
        };
        let uniforms =
            self.uniforms.iter().map(|u| crate::split_uniform(u)).collect::<Result<Vec<_>, _>>()?;
        request_body(component, input, &uniforms).map_err(|e| {
            // A file whose name cannot be a form filename: say which file and what to do.
            let file = match (e.field, &self.input) {
                (Some(0), _) => Some(self.path),
                (Some(1), Input::File(p)) => Some(p.as_path()),
                _ => None,
            };
            match (file, e.kind) {
                (Some(path), FormErrorKind::InvalidFilenameByte { .. } | FormErrorKind::EmptyFilename) => {
                    Failure::new(format!(
                        "cannot send {}: its file name goes into the request as the part's filename \
                         (qip-content.md A.10) and must be printable ASCII without '\"' or '\\'; \
                         rename or copy the file",
                        path.display()
                    ))
                }
                _ => Failure::new(unbuildable(e).message),
            }
        })
    }
}

/// The one-line failure for a tool's rejection: offset, mode and the cause.
pub fn rejected(r: Rejection) -> Failure {
    Failure::new(format!("rejected at request offset {} (mode {}): {}", r.offset, r.mode, r.message))
}

/// The `--instruction-budget` option as the uniform's value, clamped to 1…1,000,000,000 like
/// the component's setter; a clamped value is said on stderr (one line), not applied silently.
pub fn budget(v: u64) -> u32 {
    let max = u64::from(qip_memory::tools::page_writes::MAX_BUDGET);
    let clamped = v.clamp(1, max);
    if clamped != v {
        let why = if v < 1 { "below the least, 1" } else { "above the most, 1000000000" };
        crate::out::stderr(&format!("qip-memory: --instruction-budget {v} is {why}: using {clamped}\n"));
    }
    // `clamped` ≤ 1,000,000,000 fits.
    u32::try_from(clamped).unwrap_or(u32::MAX)
}
