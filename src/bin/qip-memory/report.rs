//! `qip-memory report`: the memory report of docs/report.md, computed by
//! [`report_of`](qip_memory::tools::report::report_of) over the target's run (a Content
//! target's through the component's request, [`crate::request`]; a program's built directly,
//! [`crate::target`]) and written as one self-contained HTML file, with the run's profile as
//! pprof and callgrind files beside it when asked ([`crate::export`]).

use std::path::Path;

use qip_memory::content::form::DEFAULT_CONTENT_TYPE;
use qip_memory::run::Kind;
use qip_memory::tools::Request;
use qip_memory::tools::page_writes::clamp_budget;
use qip_memory::tools::report::{Options, Report, report_of};

use crate::Failure;
use crate::export::ExportArgs;
use crate::request::{budget, rejected};
use crate::target::{Loaded, TargetArgs, conclude, failed};

/// What `report` was asked to do.
pub struct Args<'a> {
    /// The target and how to run it.
    pub target: &'a TargetArgs,
    /// The `first_page` uniform.
    pub first_page: u32,
    /// `-o PATH`: the HTML file.
    pub output: &'a Path,
    /// `--pprof`, `--callgrind`: the profile files.
    pub exports: &'a ExportArgs,
}

/// Runs the target and writes the report and the profile files asked for, all or none; prints
/// the report's path and size to stderr.
pub fn main(args: &Args<'_>) -> Result<(), Failure> {
    let loaded = args.target.load()?;
    let options = Options { budget: budget(args.target.instruction_budget), first_page: args.first_page };
    let r = match loaded.kind {
        Kind::Content => content(args.target, &loaded, options)?,
        _ => {
            let mut run = args.target.program(&loaded)?;
            let mut r = report_of(&mut run, options).map_err(|f| failed(&loaded, f))?;
            // A program is named by its file, as the user called it; a Content target by
            // what the request carries (its module's own name), as the component names it.
            r.subject.name = Some(crate::wasi_config::argv0_text(&loaded.path));
            r
        }
    };
    let html = r.to_html();
    let profiles = args.exports.outputs(&r.profile());
    let mut outputs: Vec<(&Path, &[u8])> = vec![(args.output, html.as_bytes())];
    outputs.extend(profiles.iter().map(|(p, b)| (*p, &b[..])));
    crate::out::files(&outputs)?;
    crate::out::stderr(&format!(
        "wrote {} ({} bytes: {} functions, {} tiles, {} instructions)\n",
        args.output.display(),
        html.len(),
        r.functions.len(),
        r.heat_map.len(),
        r.counters.instructions
    ));
    conclude(&loaded, &r.finished, true)
}

/// A Content target's report through its request, a rejection as the component's.
fn content(target: &TargetArgs, loaded: &Loaded, options: Options) -> Result<Report, Failure> {
    let req = target.request(loaded)?;
    let budget = clamp_budget(options.budget);
    let parsed =
        Request::parse(&req.body, DEFAULT_CONTENT_TYPE.as_bytes()).map_err(|r| rejected(r, &req, false))?;
    let mut run = parsed.content_run(budget);
    run.limits = target.limits();
    report_of(&mut run, options).map_err(|f| rejected(parsed.rejection(f, budget), &req, false))
}
