//! `qip-memory`: the native command-line front end. Thin: every analysis lives in the library;
//! the Content host of `run` is wasmtime.
//!
//! Subcommands:
//! * `count WASM --invoke NAME [--arg TYPE:VALUE]... [--instruction-budget N] [--pprof FILE]
//!   [--callgrind FILE]`: runs an exported function in the bounded interpreter and prints its
//!   result and counters, one `name value` pair per line (docs/counting.md), and writes the
//!   run's profile when asked ([`export`]). See [`count`].
//! * `page-writes TARGET.wasm [--input TEXT | --input-file PATH] [-u KEY=VALUE]...
//!   [--instruction-budget N] [--stats]`: the page table CSV of docs/page-table.md, computed
//!   by the same library function as the component. See [`page_writes`].
//! * `thermal TARGET.wasm [--input TEXT | --input-file PATH] [-u KEY=VALUE]...
//!   [--instruction-budget N] [--normalize 0|1] [--first-page N] (-o OUT.ktx2 | --png OUT.png)...
//!   [--stats]`: the memory heat map of docs/heat-map.md, by the same library function as the
//!   component; KTX2 and/or PNG. See [`thermal`].
//! * `report TARGET.wasm [--input TEXT | --input-file PATH] [-u KEY=VALUE]...
//!   [--instruction-budget N] [--first-page N] -o REPORT.html [--pprof FILE] [--callgrind FILE]`:
//!   the memory report of docs/report.md, and the run's profile ([`export`]). See [`report`].
//! * `run [-F ...]... [-i PATH] STAGE.wasm [-u ...]... [STAGE.wasm ...]... [-o PATH]`: a QIP
//!   Content host (docs/content.md). See [`run`]. Only with the `host` feature (native
//!   builds): it runs components on wasmtime, which does not build for `wasm32-wasip2`; the WASI
//!   command `application/wasm/qip-memory-cli.wasm` has the other subcommands.
//!
//! * `heap analyze DUMP --wasm WASM [--sort retained|shallow|count] [--top N]` and `heap diff
//!   BEFORE AFTER --wasm WASM [--sort delta|alloc|freed|count] [--top N]`: WARPO's heap
//!   analyzer (docs/heap.md), and its other views. See [`heap`].
//!
//! Errors, rejections and traps: exit status 1 and one line `qip-memory: <reason>` on stderr
//! (clap's usage errors exit with 2). `heap` exits with 1 for usage errors too, as WARPO does,
//! and prints them on one line as well (`qip-memory: ` in place of clap's `error: `).
//!
//! Started under the file name `as-heap-analyzer` (argv[0], as an npm package's bin would start
//! it), the program is `qip-memory heap` under WARPO's name: `as-heap-analyzer analyze DUMP
//! --wasm WASM` and so on, WARPO's messages as its tool prints them, alone on the line
//! (commander's `error: ` on usage errors), without `qip-memory: `.
#![deny(missing_docs)]

mod count;
mod export;
mod heap;
#[cfg(feature = "host")]
mod host;
mod out;
mod page_writes;
mod png;
mod report;
mod request;
#[cfg(feature = "host")]
mod run;
mod stats;
mod target;
mod thermal;
mod wasi_config;

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use qip_memory::image::view::Metric;
use qip_memory::wasm::Counters;
use target::TargetArgs;

/// A failure of a subcommand: the one line printed after `qip-memory: ` and the exit status;
/// or, without a reason, the status alone (a program's own exit code, passed on once the
/// analysis was written, as `perf stat` and valgrind pass it on).
#[derive(Debug)]
pub struct Failure(String, u8);

impl Failure {
    /// A failure with this reason, exit status 1.
    pub fn new(reason: String) -> Failure {
        Failure(reason, 1)
    }

    /// A failure with this reason and exit status.
    pub fn with_status(reason: String, status: u8) -> Failure {
        Failure(reason, status)
    }

    /// Exit with `status` and print nothing (a program's exit code).
    pub fn status(status: u8) -> Failure {
        Failure(String::new(), status)
    }
}

/// `reason` on one line: a message that spans lines (a decoder's byte list, a parser's snippet)
/// has each run of whitespace around its line breaks turned into one space.
fn one_line(reason: &str) -> String {
    if reason.contains('\n') {
        reason.split_whitespace().collect::<Vec<_>>().join(" ")
    } else {
        reason.to_owned()
    }
}

impl From<String> for Failure {
    fn from(reason: String) -> Failure {
        Failure(reason, 1)
    }
}

/// Reads all of stdin (`-F NAME=@-`, `--input-file -`).
pub fn read_stdin() -> Result<Vec<u8>, Failure> {
    use std::io::Read as _;
    let mut bytes = Vec::new();
    std::io::stdin().read_to_end(&mut bytes).map_err(|e| Failure::new(format!("cannot read stdin: {e}")))?;
    Ok(bytes)
}

/// Reads a whole file; the error names the path.
pub fn read_file(path: &Path) -> Result<Vec<u8>, Failure> {
    read_bytes(path).map_err(|e| Failure::new(format!("cannot read {}: {e}", path.display())))
}

/// Reads a whole file; the error is [`io_message`]'s, with [`wasi_hint`]'s hint. A directory is
/// refused as such before it is read (WASI hosts answer reading one with "bad file
/// descriptor", Linux with "is a directory").
pub fn read_bytes(path: &Path) -> Result<Vec<u8>, String> {
    if std::fs::metadata(path).is_ok_and(|m| m.is_dir()) {
        return Err("Is a directory".into());
    }
    std::fs::read(path).map_err(|e| format!("{}{}", io_message(&e), wasi_hint(&e)))
}

/// An I/O error as people read it: the system's description without its number (`No such
/// file or directory`, not `… (os error 2)`), so that the native build and the WASI build,
/// whose error numbers differ (ENOENT is 2 on Linux, 44 in WASI), print the same line.
pub fn io_message(e: &std::io::Error) -> String {
    let text = e.to_string();
    match text.rfind(" (os error ") {
        Some(at) if text.ends_with(')') => text[..at].to_owned(),
        _ => text,
    }
}

/// Whether the WASI build entered the working directory its host named ([`main`]): then the
/// host granted `/` and a missing file is missing.
static ENTERED_PWD: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// What to add to a failed read's message: under WASI a file outside the directories the host
/// granted looks missing, so a missing file there gets a hint (not when the host granted `/`
/// and the working directory, as the npm package's launcher does); elsewhere nothing.
pub fn wasi_hint(e: &std::io::Error) -> &'static str {
    if cfg!(target_os = "wasi")
        && e.kind() == std::io::ErrorKind::NotFound
        && !ENTERED_PWD.load(std::sync::atomic::Ordering::Relaxed)
    {
        " (the WASI command sees only the directories the host grants, e.g. wasmtime run --dir .)"
    } else {
        ""
    }
}

/// Splits a `-u KEY=VALUE` argument at the first `=`.
///
/// # Errors
/// A [`Failure`] when there is no `=` or the key is empty.
pub fn split_uniform(arg: &str) -> Result<(&str, &str), Failure> {
    match arg.split_once('=') {
        Some(("", _)) => Err(Failure::new(format!("-u {arg}: empty uniform key"))),
        Some(kv) => Ok(kv),
        None => Err(Failure::new(format!("-u {arg}: expected KEY=VALUE"))),
    }
}

/// `counters` as text, one `name value` line each (docs/counting.md).
pub fn counter_lines(counters: &Counters) -> String {
    counters.fields().into_iter().map(|(name, value)| format!("{name} {value}\n")).collect()
}

/// Prints `counters` to stderr as [`counter_lines`] (best effort, [`out::stderr`]).
pub fn print_counters(counters: &Counters) {
    out::stderr(&counter_lines(counters));
}

/// `thermal --metric`: the tally `--view` colours.
#[derive(Clone, Copy, clap::ValueEnum)]
enum ViewMetric {
    /// Instructions attributed to each byte.
    Instructions,
    /// Loop iterations attributed to each byte.
    Loops,
    /// Calls attributed to each byte.
    Calls,
    /// Render accesses that touched each byte.
    Accesses,
}

#[derive(Parser)]
#[command(name = "qip-memory", version, about = "Memory analyzers for WebAssembly")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run a program in the bounded interpreter and print its counters: a WASI command, a
    /// module's export (--invoke, by default `run` when the module is neither a command nor a
    /// Content target) or a Content target.
    Count {
        #[command(flatten)]
        target: TargetArgs,
        /// Print the internal code of function FUNC (an index, func[N], or a name from the
        /// name section or the exports) instead of running anything.
        #[arg(long, value_name = "FUNC", conflicts_with_all = ["pprof", "callgrind"])]
        dump_ir: Option<String>,
        #[command(flatten)]
        exports: export::ExportArgs,
    },
    /// Print the page table CSV of a program's run: a Content target (what
    /// qip-interpret-memory-page-writes-csv.wasm returns for the same request), a WASI
    /// command or a module's export.
    PageWrites {
        #[command(flatten)]
        target: TargetArgs,
        /// Write the CSV to FILE instead of stdout (needed when the program writes to stdout).
        #[arg(short = 'o', long, value_name = "FILE")]
        output: Option<PathBuf>,
        /// Print the run's counters to stderr, one `name value` per line (and a program's end,
        /// stack and heap).
        #[arg(long)]
        stats: bool,
    },
    /// Write the memory heat map of a program's run (for a Content target what
    /// qip-interpret-memory-thermal-ktx2.wasm returns for the same request) as KTX2 and/or PNG.
    #[command(group(clap::ArgGroup::new("out").required(true).multiple(true).args(["output", "png", "view"])))]
    Thermal {
        #[command(flatten)]
        target: TargetArgs,
        /// Channel scale: 1 maps each channel's maximum to 255, 0 uses the absolute log2 scale
        /// (8 levels per doubling).
        #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u8).range(0..=1))]
        normalize: u8,
        /// Lowest page that may become a tile (0 to 2147483647, the range of the component's
        /// i32 uniform).
        #[arg(long, default_value_t = 0, value_parser = clap::value_parser!(u32).range(0..=0x7fff_ffff))]
        first_page: u32,
        /// Write the KTX2 file (QIP's RGBA8 sRGB layout, byte-identical to the component's output).
        #[arg(short = 'o', long, value_name = "OUT.ktx2")]
        output: Option<PathBuf>,
        /// Write the pixels as an 8-bit RGBA PNG.
        #[arg(long, value_name = "OUT.png")]
        png: Option<PathBuf>,
        /// Write the heat map drawn for people as a PNG: opaque, labelled tiles, one metric on
        /// the viridis colour map (log scale) with a colour bar, the hottest bytes numbered.
        #[arg(long, value_name = "OUT.png")]
        view: Option<PathBuf>,
        /// The metric of `--view` (only with `--view`).
        #[arg(long, value_enum, default_value_t = ViewMetric::Instructions, requires = "view")]
        metric: ViewMetric,
        /// Print the tile pages, the image totals, the hottest bytes and the counters to stderr.
        #[arg(long)]
        stats: bool,
    },
    /// Write the memory report of a program's run: one self-contained HTML file with the heat
    /// map drawn for people, the functions that did the work, and the page table.
    Report {
        #[command(flatten)]
        target: TargetArgs,
        /// Lowest page that may become a tile (as `thermal --first-page`).
        #[arg(long, default_value_t = 0, value_parser = clap::value_parser!(u32).range(0..=0x7fff_ffff))]
        first_page: u32,
        /// The HTML file to write.
        #[arg(short = 'o', long, value_name = "REPORT.html")]
        output: PathBuf,
        #[command(flatten)]
        exports: export::ExportArgs,
    },
    /// AssemblyScript heap analyzer, compatible with WARPO's as-heap-analyzer.
    Heap(heap::HeapArgs),
    /// Run QIP Content components as a pipeline on wasmtime, like `qip run`.
    #[cfg(feature = "host")]
    Run(run::RunCli),
}

/// Under WASI, enters the directory `PWD` names, when the host passed one and granted it (a
/// host that preopens `/` and sets `PWD`, as the npm package's Node launcher does): relative
/// paths then resolve as they would natively, `..` included. Without either, paths resolve
/// against the preopened directories as before.
#[cfg(target_os = "wasi")]
fn enter_working_directory() {
    if let Some(dir) = std::env::var_os("PWD")
        && std::env::set_current_dir(dir).is_ok()
    {
        ENTERED_PWD.store(true, std::sync::atomic::Ordering::Relaxed);
    }
}

/// The file stem under which the program is `qip-memory heap` with WARPO's messages.
const AS_HEAP_ANALYZER: &str = "as-heap-analyzer";

/// Whether the program was started as `as-heap-analyzer`: the file stem of argv[0] (a path
/// such as `node_modules/.bin/as-heap-analyzer`, or `as-heap-analyzer.exe`).
fn invoked_as_heap_analyzer() -> bool {
    std::env::args_os()
        .next()
        .is_some_and(|a| Path::new(&a).file_stem() == Some(OsStr::new(AS_HEAP_ANALYZER)))
}

/// A heap error on one line: `qip-memory: ` before it, except under WARPO's name.
fn heap_error(message: &str, mode: heap::Mode) -> ExitCode {
    match mode {
        heap::Mode::QipMemory => out::stderr(&format!("qip-memory: {}\n", one_line(message))),
        heap::Mode::AsHeapAnalyzer => out::stderr(&format!("{}\n", one_line(message))),
    }
    ExitCode::FAILURE
}

/// A usage error of `heap`: exit status 1, as WARPO's option parser (commander) exits, and one
/// line, as commander's messages are: clap's message without the usage and the hint that
/// follow it, its indented lines joined; `error: ` stays only under WARPO's name, whose parser
/// starts its messages so. Help and version requests are clap's (stdout, exit 0).
fn heap_usage_error(e: &clap::Error, mode: heap::Mode) -> ExitCode {
    if !e.use_stderr() {
        e.exit();
    }
    let text = e.render().to_string();
    let message =
        text.split("\n\n").next().unwrap_or_default().split_whitespace().collect::<Vec<_>>().join(" ");
    match mode {
        heap::Mode::QipMemory => heap_error(message.strip_prefix("error: ").unwrap_or(&message), mode),
        heap::Mode::AsHeapAnalyzer => heap_error(&message, mode),
    }
}

/// `qip-memory heap` (or `as-heap-analyzer`, [`heap::Mode`]) with parsed arguments; `help` is
/// the help printed when no subcommand is given.
fn heap_main(args: &heap::HeapArgs, mode: heap::Mode, help: impl FnOnce() -> String) -> ExitCode {
    match args {
        heap::HeapArgs { version: true, .. } => {
            // WARPO prints its package version alone.
            match out::stdout(concat!(env!("CARGO_PKG_VERSION"), "\n").as_bytes()) {
                Ok(()) => ExitCode::SUCCESS,
                Err(Failure(reason, _)) => heap_error(&reason, mode),
            }
        }
        heap::HeapArgs { command: None, .. } => {
            // No subcommand: the help on stderr, exit 1 (as WARPO).
            out::stderr(&help());
            ExitCode::FAILURE
        }
        heap::HeapArgs { command: Some(cmd), .. } => {
            let written = heap::run(cmd, mode).and_then(|(text, lines)| {
                if let Some(text) = text {
                    out::stdout(format!("{text}\n").as_bytes()).map_err(|Failure(reason, _)| reason)?;
                }
                Ok(lines)
            });
            match written {
                Ok(lines) => {
                    for line in lines {
                        out::stderr(&format!("{line}\n"));
                    }
                    ExitCode::SUCCESS
                }
                Err(message) => heap_error(&message, mode),
            }
        }
    }
}

/// `as-heap-analyzer ARGS`: `qip-memory heap ARGS` under WARPO's name.
fn as_heap_analyzer() -> ExitCode {
    use clap::{Args as _, FromArgMatches as _};
    let command = || {
        // The about text after the arguments', which would set `HeapArgs`' own.
        heap::HeapArgs::augment_args(clap::Command::new(AS_HEAP_ANALYZER))
            .about("AssemblyScript heap analyzer: qip-memory heap under WARPO's name, with its messages")
    };
    let mode = heap::Mode::AsHeapAnalyzer;
    match command().try_get_matches().and_then(|m| heap::HeapArgs::from_arg_matches(&m)) {
        Ok(args) => heap_main(&args, mode, || command().render_help().to_string()),
        Err(e) => heap_usage_error(&e, mode),
    }
}

fn main() -> ExitCode {
    use clap::{CommandFactory as _, FromArgMatches as _};
    #[cfg(target_os = "wasi")]
    enter_working_directory();
    if invoked_as_heap_analyzer() {
        return as_heap_analyzer();
    }
    // The matches stay: `run` reads the positions of its stages and uniforms from them (the
    // WASI build has no `run`).
    let parsed = Cli::command().try_get_matches().and_then(|m| Cli::from_arg_matches(&m).map(|cli| (cli, m)));
    #[cfg_attr(not(feature = "host"), allow(unused_variables))]
    let (cli, matches) = match parsed {
        Ok(parsed) => parsed,
        // WARPO (commander) exits with 1 on usage errors; the other subcommands keep clap's 2.
        Err(e) if std::env::args().nth(1).as_deref() == Some("heap") && e.use_stderr() => {
            return heap_usage_error(&e, heap::Mode::QipMemory);
        }
        Err(e) => e.exit(),
    };
    let r = match &cli.command {
        Command::Heap(args) => {
            return heap_main(args, heap::Mode::QipMemory, || {
                let mut cli = <Cli as clap::CommandFactory>::command();
                // Built, so that the usage line names the binary (`qip-memory heap`).
                cli.build();
                cli.find_subcommand_mut("heap").map(|c| c.render_help().to_string()).unwrap_or_default()
            });
        }
        Command::Count { target, dump_ir: Some(func), .. } => {
            count::dump_ir(&target.target, func, target.max_module_size)
        }
        Command::Count { target, dump_ir: None, exports } => count::count(target, exports),
        Command::PageWrites { target, output, stats } => {
            page_writes::main(&page_writes::Args { target, output: output.as_deref(), stats: *stats })
        }
        Command::Thermal { target, normalize, first_page, output, png, view, metric, stats } => {
            thermal::main(&thermal::Args {
                view: view.as_deref(),
                metric: match metric {
                    ViewMetric::Instructions => Metric::Instructions,
                    ViewMetric::Loops => Metric::Loops,
                    ViewMetric::Calls => Metric::Calls,
                    ViewMetric::Accesses => Metric::Accesses,
                },
                target,
                normalize: *normalize != 0,
                first_page: *first_page,
                ktx2: output.as_deref(),
                png: png.as_deref(),
                stats: *stats,
            })
        }
        Command::Report { target, first_page, output, exports } => {
            report::main(&report::Args { target, first_page: *first_page, output, exports })
        }
        #[cfg(feature = "host")]
        Command::Run(args) => match matches.subcommand_matches("run") {
            Some(m) => args.clone().into_args(m).and_then(|args| run::main(&args)),
            None => Err(Failure::new("run: no arguments".into())),
        },
    };
    match r {
        Ok(()) => ExitCode::SUCCESS,
        Err(Failure(reason, status)) => {
            if !reason.is_empty() {
                out::stderr(&format!("qip-memory: {}\n", one_line(&reason)));
            }
            ExitCode::from(status)
        }
    }
}
