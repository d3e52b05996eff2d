//! Analyses built on interpreter observations.
//!
//! * [`pages`]: the page table of `qip-interpret-memory-page-writes-csv.wasm`
//!   (`memory-tools.md` section 2): per 64 KiB page, initialized bytes, reads, writes, distinct
//!   bytes written, and the regions overlapping it; written as CSV with `csv-core`.

pub mod pages;
