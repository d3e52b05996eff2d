//! The program a target-running subcommand (`count`, `page-writes`, `thermal`, `report`) runs
//! (docs/programs.md): a QIP Content target, a WASI command, or any module's export, read from
//! a binary `.wasm` or a text `.wat`/`.wast` file, its kind found from its exports
//! ([`qip_memory::run::kind`]) or named with `--kind`/`--invoke`.
//!
//! * A Content target is sent as the request `-F component=@target.wasm [-F input=…]
//!   [-F uniforms[KEY]=VALUE]...` ([`crate::request`]) and run through it, so that its outputs
//!   and rejection offsets are the component's by construction.
//! * A program is built as a [`Run`] directly: WASI preview 1 with `--dir HOST::GUEST`,
//!   `--env KEY=VALUE`, `--stdin FILE`, `--seed N` and the arguments after `--` (`argv[0]` is the
//!   file's name, as wasmtime gives it), `--stub MODULE.NAME=zero|trap` for other imports,
//!   `--invoke NAME --arg TYPE:VALUE...` for an export other than `_start`.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use qip_memory::run::{self, Detected, Imports, Kind, Run, Stub, StubAction};
use qip_memory::wasm::{Limits, Module};

use crate::Failure;

/// `--kind`: what to run the module as, when its exports do not say or say two things.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum KindArg {
    /// A QIP Content target (`render`).
    Content,
    /// A WASI command (`_start`).
    Command,
    /// A module's export (`--invoke NAME`).
    Module,
}

/// The largest module the CLI loads by default, in bytes (64 MiB; the Content components keep
/// 1 MiB, docs/limits.md).
pub const DEFAULT_MAX_MODULE_SIZE: usize = 64 << 20;

/// The target, its inputs and the run's bounds, shared by the target-running subcommands.
#[derive(clap::Args, Debug)]
pub struct TargetArgs {
    /// The program: a Content component, a WASI command or any module (binary .wasm, or text
    /// .wat or a .wast holding one module).
    pub target: PathBuf,
    /// A Content target's input, sent as `-F input=TEXT`.
    #[arg(long, allow_hyphen_values = true, conflicts_with = "input_file", help_heading = "Content targets")]
    pub input: Option<String>,
    /// A Content target's input from a file, sent as `-F input=@PATH` (`-`: stdin).
    #[arg(long, value_name = "PATH", help_heading = "Content targets")]
    pub input_file: Option<PathBuf>,
    /// A Content target's uniform, sent as `-F uniforms[KEY]=VALUE`; repeatable.
    #[arg(
        short = 'u',
        long = "uniform",
        value_name = "KEY=VALUE",
        allow_hyphen_values = true,
        help_heading = "Content targets"
    )]
    pub uniforms: Vec<String>,
    /// Grant the program the host directory HOST as GUEST (wasmtime's syntax; `--dir HOST`
    /// grants it as HOST); repeatable.
    #[arg(long = "dir", value_name = "HOST::GUEST", help_heading = "Programs")]
    pub dirs: Vec<String>,
    /// Give the program the environment variable KEY (`--env KEY` takes our value); the
    /// program sees no other; repeatable.
    #[arg(long = "env", value_name = "KEY=VALUE", help_heading = "Programs")]
    pub env: Vec<String>,
    /// The program's standard input from FILE (default: ours).
    #[arg(long, value_name = "FILE", help_heading = "Programs")]
    pub stdin: Option<PathBuf>,
    /// The seed of the program's random_get (the same seed gives the same bytes).
    #[arg(long, default_value_t = 0, help_heading = "Programs")]
    pub seed: u64,
    /// Call this export instead of `_start` (after `_initialize` when the module exports one).
    #[arg(long, value_name = "NAME", help_heading = "Programs")]
    pub invoke: Option<String>,
    /// An argument of `--invoke`, a text-format constant `TYPE:VALUE` (`i32:0x10`, `f64:1.5`,
    /// `v128:i32x4 1 2 3 4`); repeat in parameter order.
    #[arg(long = "arg", value_name = "TYPE:VALUE", allow_hyphen_values = true, help_heading = "Programs")]
    pub args: Vec<String>,
    /// Provide imports that are neither WASI nor Content with a stub: `zero` returns zeros,
    /// `trap` traps naming the import; `*` in the pattern matches any characters
    /// (`--stub 'env.*=trap'`); repeatable, first match wins.
    #[arg(long = "stub", value_name = "MODULE.NAME=zero|trap", help_heading = "Programs")]
    pub stubs: Vec<String>,
    /// Run the module as this kind when its exports do not decide (both `_start` and
    /// `render`) or say otherwise.
    #[arg(long, value_enum)]
    pub kind: Option<KindArg>,
    /// Most instructions to execute. A Content target: its setters and render (default
    /// 1000000, clamped to 1..=1000000000, the component's uniform); a program: everything it
    /// executes (default: no limit).
    #[arg(long, value_name = "N")]
    pub instruction_budget: Option<u64>,
    /// The largest module to load, in bytes.
    #[arg(long, value_name = "BYTES", default_value_t = DEFAULT_MAX_MODULE_SIZE)]
    pub max_module_size: usize,
    /// The program's arguments (after `--`); `argv[0]` is the module's file name.
    #[arg(last = true, value_name = "ARGS")]
    pub program_args: Vec<String>,
}

/// A loaded target: its bytes, its module and what to run it as.
pub struct Loaded {
    /// The path as the user gave it, for messages.
    pub path: String,
    /// The module's binary bytes (text compiled).
    pub bytes: Vec<u8>,
    /// The loaded module; `None` for a module that does not load and is run as a Content
    /// target (its request then rejects it with mode 1 and the offset, as the component does).
    pub module: Option<Arc<Module>>,
    /// What to run.
    pub kind: Kind,
    /// The export it calls: `_start`, `--invoke`'s, `render` for a Content target.
    pub entry: String,
}

impl Loaded {
    /// Whether the program links WASI: it then owns stdout and stderr, and our own output
    /// goes to stderr or to files.
    pub fn owns_stdio(&self) -> bool {
        self.kind != Kind::Content && self.module.as_deref().is_some_and(run::kind::imports_wasi)
    }
}

/// The module's bytes: a binary file as it is, a text one compiled (errors as
/// `FILE:LINE:COL: message`).
///
/// # Errors
/// A [`Failure`] naming the file: unreadable, or text that does not compile.
pub fn read_module(wasm: &Path) -> Result<Vec<u8>, Failure> {
    let file = if wasm.as_os_str() == "-" { crate::read_stdin()? } else { crate::read_file(wasm)? };
    // Text (a .wat/.wast name, or UTF-8 that opens with `(` or a comment) is compiled, its
    // errors giving line and column; anything else is read as binary.
    let named_text = wasm.extension().and_then(|e| e.to_str()).is_some_and(|e| ["wat", "wast"].contains(&e));
    let looks_text = std::str::from_utf8(&file).is_ok_and(|t| t.trim_start().starts_with(['(', ';']));
    if !(named_text || looks_text) {
        return Ok(file);
    }
    let bytes = wat::Parser::new().parse_bytes(Some(wasm), &file).map_err(|e| {
        // wat's message, then ` --> FILE:LINE:COL` and a snippet: one line as
        // `FILE:LINE:COL: message`, as compilers print it.
        let e = e.to_string();
        let message = e.lines().next().unwrap_or_default();
        match e.lines().find_map(|l| l.trim_start().strip_prefix("--> ")) {
            Some(at) => format!("{at}: {message}"),
            None => format!("{}: {}", wasm.display(), e.split_whitespace().collect::<Vec<_>>().join(" ")),
        }
    })?;
    Ok(bytes.into_owned())
}

/// `module of N bytes is above the limit …` with what to do about it: a debug build is
/// usually the cause, and its debug sections are most of its size.
fn too_large(path: &str, size: usize, limit: usize) -> Failure {
    Failure::new(format!(
        "{path}: the module is {size} bytes, above the limit of {limit} bytes: build it with --release, or \
         strip its debug sections (wasm-tools strip), or raise the limit with --max-module-size BYTES"
    ))
}

impl TargetArgs {
    /// The interpreter's limits with `--max-module-size`.
    pub fn limits(&self) -> Limits {
        Limits::default().with_max_module_bytes(self.max_module_size)
    }

    /// Whether any option for Content targets was given.
    fn content_options(&self) -> Option<&'static str> {
        if self.input.is_some() {
            Some("--input")
        } else if self.input_file.is_some() {
            Some("--input-file")
        } else if !self.uniforms.is_empty() {
            Some("-u")
        } else {
            None
        }
    }

    /// Whether any option for programs was given.
    fn program_options(&self) -> Option<&'static str> {
        if !self.dirs.is_empty() {
            Some("--dir")
        } else if !self.env.is_empty() {
            Some("--env")
        } else if self.stdin.is_some() {
            Some("--stdin")
        } else if self.invoke.is_some() {
            Some("--invoke")
        } else if !self.args.is_empty() {
            Some("--arg")
        } else if !self.stubs.is_empty() {
            Some("--stub")
        } else if !self.program_args.is_empty() {
            Some("-- ARGS")
        } else {
            None
        }
    }

    /// Reads and loads the target and decides what to run it as.
    ///
    /// # Errors
    /// A [`Failure`] naming the file: unreadable, too large (with what to do), invalid (with
    /// the module offset), a kind its exports do not say, options of the other kind.
    pub fn load(&self) -> Result<Loaded, Failure> {
        self.load_or(None)
    }

    /// [`TargetArgs::load`], calling the export `default` when the module is neither a
    /// command nor a Content target, exports it, and no `--invoke` was given (`count`'s
    /// `run`).
    ///
    /// # Errors
    /// As [`TargetArgs::load`].
    pub fn load_or(&self, default: Option<&str>) -> Result<Loaded, Failure> {
        let path = self.target.display().to_string();
        let stdin = |p: &Option<PathBuf>| p.as_ref().is_some_and(|p| p.as_os_str() == "-");
        if self.target.as_os_str() == "-" && stdin(&self.input_file) {
            return Err(Failure::new("the target and --input-file cannot both be - (stdin)".into()));
        }
        let bytes = read_module(&self.target)?;
        if bytes.len() > self.max_module_size {
            return Err(too_large(&path, bytes.len(), self.max_module_size));
        }
        let module = match Module::new(&bytes, &self.limits()) {
            Ok(m) => m,
            // Without options of a program, a module that does not load is taken for a Content
            // target, as the CLI always did: its request is rejected (mode 1, the offset in
            // the request) exactly as the component rejects it.
            Err(_)
                if self.program_options().is_none() && matches!(self.kind, None | Some(KindArg::Content)) =>
            {
                let entry = "render".to_owned();
                return Ok(Loaded { path, bytes, module: None, kind: Kind::Content, entry });
            }
            Err(e) => return Err(Failure::new(format!("{path}: {e}"))),
        };
        let mut invoke = self.invoke.clone();
        let kind = match (self.kind, &self.invoke) {
            (Some(KindArg::Content), _) => Kind::Content,
            (Some(KindArg::Command), _) => Kind::Command,
            (Some(KindArg::Module), _) | (None, Some(_)) => Kind::Module,
            (None, None) => match run::kind::detect(&module) {
                Detected::Kind(k) => k,
                Detected::Ambiguous => {
                    return Err(Failure::new(format!(
                        "{path}: the module exports both _start and render: run it as a WASI command with \
                         --kind command, or as a Content target with --kind content"
                    )));
                }
                Detected::Unknown if default.is_some_and(|d| module.exported_func(d).is_some()) => {
                    invoke = default.map(str::to_owned);
                    Kind::Module
                }
                Detected::Unknown => {
                    return Err(Failure::new(format!(
                        "{path}: neither a WASI command (no _start) nor a Content target (no render): name \
                         the export to run with --invoke NAME ({})",
                        run::exported_functions(&module)
                    )));
                }
            },
        };
        let (wrong, kind_name) = match kind {
            Kind::Content => (self.program_options(), "a Content target"),
            _ => (self.content_options(), "a program, not a Content target"),
        };
        if let Some(option) = wrong {
            return Err(Failure::new(format!(
                "{path}: {option} does not apply: the module runs as {kind_name}"
            )));
        }
        if kind == Kind::Command && !self.args.is_empty() {
            return Err(Failure::new(format!(
                "{path}: --arg needs --invoke NAME (a command's _start takes none)"
            )));
        }
        if kind == Kind::Module && invoke.is_none() {
            return Err(Failure::new(format!(
                "{path}: --kind module needs --invoke NAME ({})",
                run::exported_functions(&module)
            )));
        }
        let entry = match kind {
            Kind::Content => "render".to_owned(),
            Kind::Command => "_start".to_owned(),
            Kind::Module => invoke.unwrap_or_default(),
        };
        Ok(Loaded { path, bytes, module: Some(Arc::new(module)), kind, entry })
    }

    /// The Content target's request ([`crate::request`]).
    ///
    /// # Errors
    /// As [`crate::request::Target::request`].
    pub fn request(&self, loaded: &Loaded) -> Result<crate::request::Request, Failure> {
        let target = crate::request::Target {
            path: &self.target,
            input: crate::request::Input::from_options(&self.input, &self.input_file),
            uniforms: &self.uniforms,
        };
        target.request_for(loaded.bytes.clone())
    }

    /// The stubs of `--stub`.
    fn stubs(&self) -> Result<Vec<Stub>, Failure> {
        self.stubs
            .iter()
            .map(|s| {
                let bad =
                    || Failure::new(format!("--stub {s}: expected MODULE.NAME=zero or MODULE.NAME=trap"));
                let (pattern, action) = s.rsplit_once('=').ok_or_else(bad)?;
                let action = match action {
                    "zero" => StubAction::Zero,
                    "trap" => StubAction::Trap,
                    _ => return Err(bad()),
                };
                if pattern.is_empty() {
                    return Err(bad());
                }
                Ok(Stub { pattern: pattern.to_owned(), action })
            })
            .collect()
    }

    /// The arguments of `--arg`.
    fn invoke_args(&self) -> Result<Vec<qip_memory::wasm::Value>, Failure> {
        self.args.iter().map(|a| crate::count::parse_arg(a).map_err(Failure::new)).collect()
    }

    /// The program's run: its kind's entry, WASI when it imports it, the stubs.
    ///
    /// # Errors
    /// A [`Failure`] for a malformed `--stub`, `--arg`, `--dir` or `--env`, or an unreadable
    /// `--stdin` file.
    pub fn program<'a>(&self, loaded: &'a Loaded) -> Result<Run<'a>, Failure> {
        let module = loaded.module.clone().expect("a program's module loaded");
        let mut imports = Imports { stubs: self.stubs()?, ..Imports::default() };
        if run::kind::imports_wasi(&module) || loaded.kind == Kind::Command {
            imports.wasi = Some(crate::wasi_config::config(self, &loaded.path)?);
        }
        let program = match loaded.kind {
            Kind::Command => {
                run::Program::Command(run::Command { module: &loaded.bytes, loaded: Some(module), imports })
            }
            _ => run::Program::Invoke(run::Invoke {
                module: &loaded.bytes,
                loaded: Some(module),
                export: loaded.entry.clone(),
                args: self.invoke_args()?,
                imports,
            }),
        };
        Ok(Run { program, budget: self.instruction_budget, limits: self.limits() })
    }
}

/// What ends the command after a program ran (and its analysis, if any, was written):
/// nothing for a program that exited with 0 or returned; its exit code for one that exited
/// otherwise (the low 8 bits, as the operating system passes them on), as `perf stat` and
/// valgrind pass it on; for one that trapped or ran out of budget, one line saying where,
/// in the entry's name (`_start` or `--invoke`'s), with status 1. `analysis`: the command
/// wrote an analysis of the run, which the line then says covers the run up to there.
///
/// # Errors
/// The [`Failure`] carrying that status (and line).
pub fn conclude(loaded: &Loaded, finished: &run::Finished, analysis: bool) -> Result<(), Failure> {
    let entry = &loaded.entry;
    use qip_memory::run::{Cause, End};
    let path = &loaded.path;
    let f = match &finished.end {
        End::Exit(0) | End::Return(_) | End::Output { .. } => return Ok(()),
        End::Exit(code) => return Err(Failure::status((*code & 0xff) as u8)),
        End::Stopped(f) => f,
    };
    let within = match f.function {
        Some(i) => format!(" in {}", qip_memory::tools::explain::function_name(&loaded.bytes, i)),
        None => String::new(),
    };
    let n = finished.counters.instructions;
    let covered = if analysis { "; the analysis covers the run up to there" } else { "" };
    let line = match f.cause {
        Cause::Budget { offset } => format!(
            "{path}: {entry}: instruction budget of {n} instructions exhausted{within} (next instruction at \
             module offset 0x{offset:x}); raise it with --instruction-budget N{covered}"
        ),
        Cause::Trap { offset, kind } if f.message.starts_with("the stub for ") => {
            let stub = f.message.split(" at module offset").next().unwrap_or(&f.message);
            format!(
                "{path}: {entry}: trapped{within} at module offset 0x{offset:x}: {stub} ({kind}), after {n} instructions{covered}"
            )
        }
        Cause::Trap { offset, kind } => {
            let exports = loaded.module.as_ref().map_or(&[][..], |m| m.exports());
            let kind = qip_memory::tools::explain::trap_kind(kind, exports);
            format!(
                "{path}: {entry}: trapped{within} at module offset 0x{offset:x}: {kind}, after {n} instructions{covered}"
            )
        }
        _ => format!("{path}: {entry}: {}{within}{covered}", f.message),
    };
    Err(Failure::new(line))
}

/// The one-line failure for a program's run that could not start: the path, the reason, and
/// for unresolved imports the flag that resolves them.
pub fn failed(loaded: &Loaded, f: run::Failure) -> Failure {
    use qip_memory::run::Cause;
    let hint = match f.cause {
        Cause::Unresolved => {
            "; provide them with --stub MODULE.NAME=zero|trap (`*` matches any characters: --stub 'env.*=trap')"
        }
        _ => "",
    };
    Failure::new(format!("{}: {}{hint}", loaded.path, f.message))
}
