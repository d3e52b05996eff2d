//! `qip-memory page-writes`: the page table CSV of docs/page-table.md, computed by
//! [`page_table`](qip_memory::tools::page_writes::page_table) over the target's run: a
//! Content target's through the component's request ([`crate::request`]), a program's built
//! directly ([`crate::target`]). The CSV goes to stdout, or to `-o FILE` (required when the
//! program links WASI: its standard output is its own).

use std::path::Path;

use qip_memory::content::form::DEFAULT_CONTENT_TYPE;
use qip_memory::run::Kind;
use qip_memory::tools::Request;
use qip_memory::tools::page_writes::{PageWrites, clamp_budget, page_table};

use crate::Failure;
use crate::request::{budget, rejected};
use crate::target::{Loaded, TargetArgs, conclude, failed};

/// What `page-writes` was asked to do.
pub struct Args<'a> {
    /// The target and how to run it.
    pub target: &'a TargetArgs,
    /// `-o FILE`: the CSV's file instead of stdout.
    pub output: Option<&'a Path>,
    /// Print the counters to stderr.
    pub stats: bool,
}

/// Runs `page-writes`: the CSV and a newline to stdout or `-o FILE`; with `--stats` the
/// counters (and a program's end) to stderr.
pub fn main(args: &Args<'_>) -> Result<(), Failure> {
    let loaded = args.target.load()?;
    if loaded.owns_stdio() && args.output.is_none() {
        return Err(Failure::new(format!(
            "{}: the program writes to stdout itself: give the page table a file with -o FILE",
            loaded.path
        )));
    }
    let out = match loaded.kind {
        Kind::Content => content(args.target, &loaded, args.stats)?,
        _ => {
            let mut run = args.target.program(&loaded)?;
            page_table(&mut run).map_err(|f| failed(&loaded, f))?
        }
    };
    let csv = format!("{}\n", out.csv);
    match args.output {
        Some(path) => crate::out::files(&[(path, csv.as_bytes())])?,
        None => crate::out::stdout(csv.as_bytes())?,
    }
    if args.stats {
        crate::print_counters(&out.counters);
        crate::stats::print_program(&loaded, &out.finished);
    }
    conclude(&loaded, &out.finished, true)
}

/// A Content target's page table through its request, a rejection as the component's.
fn content(target: &TargetArgs, loaded: &Loaded, stats: bool) -> Result<PageWrites, Failure> {
    let req = target.request(loaded)?;
    let budget = clamp_budget(budget(target.instruction_budget));
    let parsed =
        Request::parse(&req.body, DEFAULT_CONTENT_TYPE.as_bytes()).map_err(|r| rejected(r, &req, stats))?;
    let mut run = parsed.content_run(budget);
    run.limits = target.limits();
    page_table(&mut run).map_err(|f| rejected(parsed.rejection(f, budget), &req, stats))
}
