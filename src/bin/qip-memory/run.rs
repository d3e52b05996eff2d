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
//!   `-i PATH` (`-` is stdin) with no content type; or, with neither, empty input with no
//!   content type. `-F` and `-i` are mutually exclusive.
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
//! * Every error, rejection and trap ends the pipeline with exit status 1 and one line on
//!   stderr.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use qip_memory::content::form::{self, DEFAULT_BOUNDARY, DEFAULT_CONTENT_TYPE, FieldSource};
use qip_memory::content::multipart::{SLOT_LEN, SLOT_PREFIX, boundary_from_slot};
use std::time::Instant;

use crate::host::{self, Host, HostOptions, Running};
use crate::{Failure, read_file, split_uniform};

/// Usage text of `qip-memory run` (also shown for `-h`/`--help`).
pub const USAGE: &str = "\
Usage: qip-memory run [-F NAME=VALUE | -F NAME=@PATH | -F NAME=<PATH]... [-i PATH]
                      STAGE.wasm [-u KEY=VALUE]... [STAGE.wasm [-u KEY=VALUE]...]... [-o PATH]

Runs QIP Content components as a pipeline on wasmtime, like `qip run`.

Options:
  -F, --form NAME=VALUE     a multipart field: text, @PATH (file, with filename), <PATH (file);
                            PATH - is stdin; the body is built byte for byte as `qip run -F`
  -i, --input PATH          the first stage's input bytes (- is stdin); not with -F
  -u, --uniform KEY=VALUE   a uniform of the stage it follows
  -o, --output PATH         write the last stage's output to PATH (exact bytes; a .png
                            path re-encodes an image/ktx2 output as PNG)
      --timeout-ms MS       wall-clock limit of each stage's execution (default 5000)
      --max-memory BYTES    refuse a stage whose memory may exceed BYTES or declares no maximum
      --allow-memory-grow   allow memory.grow (requires --max-memory)
      --no-cache            compile every stage anew (default: compiled modules are cached in
                            $XDG_CACHE_HOME/qip-memory or ~/.cache/qip-memory)
      --timing              print each stage's compile and run times to stderr
  -h, --help                this text";

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

/// A positive integer option value.
fn positive(flag: &str, v: &str) -> Result<u64, Failure> {
    match v.parse::<u64>() {
        Ok(n) if n > 0 => Ok(n),
        _ => Err(Failure::new(format!("run: {flag} {v}: expected a positive integer"))),
    }
}

/// Parses `run`'s arguments (everything after `run`); `Ok(None)` for `-h`/`--help`.
///
/// # Errors
/// A [`Failure`] for a missing option value, an unknown option, `-u` before any stage, a
/// repeated `-i`/`-o`, `-F` together with `-i`, a limit that is not a positive integer,
/// `--allow-memory-grow` without `--max-memory`, or no stage at all.
pub fn parse_args(args: &[String]) -> Result<Option<RunArgs>, Failure> {
    let mut out = RunArgs {
        forms: Vec::new(),
        input: None,
        stages: Vec::new(),
        output: None,
        host: HostOptions::default(),
        timing: false,
    };
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        let mut value = |flag: &str| {
            it.next()
                .cloned()
                .ok_or_else(|| Failure::new(format!("run: {flag} needs a value (see qip-memory run --help)")))
        };
        match arg.as_str() {
            "--timeout-ms" => out.host.timeout_ms = positive(arg, &value(arg)?)?,
            "--max-memory" => out.host.max_memory = Some(positive(arg, &value(arg)?)?),
            "--allow-memory-grow" => out.host.allow_memory_grow = true,
            "--no-cache" => out.host.cache = false,
            "--timing" => out.timing = true,
            s if s.starts_with("--timeout-ms=") => {
                out.host.timeout_ms = positive("--timeout-ms", &s["--timeout-ms=".len()..])?
            }
            s if s.starts_with("--max-memory=") => {
                out.host.max_memory = Some(positive("--max-memory", &s["--max-memory=".len()..])?)
            }
            "-h" | "--help" => return Ok(None),
            "-F" | "--form" => out.forms.push(value(arg)?),
            "-i" | "--input" => {
                if out.input.replace(PathBuf::from(value(arg)?)).is_some() {
                    return Err(Failure::new("run: -i given more than once".into()));
                }
            }
            "-o" | "--output" => {
                if out.output.replace(PathBuf::from(value(arg)?)).is_some() {
                    return Err(Failure::new("run: -o given more than once".into()));
                }
            }
            "-u" | "--uniform" => {
                let v = value(arg)?;
                let Some(stage) = out.stages.last_mut() else {
                    return Err(Failure::new(format!("run: -u {v} must follow the stage it configures")));
                };
                let (key, text) = split_uniform(&v)?;
                stage.uniforms.insert(key.to_owned(), text.to_owned());
            }
            s if s.starts_with("--form=") => out.forms.push(s["--form=".len()..].to_owned()),
            s if s.starts_with('-') && s != "-" => {
                return Err(Failure::new(format!("run: unknown option {s} (see qip-memory run --help)")));
            }
            path => out.stages.push(StageArgs { path: PathBuf::from(path), uniforms: BTreeMap::new() }),
        }
    }
    if !out.forms.is_empty() && out.input.is_some() {
        return Err(Failure::new("run: -F and -i are mutually exclusive".into()));
    }
    if out.host.allow_memory_grow && out.host.max_memory.is_none() {
        return Err(Failure::new("run: --allow-memory-grow requires --max-memory".into()));
    }
    if out.stages.is_empty() {
        return Err(Failure::new("run: no stage given (see qip-memory run --help)".into()));
    }
    Ok(Some(out))
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
        let arg =
            e.field.and_then(|i| forms.get(i)).map_or(String::new(), |a| format!("-F {}: ", one_line(a)));
        Failure::new(format!("{arg}{e}"))
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
