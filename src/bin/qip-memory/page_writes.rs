//! `qip-memory page-writes`: the page table CSV of `memory-tools.md` 2 without a Wasm host,
//! computed by [`page_writes`](qip_memory::tools::page_writes::page_writes) on the request of
//! [`crate::request`].

use std::io::Write as _;

use qip_memory::content::form::DEFAULT_CONTENT_TYPE;
use qip_memory::tools::page_writes::page_writes;

use crate::Failure;
use crate::request::{Target, budget, rejected};

/// What `page-writes` was asked to do.
pub struct Args<'a> {
    /// The target and its input and uniforms.
    pub target: Target<'a>,
    /// The `instruction_budget` uniform of the component.
    pub budget: u64,
    /// Print the counters to stderr.
    pub stats: bool,
}

/// Runs `page-writes`: CSV and a newline to stdout, counters to stderr with `--stats`.
pub fn main(args: &Args<'_>) -> Result<(), Failure> {
    let body = args.target.body()?;
    let out = page_writes(&body, DEFAULT_CONTENT_TYPE.as_bytes(), budget(args.budget)).map_err(rejected)?;
    let mut stdout = std::io::stdout().lock();
    stdout
        .write_all(out.csv.as_bytes())
        .and_then(|()| stdout.write_all(b"\n"))
        .and_then(|()| stdout.flush())
        .map_err(|e| Failure::new(format!("writing to stdout: {e}")))?;
    if args.stats {
        crate::print_counters(&out.counters);
    }
    Ok(())
}
