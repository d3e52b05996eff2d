//! `qip-memory page-writes`: the page table CSV of docs/page-table.md without a Wasm host,
//! computed by [`page_writes`](qip_memory::tools::page_writes::page_writes) on the request of
//! [`crate::request`].

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
    let req = args.target.request()?;
    let out = page_writes(&req.body, DEFAULT_CONTENT_TYPE.as_bytes(), budget(args.budget))
        .map_err(|r| rejected(r, &req, args.stats))?;
    crate::out::stdout(format!("{}\n", out.csv).as_bytes())?;
    if args.stats {
        crate::print_counters(&out.counters);
    }
    Ok(())
}
