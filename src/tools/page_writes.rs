//! `qip-interpret-memory-page-writes-csv.wasm` as a library function: a multipart request in,
//! the page table CSV out (docs/request.md, docs/page-table.md).

use alloc::string::String;

use super::{Rejection, Request};
use crate::profile::pages::{PageRecorder, PageTable, Regions};
use crate::run::{Failure, Finished, Run};
use crate::wasm::Counters;

/// Default of the `instruction_budget` uniform.
pub const DEFAULT_BUDGET: u32 = 1_000_000;
/// Largest `instruction_budget` (the reference clamps at 10,000,000; we allow more).
pub const MAX_BUDGET: u32 = 1_000_000_000;

/// Clamps an `instruction_budget` uniform value to 1…1,000,000,000 (docs/request.md).
pub fn clamp_budget(v: u32) -> u32 {
    v.clamp(1, MAX_BUDGET)
}

/// A successful run: the CSV and the run's counters (setters and render together).
#[derive(Debug)]
pub struct PageWrites {
    /// The page table CSV (docs/page-table.md).
    pub csv: String,
    /// The page table.
    pub table: PageTable,
    /// Counters of the run (a Content target's setters and render).
    pub counters: Counters,
    /// The finished run (how it ended, its layout).
    pub finished: Finished,
    /// The regions of the run.
    pub regions: Regions,
}

/// Runs `run` once and returns its page table (docs/page-table.md).
///
/// # Errors
/// The run's [`Failure`].
pub fn page_table(run: &mut Run<'_>) -> Result<PageWrites, Failure> {
    let mut recorder = PageRecorder::new();
    let finished = run.execute(&mut recorder)?;
    let regions = finished.layout.regions(recorder.lowest_stack_pointer(), finished.memory_bytes);
    let table = PageTable::new(&recorder, &regions);
    Ok(PageWrites { csv: table.to_csv(), table, counters: finished.counters, finished, regions })
}

/// Parses the request (`content_type` is the 70-byte multipart slot as the host left it),
/// runs the target with at most `budget` instructions and returns the page table.
///
/// # Errors
/// A [`Rejection`] with the request offset and mode of docs/rejections.md.
pub fn page_writes(request: &[u8], content_type: &[u8], budget: u32) -> Result<PageWrites, Rejection> {
    let req = Request::parse(request, content_type)?;
    let budget = clamp_budget(budget);
    page_table(&mut req.content_run(budget)).map_err(|f| req.rejection(f, budget))
}
