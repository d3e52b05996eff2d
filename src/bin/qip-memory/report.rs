//! `qip-memory report`: the memory report of docs/report.md, computed by
//! [`report`](qip_memory::tools::report::report) on the request of [`crate::request`] and
//! written as one self-contained HTML file.

use std::path::Path;

use qip_memory::content::form::DEFAULT_CONTENT_TYPE;
use qip_memory::tools::report::{Options, report};

use crate::Failure;
use crate::request::{Target, budget, rejected};

/// What `report` was asked to do.
pub struct Args<'a> {
    /// The target and its input and uniforms.
    pub target: Target<'a>,
    /// The `instruction_budget` uniform.
    pub budget: u64,
    /// The `first_page` uniform.
    pub first_page: u32,
    /// `-o PATH`: the HTML file.
    pub output: &'a Path,
}

/// Runs the request and writes the report; prints the file's path and size to stderr.
pub fn main(args: &Args<'_>) -> Result<(), Failure> {
    let req = args.target.request()?;
    let options = Options { budget: budget(args.budget), first_page: args.first_page };
    let r =
        report(&req.body, DEFAULT_CONTENT_TYPE.as_bytes(), options).map_err(|r| rejected(r, &req, false))?;
    let html = r.to_html();
    crate::out::files(&[(args.output, html.as_bytes())])?;
    crate::out::stderr(&format!(
        "wrote {} ({} bytes: {} functions, {} tiles, {} instructions)\n",
        args.output.display(),
        html.len(),
        r.functions.len(),
        r.heat_map.len(),
        r.counters.instructions
    ));
    Ok(())
}
