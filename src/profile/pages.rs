//! The page table (docs/page-table.md): one row per 64 KiB page that was initialized,
//! read or written, with the regions overlapping it.
//!
//! [`PageRecorder`] is the [`Observer`] that collects the per-page counts during a run (uniform
//! setters and render); [`PageTable::new`] adds what is known statically (data segments, the
//! input, the output, the stack range) and [`PageTable::to_csv`] writes the CSV.

use alloc::boxed::Box;
use alloc::string::String;
use alloc::vec::Vec;
use core::fmt::Write as _;

use crate::wasm::Observer;

/// Bytes per page (the WebAssembly page size).
pub const PAGE_SIZE: u64 = 65536;

/// The CSV header, exactly (docs/page-table.md).
pub const CSV_HEADER: &str = "page,region,initialized_bytes,reads,bytes_read,writes,bytes_written,distinct_bytes_written,rewrite_ratio";

/// Access counts of one page.
#[derive(Debug, Default, Clone)]
struct PageCounts {
    reads: u64,
    bytes_read: u64,
    writes: u64,
    bytes_written: u64,
    /// One bit per byte of the page, set when the byte was written (8 KiB, made on first write).
    written: Option<Box<[u64; 1024]>>,
}

impl PageCounts {
    #[inline]
    fn mark_written(&mut self, lo: u64, hi: u64) {
        let bits = self.written.get_or_insert_with(|| Box::new([0u64; 1024]));
        let (mut i, hi) = (lo as usize, hi as usize);
        while i < hi {
            let (word, bit) = (i / 64, i % 64);
            let n = (64 - bit).min(hi - i);
            let mask = if n == 64 { u64::MAX } else { ((1u64 << n) - 1) << bit };
            bits[word] |= mask;
            i += n;
        }
    }

    fn distinct_written(&self) -> u64 {
        self.written.as_ref().map_or(0, |b| b.iter().map(|w| w.count_ones() as u64).sum())
    }
}

/// Records per-page reads and writes and the lowest value of global 0. Counts follow
/// docs/page-table.md: an operation counts once on every page its byte range touches, and
/// every byte counts in `bytes_read`/`bytes_written`; zero-length bulk operations count nothing
/// (the interpreter reports none).
#[derive(Debug, Default)]
pub struct PageRecorder {
    pages: Vec<Option<Box<PageCounts>>>,
    lowest_stack_pointer: Option<u32>,
}

impl PageRecorder {
    /// An empty recorder.
    pub fn new() -> Self {
        Self::default()
    }

    #[inline(always)]
    fn page(&mut self, p: u64) -> &mut PageCounts {
        if !matches!(self.pages.get(p as usize), Some(Some(_))) {
            return self.new_page(p);
        }
        self.pages[p as usize].as_mut().expect("checked above")
    }

    #[inline(never)]
    fn new_page(&mut self, p: u64) -> &mut PageCounts {
        let p = p as usize;
        if self.pages.len() <= p {
            self.pages.resize_with(p + 1, || None);
        }
        self.pages[p].get_or_insert_with(Default::default)
    }

    #[inline]
    fn read(&mut self, addr: u64, len: u64) {
        // Nearly every access lies inside one page: count it without the loop.
        if (addr % PAGE_SIZE) + len <= PAGE_SIZE {
            let c = self.page(addr / PAGE_SIZE);
            c.reads += 1;
            c.bytes_read += len;
            return;
        }
        self.read_pages(addr, len);
    }

    fn read_pages(&mut self, addr: u64, len: u64) {
        let end = addr + len;
        let mut p = addr / PAGE_SIZE;
        while p * PAGE_SIZE < end {
            let (lo, hi) = ((p * PAGE_SIZE).max(addr), ((p + 1) * PAGE_SIZE).min(end));
            let c = self.page(p);
            c.reads += 1;
            c.bytes_read += hi - lo;
            p += 1;
        }
    }

    #[inline]
    fn write(&mut self, addr: u64, len: u64) {
        // Nearly every access lies inside one page: count it without the loop.
        let lo = addr % PAGE_SIZE;
        if lo + len <= PAGE_SIZE {
            let c = self.page(addr / PAGE_SIZE);
            c.writes += 1;
            c.bytes_written += len;
            c.mark_written(lo, lo + len);
            return;
        }
        self.write_pages(addr, len);
    }

    fn write_pages(&mut self, addr: u64, len: u64) {
        let end = addr + len;
        let mut p = addr / PAGE_SIZE;
        while p * PAGE_SIZE < end {
            let base = p * PAGE_SIZE;
            let (lo, hi) = (base.max(addr), (base + PAGE_SIZE).min(end));
            let c = self.page(p);
            c.writes += 1;
            c.bytes_written += hi - lo;
            c.mark_written(lo - base, hi - base);
            p += 1;
        }
    }

    /// The lowest value global 0 took during the run, if it was written.
    pub fn lowest_stack_pointer(&self) -> Option<u32> {
        self.lowest_stack_pointer
    }
}

impl Observer for PageRecorder {
    #[inline(always)]
    fn load(&mut self, addr: u64, len: u32, _: u64) {
        self.read(addr, len as u64);
    }
    #[inline(always)]
    fn store(&mut self, addr: u64, len: u32, _: u64) {
        self.write(addr, len as u64);
    }
    fn copy(&mut self, dst: u64, src: u64, len: u64, _: u64) {
        self.read(src, len);
        self.write(dst, len);
    }
    fn fill(&mut self, dst: u64, len: u64, _: u64) {
        self.write(dst, len);
    }
    fn host_read(&mut self, addr: u64, len: u64, _: u64) {
        self.read(addr, len);
    }
    fn host_write(&mut self, addr: u64, len: u64, _: u64) {
        self.write(addr, len);
    }
    fn stack_pointer_write(&mut self, value: u32, _: u64) {
        self.lowest_stack_pointer = Some(self.lowest_stack_pointer.map_or(value, |l| l.min(value)));
    }
}

/// A half-open byte range `[start, end)`.
pub type Range = (u64, u64);

/// What is known about the target besides the recorded accesses.
///
/// A Content target has `data`, `input`, `stack` and `output` (docs/page-table.md); a
/// program (a WASI command, a module's export) has `data`, `heap`, `stack` and `io`
/// (docs/programs.md, "Regions"). `heap` and `io` are never set for a Content target, so its
/// labels are exactly the component's.
#[derive(Debug, Clone, Default)]
pub struct Regions {
    /// Active data segments with nonzero length.
    pub data: Vec<Range>,
    /// `[input_ptr, input_ptr + capacity)` when the target has an input interface.
    pub input: Option<Range>,
    /// The request's input bytes as copied before the run: `[input_ptr, input_ptr + len)`.
    pub input_bytes: Option<Range>,
    /// `[lowest stack pointer, initial stack pointer)` when the stack pointer moved down.
    pub stack: Option<Range>,
    /// `[ptr, ptr + size)` of a successful output with `size > 0`.
    pub output: Option<Range>,
    /// A program's heap: `[__heap_base, end of memory)`.
    pub heap: Option<Range>,
    /// The guest memory that WASI calls read or wrote (iovec arrays, buffers, paths, results),
    /// merged, ascending.
    pub io: Vec<Range>,
}

impl Regions {
    /// The page table's `region` of page `page`: the regions overlapping it, of `data`,
    /// `input`, `heap`, `stack`, `io`, `output` in that order, joined by `+`; `other` for none.
    pub fn label(&self, page: u64) -> String {
        let (lo, hi) = (page * PAGE_SIZE, (page + 1) * PAGE_SIZE);
        let mut region = String::new();
        let labels = [
            ("data", self.data.iter().any(|&r| overlaps(r, lo, hi))),
            ("input", self.input.is_some_and(|r| overlaps(r, lo, hi))),
            ("heap", self.heap.is_some_and(|r| overlaps(r, lo, hi))),
            ("stack", self.stack.is_some_and(|r| overlaps(r, lo, hi))),
            ("io", self.io.iter().any(|&r| overlaps(r, lo, hi))),
            ("output", self.output.is_some_and(|r| overlaps(r, lo, hi))),
        ];
        for (name, on) in labels {
            if on {
                if !region.is_empty() {
                    region.push('+');
                }
                region.push_str(name);
            }
        }
        if region.is_empty() {
            region.push_str("other");
        }
        region
    }

    /// The stack range (docs/page-table.md, "Regions") from the stack pointer's initial and
    /// lowest values.
    pub fn stack_range(initial: Option<u32>, lowest: Option<u32>) -> Option<Range> {
        match (initial, lowest) {
            (Some(i), Some(l)) if l < i => Some((l as u64, i as u64)),
            _ => None,
        }
    }
}

/// One row of the page table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PageRow {
    /// Zero-based page index (`address / 65536`).
    pub page: u64,
    /// Region labels joined with `+` in the order data, input, heap, stack, io, output;
    /// `other` if none ([`Regions::label`]).
    pub region: String,
    /// Bytes set before the run (data segments and request input, union), in this page.
    pub initialized_bytes: u64,
    /// Read operations touching the page.
    pub reads: u64,
    /// Bytes read in the page, rereads included.
    pub bytes_read: u64,
    /// Write operations touching the page.
    pub writes: u64,
    /// Bytes written in the page, rewrites included.
    pub bytes_written: u64,
    /// Bytes of the page written at least once.
    pub distinct_bytes_written: u64,
}

impl PageRow {
    /// `bytes_written / distinct_bytes_written` in hundredths, rounded half away from zero;
    /// `None` for a page that was not written.
    pub fn rewrite_ratio_hundredths(&self) -> Option<u64> {
        let d = self.distinct_bytes_written;
        (d > 0).then(|| (self.bytes_written * 200 + d) / (2 * d))
    }
}

/// The page table of one run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PageTable {
    /// Rows in ascending page order.
    pub rows: Vec<PageRow>,
}

fn overlaps(r: Range, lo: u64, hi: u64) -> bool {
    r.0 < hi && lo < r.1 && r.0 < r.1
}

/// Total length of the union of `ranges` intersected with `[lo, hi)`.
fn union_len(ranges: &[Range], lo: u64, hi: u64) -> u64 {
    let mut clipped: Vec<Range> =
        ranges.iter().map(|&(s, e)| (s.max(lo), e.min(hi))).filter(|&(s, e)| s < e).collect();
    crate::order::sort(&mut clipped);
    let (mut total, mut cur_end) = (0u64, lo);
    for (s, e) in clipped {
        let s = s.max(cur_end);
        if e > s {
            total += e - s;
            cur_end = e;
        }
    }
    total
}

impl PageTable {
    /// Builds the table from the recorded accesses and the known regions.
    pub fn new(recorder: &PageRecorder, regions: &Regions) -> PageTable {
        let mut init_ranges: Vec<Range> = regions.data.clone();
        init_ranges.extend(regions.input_bytes.filter(|r| r.0 < r.1));
        let mut candidates: Vec<u64> = recorder
            .pages
            .iter()
            .enumerate()
            .filter(|(_, c)| c.as_ref().is_some_and(|c| c.reads > 0 || c.writes > 0))
            .map(|(p, _)| p as u64)
            .collect();
        for &(s, e) in &init_ranges {
            if s < e {
                candidates.extend(s / PAGE_SIZE..e.div_ceil(PAGE_SIZE));
            }
        }
        crate::order::sort(&mut candidates);
        candidates.dedup();
        let mut rows = Vec::with_capacity(candidates.len());
        for page in candidates {
            let (lo, hi) = (page * PAGE_SIZE, (page + 1) * PAGE_SIZE);
            let initialized_bytes = union_len(&init_ranges, lo, hi);
            let empty = PageCounts::default();
            let c = recorder.pages.get(page as usize).and_then(|c| c.as_deref()).unwrap_or(&empty);
            if initialized_bytes == 0 && c.reads == 0 && c.writes == 0 {
                continue;
            }
            let region = regions.label(page);
            rows.push(PageRow {
                page,
                region,
                initialized_bytes,
                reads: c.reads,
                bytes_read: c.bytes_read,
                writes: c.writes,
                bytes_written: c.bytes_written,
                distinct_bytes_written: c.distinct_written(),
            });
        }
        PageTable { rows }
    }

    /// The CSV of docs/page-table.md, written with `csv-core`: the header and one line per row,
    /// separated by `\n`, with no line end after the last row (hosts such as `qip run` add one
    /// newline when they print UTF-8 output, so the terminal shows no blank line).
    pub fn to_csv(&self) -> String {
        let mut writer = csv_core::WriterBuilder::new().terminator(csv_core::Terminator::Any(b'\n')).build();
        let mut out: Vec<u8> = Vec::with_capacity(128 + self.rows.len() * 64);
        let mut record = |fields: &[&[u8]], out: &mut Vec<u8>| {
            for (i, f) in fields.iter().enumerate() {
                if i > 0 {
                    write_all(out, |buf| writer.delimiter(buf));
                }
                let mut input: &[u8] = f;
                loop {
                    let mut buf = [0u8; 256];
                    let (r, nin, nout) = writer.field(input, &mut buf);
                    out.extend_from_slice(&buf[..nout]);
                    input = &input[nin..];
                    if r == csv_core::WriteResult::InputEmpty {
                        break;
                    }
                }
                write_all(out, |buf| writer.finish(buf));
            }
            write_all(out, |buf| writer.terminator(buf));
        };
        let header: Vec<&[u8]> = CSV_HEADER.split(',').map(str::as_bytes).collect();
        record(&header, &mut out);
        for row in &self.rows {
            let mut nums = String::new();
            let mut cols: Vec<(usize, usize)> = Vec::new();
            let mut push = |nums: &mut String, v: &dyn core::fmt::Display| {
                let start = nums.len();
                let _ = write!(nums, "{v}");
                cols.push((start, nums.len()));
            };
            push(&mut nums, &row.page);
            push(&mut nums, &row.initialized_bytes);
            push(&mut nums, &row.reads);
            push(&mut nums, &row.bytes_read);
            push(&mut nums, &row.writes);
            push(&mut nums, &row.bytes_written);
            push(&mut nums, &row.distinct_bytes_written);
            let ratio = match row.rewrite_ratio_hundredths() {
                Some(h) => alloc::format!("{}.{:02}", h / 100, h % 100),
                None => String::new(),
            };
            let f = |i: usize| &nums.as_bytes()[cols[i].0..cols[i].1];
            let fields: [&[u8]; 9] =
                [f(0), row.region.as_bytes(), f(1), f(2), f(3), f(4), f(5), f(6), ratio.as_bytes()];
            record(&fields, &mut out);
        }
        // No trailing blank line: the last row's terminator ends the text.
        out.pop();
        String::from_utf8(out).expect("the CSV is ASCII")
    }
}

fn write_all(out: &mut Vec<u8>, mut step: impl FnMut(&mut [u8]) -> (csv_core::WriteResult, usize)) {
    let mut buf = [0u8; 16];
    loop {
        let (r, n) = step(&mut buf);
        out.extend_from_slice(&buf[..n]);
        if r == csv_core::WriteResult::InputEmpty {
            break;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec;

    #[test]
    fn crossing_operations_count_on_both_pages() {
        let mut r = PageRecorder::new();
        // A 4-byte store at 65_534 covers 65_534..65_538: 2 bytes on page 0, 2 on page 1.
        r.store(65_534, 4, 1);
        // The same store again: bytes_written doubles, distinct stays.
        r.store(65_534, 4, 2);
        // memory.copy of 3 bytes from 100 to 0: a read of 3 bytes and a write of 3 on page 0.
        r.copy(0, 100, 3, 3);
        let t = PageTable::new(&r, &Regions::default());
        assert_eq!(t.rows.len(), 2);
        let p0 = &t.rows[0];
        assert_eq!((p0.page, p0.reads, p0.bytes_read, p0.writes, p0.bytes_written), (0, 1, 3, 3, 7));
        // Distinct on page 0: 65_534, 65_535 and 0, 1, 2 = 5.
        assert_eq!(p0.distinct_bytes_written, 5);
        let p1 = &t.rows[1];
        assert_eq!(
            (p1.page, p1.reads, p1.writes, p1.bytes_written, p1.distinct_bytes_written),
            (1, 0, 2, 4, 2)
        );
        assert_eq!(p1.rewrite_ratio_hundredths(), Some(200));
    }

    /// Every load and store width at every offset around a bitmap word's edge and a page's
    /// edge (the one-page fast path and the general path), each on a fresh recorder so that no
    /// other access covers a miscount, against counts derived from the address range alone.
    #[test]
    fn each_load_and_store_matches_its_byte_range() {
        let starts = (0..130).chain(65_400..65_540).chain(131_040..131_100);
        for addr in starts {
            for len in [1u64, 2, 4, 8, 16] {
                for store in [false, true] {
                    let mut r = PageRecorder::new();
                    if store {
                        r.store(addr, len as u32, 0);
                    } else {
                        r.load(addr, len as u32, 0);
                    }
                    let t = PageTable::new(&r, &Regions::default());
                    let (first, last) = (addr / PAGE_SIZE, (addr + len - 1) / PAGE_SIZE);
                    assert_eq!(t.rows.len() as u64, last - first + 1, "{addr}+{len}");
                    for row in &t.rows {
                        let lo = addr.max(row.page * PAGE_SIZE);
                        let hi = (addr + len).min((row.page + 1) * PAGE_SIZE);
                        let (ops, bytes) =
                            if store { ((0, 0), (1, hi - lo)) } else { ((1, hi - lo), (0, 0)) };
                        assert_eq!(
                            ((row.reads, row.bytes_read), (row.writes, row.bytes_written)),
                            (ops, bytes),
                            "{addr}+{len} page {}",
                            row.page
                        );
                        assert_eq!(row.distinct_bytes_written, bytes.1, "{addr}+{len} page {}", row.page);
                    }
                }
            }
        }
    }

    #[test]
    fn rewrite_ratio_rounds_half_away_from_zero() {
        let row = |bw, d| PageRow {
            page: 0,
            region: "other".into(),
            initialized_bytes: 0,
            reads: 0,
            bytes_read: 0,
            writes: 1,
            bytes_written: bw,
            distinct_bytes_written: d,
        };
        // 7 / 3 = 2.333 → 2.33; 5 / 2 = 2.5 → 2.50; 201 / 200 = 1.005 exactly → 1.01;
        // 1001 / 600 = 1.66833 → 1.67; 0 distinct → empty.
        assert_eq!(row(7, 3).rewrite_ratio_hundredths(), Some(233));
        assert_eq!(row(5, 2).rewrite_ratio_hundredths(), Some(250));
        assert_eq!(row(201, 200).rewrite_ratio_hundredths(), Some(101));
        assert_eq!(row(1001, 600).rewrite_ratio_hundredths(), Some(167));
        assert_eq!(row(0, 0).rewrite_ratio_hundredths(), None);
    }

    #[test]
    fn regions_initialized_bytes_and_csv() {
        let mut r = PageRecorder::new();
        r.load(70_000, 8, 1); // page 1: 1 read, 8 bytes
        r.fill(200_000, 10, 2); // page 3: 1 write of 10 bytes
        r.stack_pointer_write(65_000, 0);
        r.stack_pointer_write(64_000, 0);
        r.stack_pointer_write(65_000, 0);
        let regions = Regions {
            // Data [10, 20) and [15, 30) overlap; the input bytes [25, 40) too: union [10, 40)
            // = 30 initialized bytes on page 0.
            data: vec![(10, 20), (15, 30)],
            input: Some((20, 131_072)),
            input_bytes: Some((25, 40)),
            stack: Regions::stack_range(Some(65_536), r.lowest_stack_pointer()),
            output: Some((200_000, 200_010)),
            ..Regions::default()
        };
        assert_eq!(regions.stack, Some((64_000, 65_536)));
        let t = PageTable::new(&r, &regions);
        assert_eq!(
            t.to_csv(),
            "page,region,initialized_bytes,reads,bytes_read,writes,bytes_written,distinct_bytes_written,rewrite_ratio\n\
             0,data+input+stack,30,0,0,0,0,0,\n\
             1,input,0,1,8,0,0,0,\n\
             3,output,0,0,0,1,10,10,1.00"
        );
    }
}
