//! `qip-interpret-memory-page-writes-csv.wasm` as a library function: a multipart request in,
//! the page table CSV out (docs/request.md, docs/page-table.md).

use alloc::string::String;
use alloc::vec::Vec;

use super::{Rejection, Request};
use crate::content::run::Outcome;
use crate::profile::pages::{PageRecorder, PageTable, Range, Regions};
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
#[derive(Debug, Clone)]
pub struct PageWrites {
    /// The page table CSV (docs/page-table.md).
    pub csv: String,
    /// Counters of the setters and render.
    pub counters: Counters,
}

/// The regions of docs/page-table.md for a finished run.
pub fn regions(outcome: &Outcome, input_len: usize, lowest_stack_pointer: Option<u32>) -> Regions {
    let data: Vec<Range> = outcome
        .module
        .active_data()
        .filter(|(mem, _, bytes)| *mem == 0 && !bytes.is_empty())
        .filter_map(|(_, at, bytes)| at.map(|a| (a as u64, a as u64 + bytes.len() as u64)))
        .collect();
    let c = &outcome.contract;
    Regions {
        data,
        input: c.input.map(|i| (i.ptr as u64, i.ptr as u64 + i.cap as u64)),
        input_bytes: c.input.map(|i| (i.ptr as u64, i.ptr as u64 + input_len as u64)),
        stack: Regions::stack_range(c.stack_pointer, lowest_stack_pointer),
        output: (!outcome.output.is_empty())
            .then(|| (outcome.output_ptr as u64, outcome.output_ptr as u64 + outcome.output.len() as u64)),
    }
}

/// Parses the request (`content_type` is the 70-byte multipart slot as the host left it),
/// runs the target with at most `budget` instructions and returns the page table.
///
/// # Errors
/// A [`Rejection`] with the request offset and mode of docs/rejections.md.
pub fn page_writes(request: &[u8], content_type: &[u8], budget: u32) -> Result<PageWrites, Rejection> {
    let req = Request::parse(request, content_type)?;
    let mut recorder = PageRecorder::new();
    let outcome = req.run(clamp_budget(budget), &mut recorder)?;
    let table = PageTable::new(&recorder, &regions(&outcome, req.input.len(), recorder.lowest_stack_pointer()));
    Ok(PageWrites { csv: table.to_csv(), counters: outcome.counters })
}
