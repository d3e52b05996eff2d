//! `qip-memory run`: a Content pipeline host that behaves like Go `qip run` for fixed-memory
//! components (docs/content.md).
//!
//! ```text
//! qip-memory run [-F NAME=VALUE | -F NAME=@PATH | -F NAME=<PATH]... [-i PATH]
//!                STAGE.wasm [-u KEY=VALUE]... [STAGE2.wasm [-u KEY=VALUE]...]... [-o PATH]
//! ```
//!
//! * Input: the `-F` fields built into one multipart body byte for byte as `qip run`
//!   (docs/request.md; by [`form::build_body`], default boundary), with content type
//!   `multipart/form-data;boundary=uuid-00000000-0000-0000-0000-000000000000`; or the bytes of
//!   `-i PATH` (`-` is stdin) with no content type; or, with neither, what is piped to stdin
//!   (as `qip run` reads it; nothing when stdin is a terminal) with no content type. `-F` and
//!   `-i` are mutually exclusive.
//! * Each stage gets a fresh instance ([`host`]): memory policy, contract, input, uniforms
//!   (`-u` after the stage they configure; repeated keys: the last wins; applied in sorted
//!   key order), `render`.
//! * Types between stages follow `qip run`: a declared input type must equal the tracked type (a
//!   multipart slot accepts any multipart slot type: the host copies the producer's UUID into
//!   the consumer's slot); an unspecified type is adopted by the first stage only.
//! * Output: the last stage's output; to stdout with one `\n` added when it declares UTF-8
//!   output (`output_utf8_cap`), verbatim otherwise; `-o PATH` writes the exact bytes, except
//!   that a `.png` path re-encodes an `image/ktx2` output as PNG (as `qip run` re-encodes for
//!   image extensions), so a heat-map pipeline ends in a PNG without QIP's converter.
//! * Limits as `qip run`'s ([`HostOptions`]): `--timeout-ms` per executed stage (default
//!   5,000), `--max-memory BYTES`, `--allow-memory-grow` (needs `--max-memory`); compiled
//!   modules cached unless `--no-cache`; `--timing` prints each stage's compile and run times.
//! * A stage that declares UTF-8 output (`output_utf8_cap`) and returns invalid UTF-8 is an
//!   error, as in the interpreter's wrapper (docs/content.md).
//! * Every error, rejection and trap ends the pipeline with exit status 1 and one line on
//!   stderr.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use qip_memory::content::form::{self, DEFAULT_BOUNDARY, DEFAULT_CONTENT_TYPE, FieldSource};
use qip_memory::content::multipart::{SLOT_LEN, SLOT_PREFIX, boundary_from_slot};
use std::time::Instant;

use crate::host::{self, Host, HostOptions, Running};
use crate::{Failure, read_file, split_uniform};

/// One stage of the pipeline and its uniforms.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StageArgs {
    /// The module's path.
    pub path: PathBuf,
    /// Its `-u` uniforms, last value per key.
    pub uniforms: BTreeMap<String, String>,
}

/// The parsed command line of `run`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunArgs {
    /// `-F` arguments, in order, unparsed.
    pub forms: Vec<String>,
    /// `-i PATH`.
    pub input: Option<PathBuf>,
    /// The stages, in order.
    pub stages: Vec<StageArgs>,
    /// `-o PATH`.
    pub output: Option<PathBuf>,
    /// The host's limits and cache.
    pub host: HostOptions,
    /// `--timing`.
    pub timing: bool,
}

/// The command line of `run` as clap reads it. The stages and their `-u` options are read
/// apart and put back together by their positions ([`RunCli::into_args`]): a `-u` configures
/// the stage before it, as in `qip run`.
#[derive(Debug, Clone, clap::Args)]
#[command(
    override_usage = "qip-memory run [-F NAME=VALUE | -F NAME=@PATH | -F NAME=<PATH]... [-i PATH]\n       \
                      STAGE.wasm [-u KEY=VALUE]... [STAGE.wasm [-u KEY=VALUE]...]... [-o PATH]"
)]
pub struct RunCli {
    /// A multipart field: text, @PATH (file, with its filename), <PATH (file); PATH - is stdin.
    /// The body is built byte for byte as `qip run -F` builds it.
    #[arg(short = 'F', long = "form", value_name = "NAME=VALUE", allow_hyphen_values = true)]
    pub forms: Vec<String>,
    /// The first stage's input bytes (- is stdin).
    #[arg(short = 'i', long = "input", value_name = "PATH", conflicts_with = "forms")]
    pub input: Option<PathBuf>,
    /// A uniform of the stage it follows.
    #[arg(short = 'u', long = "uniform", value_name = "KEY=VALUE", allow_hyphen_values = true)]
    pub uniforms: Vec<String>,
    /// Write the last stage's output to PATH (exact bytes; a .png path re-encodes an
    /// image/ktx2 output as PNG).
    #[arg(short = 'o', long = "output", value_name = "PATH")]
    pub output: Option<PathBuf>,
    /// Wall-clock limit of each stage's execution, in milliseconds.
    #[arg(long, value_name = "MS", default_value_t = crate::host::DEFAULT_TIMEOUT_MS,
          value_parser = clap::value_parser!(u64).range(1..))]
    pub timeout_ms: u64,
    /// Refuse a stage whose memory may exceed BYTES or declares no maximum.
    #[arg(long, value_name = "BYTES", value_parser = clap::value_parser!(u64).range(1..))]
    pub max_memory: Option<u64>,
    /// Allow memory.grow, up to the declared maximum.
    #[arg(long, requires = "max_memory")]
    pub allow_memory_grow: bool,
    /// Compile every stage anew (default: compiled modules are cached in
    /// $XDG_CACHE_HOME/qip-memory or ~/.cache/qip-memory).
    #[arg(long)]
    pub no_cache: bool,
    /// Print each stage's compile and run times to stderr.
    #[arg(long)]
    pub timing: bool,
    /// The stages, in pipeline order.
    #[arg(value_name = "STAGE.wasm", required = true)]
    pub stages: Vec<PathBuf>,
}

impl RunCli {
    /// The pipeline: each `-u` joined to the stage before it on the command line.
    /// `matches` are the `run` subcommand's (for the positions of stages and uniforms).
    ///
    /// # Errors
    /// A [`Failure`] for a `-u` before any stage or a `-u` that is not `KEY=VALUE`.
    pub fn into_args(self, matches: &clap::ArgMatches) -> Result<RunArgs, Failure> {
        let at = |id: &str| matches.indices_of(id).map(Iterator::collect::<Vec<usize>>).unwrap_or_default();
        let (stage_at, uniform_at) = (at("stages"), at("uniforms"));
        let mut stages: Vec<StageArgs> =
            self.stages.into_iter().map(|path| StageArgs { path, uniforms: BTreeMap::new() }).collect();
        for (u, position) in self.uniforms.iter().zip(uniform_at) {
            // The last stage given before this -u.
            let Some(stage) = stage_at.iter().rposition(|&s| s < position) else {
                return Err(Failure::new(format!("run: -u {u} must follow the stage it configures")));
            };
            let (key, text) = split_uniform(u)?;
            stages[stage].uniforms.insert(key.to_owned(), text.to_owned());
        }
        Ok(RunArgs {
            forms: self.forms,
            input: self.input,
            stages,
            output: self.output,
            host: HostOptions {
                timeout_ms: self.timeout_ms,
                max_memory: self.max_memory,
                allow_memory_grow: self.allow_memory_grow,
                cache: !self.no_cache,
            },
            timing: self.timing,
        })
    }
}

/// `s` with its control characters escaped (`\r`, `\n`, `\u{1b}`…), for one-line messages.
fn one_line(s: &str) -> String {
    s.chars().map(|c| if c.is_control() { c.escape_debug().to_string() } else { c.to_string() }).collect()
}

/// One `-F` argument as a form field: `NAME=text`, `NAME=@PATH`, `NAME=<PATH`, with
/// `-` as PATH for stdin (at most once per form).
///
/// # Errors
/// A [`Failure`] for a missing `=`, an empty name, an empty path, a second stdin field, or an
/// unreadable file.
pub fn form_field(arg: &str, stdin_used: &mut bool) -> Result<(String, FieldSource), Failure> {
    let bad = |why: &str| Failure::new(format!("-F {}: {why}", one_line(arg)));
    let Some((name, value)) = arg.split_once('=') else { return Err(bad("expected NAME=VALUE")) };
    if name.is_empty() {
        return Err(bad("empty field name"));
    }
    let mut file = |path: &str| -> Result<Vec<u8>, Failure> {
        if path.is_empty() {
            return Err(bad("empty path"));
        }
        if path == "-" {
            if std::mem::replace(stdin_used, true) {
                return Err(bad("only one field may read stdin"));
            }
            return crate::read_stdin();
        }
        read_file(std::path::Path::new(path))
    };
    let source = if let Some(path) = value.strip_prefix('@') {
        FieldSource::File { bytes: file(path)?, filename: path.to_owned() }
    } else if let Some(path) = value.strip_prefix('<') {
        FieldSource::Raw(file(path)?)
    } else {
        FieldSource::Text(value.as_bytes().to_vec())
    };
    Ok((name.to_owned(), source))
}

/// The `-F` body (default boundary).
///
/// # Errors
/// The first bad field (see [`form_field`]) or the builder's error, naming the argument.
pub fn form_body(forms: &[String]) -> Result<Vec<u8>, Failure> {
    let mut stdin_used = false;
    let fields = forms.iter().map(|f| form_field(f, &mut stdin_used)).collect::<Result<Vec<_>, _>>()?;
    form::build_body(&fields, DEFAULT_BOUNDARY).map_err(|e| {
        let given = e.field.and_then(|i| forms.get(i));
        let arg = given.map_or(String::new(), |a| format!("-F {}: ", one_line(a)));
        match e.kind {
            // `qip run` sends a file's name with `@PATH`; `<PATH` sends the bytes alone.
            form::FormErrorKind::InvalidFilenameByte { at, .. } => Failure::new(format!(
                "{arg}the file's name goes into the request and must be printable ASCII without '\"' \
                 or '\\' (byte {at} of the name is not); send the bytes without a name with {}",
                given
                    .and_then(|a| a.split_once("=@"))
                    .map_or("NAME=<PATH".into(), |(n, p)| format!("-F {n}=<{p}"))
            )),
            _ => Failure::new(format!("{arg}{e}")),
        }
    })
}

/// The content flowing between stages: bytes, tracked type (empty = unspecified) and
/// whether it is known to be UTF-8 (output of a `output_utf8_cap` stage).
struct Content {
    bytes: Vec<u8>,
    ty: String,
    utf8: bool,
}

/// Whether `t` is a multipart slot value with a canonical UUID.
fn is_slot(t: &str) -> bool {
    t.starts_with(std::str::from_utf8(SLOT_PREFIX).expect("ASCII"))
        && boundary_from_slot(t.as_bytes()).is_ok()
}

/// The canonical multipart string is kept as is; other types are lowercased with
/// their parameters stripped.
fn normalize(t: &str) -> String {
    if is_slot(t) {
        return t.to_owned();
    }
    t.split(';').next().unwrap_or("").trim().to_ascii_lowercase()
}

/// The bytes `-o PATH` writes: the output as it is, except that a `.png` path re-encodes an
/// `image/ktx2` output as PNG, as `qip run` re-encodes for image extensions. Other image
/// extensions cannot be re-encoded here and are refused unless the output already has that type.
///
/// # Errors
/// A [`Failure`] for an image extension whose type the output does not have and that we cannot
/// convert to, or a KTX2 output that is not 8-bit sRGB RGBA/BGRA.
fn for_file(path: &Path, bytes: Vec<u8>, ty: &str) -> Result<Vec<u8>, Failure> {
    let ext = path.extension().and_then(|e| e.to_str()).map(str::to_ascii_lowercase);
    let wanted = match ext.as_deref() {
        Some("png") => "image/png",
        Some("jpg" | "jpeg") => "image/jpeg",
        Some("bmp") => "image/bmp",
        _ => return Ok(bytes),
    };
    match ty {
        t if t == wanted => Ok(bytes),
        "image/ktx2" if wanted == "image/png" => crate::png::from_ktx2(&bytes),
        t => Err(Failure::new(format!(
            "-o {}: cannot re-encode output of type {} as {wanted}",
            path.display(),
            if t.is_empty() { "(unspecified)" } else { t }
        ))),
    }
}

/// Runs the pipeline and returns the last stage's output, its content type and whether it is
/// UTF-8.
///
/// # Errors
/// The first [`Failure`] of any stage (load, types, input, uniforms, trap, rejection, output).
fn pipeline(args: &RunArgs) -> Result<(Vec<u8>, String, bool), Failure> {
    let mut content = if !args.forms.is_empty() {
        Content { bytes: form_body(&args.forms)?, ty: DEFAULT_CONTENT_TYPE.to_owned(), utf8: false }
    } else {
        let bytes = match &args.input {
            Some(p) if p.as_os_str() == "-" => crate::read_stdin()?,
            Some(p) => read_file(p)?,
            // As `qip run`: input piped to stdin is the first stage's input; a terminal gives
            // none (nothing waits for typing).
            None if !std::io::IsTerminal::is_terminal(&std::io::stdin()) => crate::read_stdin()?,
            None => Vec::new(),
        };
        Content { bytes, ty: String::new(), utf8: false }
    };
    let host = Host::new(args.host.clone())?;
    for (index, stage) in args.stages.iter().enumerate() {
        let t0 = Instant::now();
        let cached_before = host.cache_use();
        let component = host::load(&host, &stage.path)?;
        let compiled = t0.elapsed();
        let name = &component.name;
        let c = &component.contract;
        let fail = |m: String| Failure::new(format!("{name}: {m}"));
        // A generator only as the first stage, with empty input.
        if c.input.is_none() && (index > 0 || !content.bytes.is_empty()) {
            return Err(fail(
                "is a generator (no input_ptr): it can only be the first stage, with empty input".into(),
            ));
        }
        // Steps 2–3: strict type checking.
        let mut effective = normalize(&content.ty);
        let mut uuid = None;
        if let Some(declared) = &c.input_content_type {
            if effective.is_empty() {
                if index > 0 {
                    return Err(fail(format!(
                        "expected {declared}, but the pipeline content type is unspecified"
                    )));
                }
                effective = declared.clone();
            } else if is_slot(declared) && is_slot(&effective) {
                // The host copies the producer's UUID into the consumer's slot.
                let theirs = &effective.as_bytes()[SLOT_PREFIX.len()..SLOT_LEN];
                if theirs != &declared.as_bytes()[SLOT_PREFIX.len()..SLOT_LEN] {
                    uuid = Some(<[u8; 36]>::try_from(theirs).expect("36 bytes"));
                }
            } else if &effective != declared {
                return Err(fail(format!("expected {declared}, got {effective}")));
            }
        }
        // Step 5: UTF-8 input is validated unless it is known UTF-8 output of the stage before.
        if let Some(i) = c.input
            && i.utf8
            && !content.utf8
            && let Err(e) = std::str::from_utf8(&content.bytes)
        {
            return Err(fail(format!(
                "input is not valid UTF-8 (first bad byte at offset {})",
                e.valid_up_to()
            )));
        }
        let t1 = Instant::now();
        let mut running = Running::new(&host, &component)?;
        if let Some(uuid) = &uuid {
            running.set_boundary_uuid(uuid)?;
        }
        running.write_input(&content.bytes)?;
        running.apply_uniforms(&stage.uniforms)?;
        let output = running.render(content.bytes.len())?;
        drop(running);
        // The contract's promise (docs/content.md), checked as the interpreter's wrapper checks
        // it, so that no stage after this one and no stdout receives invalid UTF-8.
        if c.output_utf8
            && let Err(e) = std::str::from_utf8(&output)
        {
            return Err(fail(format!(
                "output is not valid UTF-8 but the stage declares output_utf8_cap (first bad byte at \
                 output offset {})",
                e.valid_up_to()
            )));
        }
        if args.timing {
            let cache = match (cached_before, host.cache_use()) {
                (Some((hits, _)), Some((now, _))) if now > hits => "from the cache",
                (Some(_), Some(_)) => "compiled, cached",
                _ => "compiled, no cache",
            };
            crate::out::stderr(&format!(
                "{name}: compile {:.1} ms ({cache}), run {:.1} ms\n",
                compiled.as_secs_f64() * 1e3,
                t1.elapsed().as_secs_f64() * 1e3
            ));
        }
        // Step 4: the output type.
        let ty = match (&c.output_content_type, c.input) {
            (Some(t), _) => t.clone(),
            (None, None) => String::new(),
            (None, Some(i)) if c.output_utf8 && !i.utf8 => String::new(),
            (None, Some(_)) => effective,
        };
        content = Content { bytes: output, ty, utf8: c.output_utf8 };
    }
    Ok((content.bytes, content.ty, content.utf8))
}

/// Runs `qip-memory run` with its parsed arguments.
///
/// # Errors
/// A [`Failure`] from the pipeline, or from writing the output.
pub fn main(args: &RunArgs) -> Result<(), Failure> {
    let (bytes, ty, utf8) = pipeline(args)?;
    match &args.output {
        Some(path) => crate::out::files(&[(path, &for_file(path, bytes, &ty)?)]),
        None if utf8 => crate::out::stdout(&[&bytes[..], b"\n"].concat()),
        None => crate::out::stdout(&bytes),
    }
}
