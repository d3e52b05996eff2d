//! Analyses built on interpreter observations.
//!
//! * [`pages`]: the page table of `qip-interpret-memory-page-writes-csv.wasm`
//!   (`memory-tools.md` section 2): per 64 KiB page, initialized bytes, reads, writes, distinct
//!   bytes written, and the regions overlapping it; written as CSV with `csv-core`.
//! * [`thermal`]: the heat map of `qip-interpret-memory-thermal-ktx2.wasm` (`memory-tools.md`
//!   section 3): per byte of up to 32 pages, the render work attributed to it and its accesses.

pub mod pages;
pub mod thermal;
