//! `qip-memory heap analyze|diff|dominators|retainers|snapshot|capture` over `qip_memory::heap` (docs/heap.md,
//! "Command line"). `analyze` and `diff` are WARPO's `as-heap-analyzer analyze|diff`: same
//! flags, defaults, processing order and exit status 1; the JSON and a newline on stdout. As
//! with WARPO's option parser, a repeated option takes its last value, and `heap -v` / `heap
//! --version` prints the version. Messages: WARPO's, with the file they are about named first
//! (and `qip-memory: ` before them, from `main`); invoked as `as-heap-analyzer`, WARPO's alone
//! ([`Mode`]). Beyond WARPO, a dump cut short or of another module is refused ([`checked`]).

use std::path::{Path, PathBuf};

use clap::{Args, Subcommand};

use crate::{Failure, out};
use qip_memory::heap::{
    self, ComparisonSort, ConstructorSort, HeapError, comparison_json, parse_top, retainers::Target,
    snapshot_json,
};

/// `qip-memory heap`: the version flag, or a subcommand.
#[derive(Args)]
pub struct HeapArgs {
    /// Print the version and exit.
    #[arg(short = 'v', long = "version")]
    pub version: bool,
    /// What to do.
    #[command(subcommand)]
    pub command: Option<HeapCommand>,
}

/// The `heap` subcommands.
#[derive(Subcommand)]
pub enum HeapCommand {
    /// Constructor view of one dump: live objects grouped by class, with shallow and retained
    /// sizes (JSON).
    #[command(args_override_self = true)]
    Analyze {
        /// The version-2 memory dump.
        #[arg(value_name = "DUMP")]
        dump: PathBuf,
        /// The wasm binary: with WARPO-shaped DWARF (debug_abbrev, debug_info, debug_str), or
        /// built with `asc --debug` (its runtime's visitors are run instead).
        #[arg(long, value_name = "WASM")]
        wasm: PathBuf,
        /// Row order: retained, shallow or count.
        #[arg(long, default_value = "retained")]
        sort: String,
        /// Keep the first N rows (a positive integer).
        #[arg(long, value_name = "N", allow_hyphen_values = true)]
        top: Option<String>,
        /// Output: json (WARPO's, byte for byte) or table.
        #[arg(long, value_enum, default_value_t = Format::Json)]
        format: Format,
    },
    /// Comparison view of two dumps of the same module: new and deleted objects per class
    /// (JSON).
    #[command(args_override_self = true)]
    Diff {
        /// The earlier (baseline) dump.
        #[arg(value_name = "BEFORE")]
        before: PathBuf,
        /// The later (current) dump.
        #[arg(value_name = "AFTER")]
        after: PathBuf,
        /// The wasm binary: with WARPO-shaped DWARF, or built with `asc --debug`.
        #[arg(long, value_name = "WASM")]
        wasm: PathBuf,
        /// Row order: delta, alloc, freed or count.
        #[arg(long, default_value = "delta")]
        sort: String,
        /// Keep the first N rows (a positive integer).
        #[arg(long, value_name = "N", allow_hyphen_values = true)]
        top: Option<String>,
        /// Output: json (WARPO's, byte for byte) or table.
        #[arg(long, value_enum, default_value_t = Format::Json)]
        format: Format,
    },
    /// The dominator tree from the virtual root: what keeps what alive, siblings of one
    /// class merged (JSON, or a table).
    #[command(args_override_self = true)]
    Dominators {
        /// The version-2 memory dump.
        #[arg(value_name = "DUMP")]
        dump: PathBuf,
        /// The wasm binary: with WARPO-shaped DWARF, or built with `asc --debug`.
        #[arg(long, value_name = "WASM")]
        wasm: PathBuf,
        /// Levels below the virtual root (1 to 256).
        #[arg(long, value_name = "D", default_value_t = 4,
              value_parser = clap::value_parser!(u16).range(1..=qip_memory::heap::tree::MAX_DEPTH as i64))]
        depth: u16,
        /// At most N child nodes under each node (the rest are counted).
        #[arg(long, value_name = "N", default_value_t = 10, value_parser = clap::value_parser!(u32).range(1..))]
        top: u32,
        /// Output: json or table.
        #[arg(long, value_enum, default_value_t = Format::Json)]
        format: Format,
    },
    /// Why one object is alive: the roots and objects that hold it (each edge named by its
    /// field, index, map key or value, set element, closure or tuple slot) and the shortest
    /// paths to it from roots (JSON, or a table).
    #[command(args_override_self = true,
              group(clap::ArgGroup::new("object").required(true).args(["address", "class"])))]
    Retainers {
        /// The version-2 memory dump.
        #[arg(value_name = "DUMP")]
        dump: PathBuf,
        /// The wasm binary: with WARPO-shaped DWARF, or built with `asc --debug`.
        #[arg(long, value_name = "WASM")]
        wasm: PathBuf,
        /// The object's payload address (decimal, or hex with 0x), as `analyze` lists it.
        #[arg(long, value_name = "A", value_parser = parse_address)]
        address: Option<u64>,
        /// Explain the live object of this class with the largest retained size.
        #[arg(long, value_name = "NAME")]
        class: Option<String>,
        /// At most N paths from roots, one per root object, shortest first.
        #[arg(long, value_name = "N", default_value_t = 3)]
        paths: u32,
        /// Output: json or table.
        #[arg(long, value_enum, default_value_t = Format::Json)]
        format: Format,
    },
    /// A Chrome DevTools heap snapshot of the dump (`.heapsnapshot`, for the Memory panel's
    /// "Load profile"): the live objects with their class names, shallow sizes and named
    /// edges, the roots under one synthetic root.
    #[command(args_override_self = true)]
    Snapshot {
        /// The version-2 memory dump.
        #[arg(value_name = "DUMP")]
        dump: PathBuf,
        /// The wasm binary: with WARPO-shaped DWARF, or built with `asc --debug`.
        #[arg(long, value_name = "WASM")]
        wasm: PathBuf,
        /// Where to write the snapshot (written whole or not at all).
        #[arg(short = 'o', long = "output", value_name = "FILE")]
        output: PathBuf,
    },
    /// Runs an AssemblyScript program in the interpreter and writes a version-2 heap dump at
    /// each `MemoryDump.dumpMemoryRegion` call (docs/heap.md, "Capture"), with the host
    /// functions `env.abort`, `env.trace` and `env.seed`.
    #[command(args_override_self = true)]
    Capture {
        /// The program (`asc --debug` keeps the global names the dumps need).
        #[arg(value_name = "PROGRAM")]
        program: PathBuf,
        /// The exported function to run (default: `_start`, else `main`).
        #[arg(long, value_name = "NAME")]
        invoke: Option<String>,
        /// An argument of that function, as TYPE:VALUE (i32, i64, f32, f64); repeat in order.
        #[arg(long = "arg", value_name = "TYPE:VALUE", allow_hyphen_values = true, action = clap::ArgAction::Append)]
        args: Vec<String>,
        /// Where dumps go: the guest's relative paths resolve inside it; labelled and exit
        /// dumps are named PROGRAM.N.dump.
        #[arg(long, value_name = "DIR", default_value = ".")]
        dump_dir: PathBuf,
        /// Also dump after the function returns.
        #[arg(long)]
        dump_at_exit: bool,
        /// Stop after N instructions (default: no limit).
        #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
        instruction_budget: Option<u64>,
    },
}

/// `heap capture`: runs the program; each dump is written whole as it is taken, and its line
/// printed at once, so that the dumps before a failure are kept and reported.
fn capture(
    program: &Path,
    invoke: &Option<String>,
    args: &[String],
    dump_dir: &Path,
    dump_at_exit: bool,
    budget: Option<u64>,
) -> Result<String, String> {
    use qip_memory::heap::capture::{self, CaptureOptions, DumpRequest};
    let wasm = read(program, "program")?;
    let args = args.iter().map(|a| crate::count::parse_arg(a)).collect::<Result<Vec<_>, _>>()?;
    match std::fs::metadata(dump_dir) {
        Ok(m) if m.is_dir() => {}
        Ok(_) => return Err(format!("--dump-dir {}: not a directory", dump_dir.display())),
        Err(e) => return Err(format!("--dump-dir {}: {e}", dump_dir.display())),
    }
    let stem = program.file_stem().map_or_else(|| "program".into(), std::ffi::OsStr::to_os_string);
    let named = move |n: u32| {
        let mut name = stem.clone();
        name.push(format!(".{n}.dump"));
        name
    };
    let dir = dump_dir.to_path_buf();
    let on_dump = move |d: capture::CapturedDump| -> Result<(), String> {
        let (path, label) = match &d.request {
            DumpRequest::Path(p) => {
                let path = dir.join(p);
                inside(&dir, &path, p)?;
                (path, p.clone())
            }
            DumpRequest::Label { n, label } => (dir.join(named(*n)), label.clone()),
            DumpRequest::AtExit { n } => (dir.join(named(*n)), "at exit".into()),
        };
        crate::out::files(&[(&path, &d.bytes)]).map_err(|crate::Failure(e, _)| e)?;
        let [data_end, heap_base, stack_pointer] = d.region;
        let line = format!(
            "{}: {label:?}, dataEnd {data_end}, heapBase {heap_base}, stackPointer {stack_pointer}, {} mutable i32 globals, {} bytes of memory\n",
            path.display(),
            d.globals,
            d.memory_len
        );
        crate::out::stdout(line.as_bytes()).map_err(|crate::Failure(e, _)| e)
    };
    let on_trace = |line: String| crate::out::stderr(&format!("{line}\n"));
    let options = CaptureOptions { invoke: invoke.clone(), args, dump_at_exit, budget };
    match capture::capture(&wasm, &options, on_dump, on_trace) {
        Ok(0) => Err(format!(
            "{}: the program took no dump (call MemoryDump.dumpMemoryRegion, or use --dump-at-exit)",
            program.display()
        )),
        Ok(n) => Ok(format!("{n} dump{} taken", if n == 1 { "" } else { "s" })),
        Err(e) => Err(format!("{}: {e}", program.display())),
    }
}

/// Checks that `path`, the guest's `guest` joined to the dump directory `dir`, stays inside
/// `dir` once symbolic links are resolved (its directory, and the file itself when it exists).
/// Where the system cannot resolve links (WASI, whose preopened directories already confine
/// the program), the check is left to it.
fn inside(dir: &Path, path: &Path, guest: &str) -> Result<(), String> {
    let real = |p: &Path| match std::fs::canonicalize(p) {
        Ok(r) => Ok(Some(r)),
        Err(e) if e.kind() == std::io::ErrorKind::Unsupported => Ok(None),
        Err(e) => Err(format!("cannot write {}: {}", path.display(), crate::io_message(&e))),
    };
    let Some(root) = real(dir)? else { return Ok(()) };
    let parent = path.parent().unwrap_or(dir);
    let Some(parent) = real(parent)? else { return Ok(()) };
    let file = match std::fs::symlink_metadata(path) {
        Ok(_) => real(path)?,
        Err(_) => path.file_name().map(|name| parent.join(name)),
    };
    if parent.starts_with(&root) && file.is_none_or(|f| f.starts_with(&root)) {
        Ok(())
    } else {
        Err(format!(
            "the guest asked for a dump at {guest:?}: a symbolic link leads out of the dump directory"
        ))
    }
}

/// `core::fmt::Write` over an I/O writer, keeping the I/O error and counting bytes.
struct FmtWriter<'w> {
    w: &'w mut dyn std::io::Write,
    error: Option<std::io::Error>,
    bytes: u64,
}

impl std::fmt::Write for FmtWriter<'_> {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        self.bytes += s.len() as u64;
        self.w.write_all(s.as_bytes()).map_err(|e| {
            self.error = Some(e);
            std::fmt::Error
        })
    }
}

/// Writes the snapshot of `dump` to `output` ([`out::stream`]: through a temporary file beside
/// it, renamed into place only when complete; a device or a link written in place); returns the
/// line to print. An output that is one of the inputs is refused before anything is written,
/// and so is a dump that [`checked`] refuses.
fn write_snapshot(
    dump: &[u8],
    wasm: &[u8],
    output: &Path,
    inputs: [&Path; 2],
    mode: Mode,
) -> Result<String, String> {
    if let Some(input) = inputs.iter().find(|i| out::same_file(i, output)) {
        return Err(format!("Refusing to write the snapshot over the input {}", input.display()));
    }
    let (dump, analyzer) = load(dump, wasm, inputs, mode)?;
    checked(&analyzer, &dump, inputs)?;
    let mut bytes = 0;
    out::stream(output, |w| {
        let mut out = FmtWriter { w, error: None, bytes: 0 };
        let written = analyzer.heapsnapshot(&dump, &mut out).map_err(|e| match (&e, out.error.take()) {
            (HeapError::Write, Some(io)) => format!("cannot write {}: {io}", output.display()),
            _ => about(inputs[0], &e, mode),
        });
        bytes = out.bytes;
        written.map_err(Failure::new)
    })
    .map_err(|f| f.0)?;
    Ok(format!("wrote {} ({bytes} bytes)", output.display()))
}

/// An address in decimal or `0x` hex.
fn parse_address(s: &str) -> Result<u64, String> {
    let r = match s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        Some(hex) => u64::from_str_radix(hex, 16),
        None => s.parse(),
    };
    r.map_err(|_| format!("`{s}` is not an address (decimal, or hex with 0x)"))
}

/// How a view is printed.
#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// JSON (two-space indentation).
    Json,
    /// Aligned columns for people.
    Table,
}

fn read(path: &Path, what: &str) -> Result<Vec<u8>, String> {
    crate::read_bytes(path).map_err(|e| format!("Error reading {what}: {}: {e}", path.display()))
}

fn top(value: Option<&String>) -> Result<Option<usize>, HeapError> {
    value.map(|v| parse_top(v)).transpose()
}

/// Whose messages the `heap` commands print (docs/heap.md, "Command line").
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Mode {
    /// `qip-memory heap`: an error about one input file names it first (`leak.dump: Dump file
    /// too small…`); `main` puts `qip-memory: ` before every error.
    QipMemory,
    /// Invoked as WARPO's `as-heap-analyzer` (the program's file name): WARPO's messages as its
    /// tool prints them, alone on the line, and ours where it would crash likewise; only the
    /// refusals of [`checked`], which WARPO's tool does not make, name the dump.
    AsHeapAnalyzer,
}

/// An error about the input file `path`: named first by `qip-memory heap`, alone as WARPO's
/// tool prints it for `as-heap-analyzer`.
fn about(path: &Path, e: &impl std::fmt::Display, mode: Mode) -> String {
    match mode {
        Mode::QipMemory => format!("{}: {e}", path.display()),
        Mode::AsHeapAnalyzer => e.to_string(),
    }
}

/// An error of an analysis of the dump at `path`: [`about`] the dump, except the ones about
/// what `retainers` was asked for, which are about no file.
fn analysis_error(path: &Path, e: &HeapError, mode: Mode) -> String {
    match e {
        HeapError::NoObjectAt { .. }
        | HeapError::NoLiveInstance { .. }
        | HeapError::AmbiguousClass { .. } => e.to_string(),
        _ => about(path, e, mode),
    }
}

/// The dump header, then the wasm (its DWARF, or the runtime's visitors, with
/// [`heap::Analyzer::load`]), WARPO's order; an error [`about`] the file that fails.
fn load<'d, 'w>(
    dump: &'d [u8],
    wasm: &'w [u8],
    paths: [&Path; 2],
    mode: Mode,
) -> Result<(heap::Dump<'d>, heap::Analyzer<'w>), String> {
    let dump = heap::Dump::parse(dump).map_err(|e| about(paths[0], &e, mode))?;
    let analyzer = heap::Analyzer::load(wasm).map_err(|e| about(paths[1], &e, mode))?;
    Ok((dump, analyzer))
}

/// Refuses a dump that is cut short or not of the module ([`heap::Analyzer::check_dump`]), in
/// one line that names the dump and the module as given (`paths`: dump, wasm), in both modes:
/// WARPO's tool has no message for it.
fn checked(analyzer: &heap::Analyzer<'_>, dump: &heap::Dump<'_>, paths: [&Path; 2]) -> Result<(), String> {
    analyzer
        .check_dump(dump)
        .map_err(|p| format!("{}: {}", paths[0].display(), p.message(&paths[1].display().to_string())))
}

/// The analysis of a dump that [`checked`] accepts; the refusal of one it does not, which waits
/// (the inner `Err`) until WARPO's own later checks of the command have passed, so that where
/// WARPO's tool has a message for the input it is the one printed. An analysis error is at once
/// the outer `Err`: where we have one, WARPO's tool stops with a JavaScript exception.
fn analyzed(
    analyzer: &heap::Analyzer<'_>,
    dump: &heap::Dump<'_>,
    paths: [&Path; 2],
    mode: Mode,
) -> Result<Result<heap::Snapshot, String>, String> {
    Ok(match checked(analyzer, dump, paths) {
        Ok(()) => Ok(analyzer.analyze(dump).map_err(|e| analysis_error(paths[0], &e, mode))?),
        Err(refused) => Err(refused),
    })
}

/// Runs a `heap` subcommand: the text on success, the message on failure (without the
/// `qip-memory: ` that `main` adds in [`Mode::QipMemory`]).
///
/// `analyze` and `diff` keep WARPO's order: `--top` is checked before any file is read; then
/// each dump's header, the wasm (with `Analyzer::load`) and the analysis, the baseline's before
/// the current dump is read; then `--sort`. A dump that [`checked`] refuses is not analysed,
/// and its refusal comes after `--sort` and the current dump's header, the checks WARPO's tool
/// would still have made. The other subcommands refuse such a dump as soon as it is read.
///
/// No text for `snapshot`, whose output is its file. Besides the text, the lines for stderr to
/// print once it is written (`snapshot`'s `wrote` line; a command that fails prints its error
/// alone).
pub fn run(cmd: &HeapCommand, mode: Mode) -> Result<(Option<String>, Vec<String>), String> {
    let text = match cmd {
        HeapCommand::Analyze { dump: path, wasm: wasm_path, sort, top: n, format } => {
            let n = top(n.as_ref()).map_err(|e| e.to_string())?;
            let dump = read(path, "dump file")?;
            let wasm = read(wasm_path, "wasm file")?;
            let paths = [path.as_path(), wasm_path];
            let (dump, analyzer) = load(&dump, &wasm, paths, mode)?;
            let snap = analyzed(&analyzer, &dump, paths, mode)?;
            let sort = ConstructorSort::parse(sort).map_err(|e| e.to_string())?;
            let mut snap = snap?;
            snap.sort_and_truncate(sort, n);
            match format {
                Format::Json => snapshot_json(&snap),
                Format::Table => heap::text::snapshot_table(&snap).trim_end_matches('\n').to_string(),
            }
        }
        HeapCommand::Diff {
            before: before_path,
            after: after_path,
            wasm: wasm_path,
            sort,
            top: n,
            format,
        } => {
            let n = top(n.as_ref()).map_err(|e| e.to_string())?;
            let before = read(before_path, "baseline dump file")?;
            let after = read(after_path, "current dump file")?;
            let wasm = read(wasm_path, "wasm file")?;
            let (before, analyzer) = load(&before, &wasm, [before_path, wasm_path], mode)?;
            let before = analyzed(&analyzer, &before, [before_path, wasm_path], mode)?;
            let after = heap::Dump::parse(&after).map_err(|e| about(after_path, &e, mode))?;
            // After a refused baseline, the current dump is neither checked nor analysed: the
            // baseline's refusal is the one printed.
            let after = match &before {
                Ok(_) => analyzed(&analyzer, &after, [after_path, wasm_path], mode)?,
                Err(refused) => Err(refused.clone()),
            };
            let sort = ComparisonSort::parse(sort).map_err(|e| e.to_string())?;
            let mut c = heap::views::compare(&before?, &after?);
            c.sort_and_truncate(sort, n);
            match format {
                Format::Json => comparison_json(&c),
                Format::Table => heap::text::comparison_table(&c).trim_end_matches('\n').to_string(),
            }
        }
        HeapCommand::Dominators { dump: path, wasm: wasm_path, depth, top, format } => {
            let dump = read(path, "dump file")?;
            let wasm = read(wasm_path, "wasm file")?;
            let paths = [path.as_path(), wasm_path];
            let (dump, analyzer) = load(&dump, &wasm, paths, mode)?;
            checked(&analyzer, &dump, paths)?;
            let view = analyzer
                .dominators(&dump, *depth as usize, *top as usize)
                .map_err(|e| analysis_error(path, &e, mode))?;
            match format {
                Format::Json => view.to_json(),
                Format::Table => view.to_table().trim_end_matches('\n').to_string(),
            }
        }
        HeapCommand::Capture { program, invoke, args, dump_dir, dump_at_exit, instruction_budget } => {
            capture(program, invoke, args, dump_dir, *dump_at_exit, *instruction_budget)?
        }
        HeapCommand::Snapshot { dump: dump_path, wasm: wasm_path, output } => {
            let dump = read(dump_path, "dump file")?;
            let wasm = read(wasm_path, "wasm file")?;
            // The file is the output: its `wrote` line goes to stderr, so that `-o /dev/stdout`
            // gives the snapshot alone.
            let wrote = write_snapshot(&dump, &wasm, output, [dump_path, wasm_path], mode)?;
            return Ok((None, vec![wrote]));
        }
        HeapCommand::Retainers { dump: path, wasm: wasm_path, address, class, paths: n, format } => {
            let dump = read(path, "dump file")?;
            let wasm = read(wasm_path, "wasm file")?;
            let target = match (address, class) {
                (Some(a), _) => Target::Address(*a),
                (None, Some(c)) => Target::Class(c.clone()),
                (None, None) => return Err("give --address or --class".into()),
            };
            let paths = [path.as_path(), wasm_path];
            let (dump, analyzer) = load(&dump, &wasm, paths, mode)?;
            checked(&analyzer, &dump, paths)?;
            let view = analyzer
                .retainers(&dump, &target, *n as usize)
                .map_err(|e| analysis_error(path, &e, mode))?;
            match format {
                Format::Json => view.to_json(),
                Format::Table => view.to_table().trim_end_matches('\n').to_string(),
            }
        }
    };
    Ok((Some(text), Vec::new()))
}
