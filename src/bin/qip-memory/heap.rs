//! `qip-memory heap analyze|diff`: WARPO's `as-heap-analyzer analyze|diff` (`heap-analyzer.md`
//! G) over `qip_memory::heap`: same flags, defaults, processing order, messages (printed
//! alone on stderr) and exit status 1; the JSON of E and a newline on stdout.

use std::path::{Path, PathBuf};

use clap::Subcommand;
use qip_memory::heap::{
    self, ComparisonSort, ConstructorSort, HeapError, comparison_json, parse_top, snapshot_json,
};

/// The `heap` subcommands.
#[derive(Subcommand)]
pub enum HeapCommand {
    /// Constructor view of one dump: live objects grouped by class, with shallow and retained
    /// sizes (JSON).
    Analyze {
        /// The version-2 memory dump.
        #[arg(value_name = "DUMP")]
        dump: PathBuf,
        /// The wasm binary with WARPO-shaped DWARF (debug_abbrev, debug_info, debug_str).
        #[arg(long, value_name = "WASM")]
        wasm: PathBuf,
        /// Row order: retained, shallow or count.
        #[arg(long, default_value = "retained")]
        sort: String,
        /// Keep the first N rows (a positive integer).
        #[arg(long, value_name = "N", allow_hyphen_values = true)]
        top: Option<String>,
    },
    /// Comparison view of two dumps of the same module: new and deleted objects per class
    /// (JSON).
    Diff {
        /// The earlier (baseline) dump.
        #[arg(value_name = "BEFORE")]
        before: PathBuf,
        /// The later (current) dump.
        #[arg(value_name = "AFTER")]
        after: PathBuf,
        /// The wasm binary with WARPO-shaped DWARF.
        #[arg(long, value_name = "WASM")]
        wasm: PathBuf,
        /// Row order: delta, alloc, freed or count.
        #[arg(long, default_value = "delta")]
        sort: String,
        /// Keep the first N rows (a positive integer).
        #[arg(long, value_name = "N", allow_hyphen_values = true)]
        top: Option<String>,
    },
}

fn read(path: &Path, what: &str) -> Result<Vec<u8>, String> {
    std::fs::read(path).map_err(|e| format!("Error reading {what}: {e}"))
}

fn top(value: Option<&String>) -> Result<Option<usize>, HeapError> {
    value.map(|v| parse_top(v)).transpose()
}

/// Runs a `heap` subcommand: the JSON text on success, WARPO's message on failure. The
/// analysis comes first (`qip_memory::heap::analyze` / `diff`, in WARPO's order), then
/// `--sort`, then `--top`, as WARPO checks them.
pub fn run(cmd: &HeapCommand) -> Result<String, String> {
    match cmd {
        HeapCommand::Analyze { dump, wasm, sort, top: n } => {
            let dump = read(dump, "dump file")?;
            let wasm = read(wasm, "wasm file")?;
            let go = || -> Result<String, HeapError> {
                let mut snap = heap::analyze(&dump, &wasm)?;
                snap.sort_and_truncate(ConstructorSort::parse(sort)?, top(n.as_ref())?);
                Ok(snapshot_json(&snap))
            };
            go().map_err(|e| e.to_string())
        }
        HeapCommand::Diff { before, after, wasm, sort, top: n } => {
            let before = read(before, "baseline dump file")?;
            let after = read(after, "current dump file")?;
            let wasm = read(wasm, "wasm file")?;
            let go = || -> Result<String, HeapError> {
                let mut c = heap::diff(&before, &after, &wasm)?;
                c.sort_and_truncate(ComparisonSort::parse(sort)?, top(n.as_ref())?);
                Ok(comparison_json(&c))
            };
            go().map_err(|e| e.to_string())
        }
    }
}
