//! Analyses built on interpreter observations.
//!
//! * [`pages`]: the page table of `qip-interpret-memory-page-writes-csv.wasm`
//!   (docs/page-table.md): per 64 KiB page, initialized bytes, reads, writes, distinct
//!   bytes written, and the regions overlapping it; written as CSV with `csv-core`.
//! * [`thermal`]: the heat map of `qip-interpret-memory-thermal-ktx2.wasm` (docs/heat-map.md): per
//!   byte of up to 32 pages, the render work attributed to it and its accesses.

//! * [`calltree`]: the calling-context tree: per call path and per function, self and
//!   inclusive instructions, loads, stores, bytes, calls and the work its writes received.
//! * [`functions`]: per function, self instructions, loads, stores, bytes and pages touched.
//! * [`lines`]: source lines from DWARF line tables, and the costs of a run per line.
//! * [`names`]: function names for people, from the `name` section or the exports.
//! * [`timeline`]: when pages were touched, reads and writes over time, the stack over time.

pub mod calltree;
pub mod functions;
pub mod lines;
pub mod names;
pub mod pages;
pub mod thermal;
pub mod timeline;
