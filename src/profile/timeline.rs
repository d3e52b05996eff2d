//! The time axis of a run (docs/report.md, "Time"): when each page was touched, reads and
//! writes binned over address × instruction count, the stack pointer over time, and the
//! high-water marks.
//!
//! Time is the run's instruction count at the access (the access's own instruction
//! included), over the whole run, setters included. Bins have a width that is a power of two
//! instructions; the recorder starts at width 1 and doubles it, merging neighbouring bins,
//! whenever an event falls past the last of [`MAX_BINS`] bins, so memory stays bounded by the
//! touched pages (8 KiB each) without knowing the run's length in advance.

use alloc::vec;
use alloc::vec::Vec;

use super::pages::PAGE_SIZE;
use crate::wasm::Observer;

/// Most time bins.
pub const MAX_BINS: usize = 1024;

/// The touches of one page.
#[derive(Debug, Clone)]
pub struct PageTimes {
    /// The page index.
    pub page: u64,
    /// Instruction count of its first and last access.
    pub first: u64,
    /// See `first`.
    pub last: u64,
    /// Per bin: (read events, write events) touching the page (an access across pages counts
    /// in each, as in the page table).
    pub bins: Vec<(u32, u32)>,
}

/// Records the time axis; an [`Observer`].
#[derive(Debug, Clone, Default)]
pub struct Timeline {
    /// log2 of the bin width in instructions.
    shift: u32,
    /// Per page index: position in `pages` + 1, or 0 while untouched.
    index: Vec<u32>,
    pages: Vec<PageTimes>,
    /// Per bin: the lowest value global 0 took (u32::MAX: not written in that bin).
    stack: Vec<u32>,
    lowest_stack: Option<u32>,
    highest_written: Option<u64>,
}

/// The finished time axis.
#[derive(Debug, Clone)]
pub struct Times {
    /// Width of a bin in instructions (a power of two).
    pub bin_width: u64,
    /// The pages touched, ascending by page index.
    pub pages: Vec<PageTimes>,
    /// Per bin: the lowest value of global 0 written in the bin, or `None`.
    pub stack: Vec<Option<u32>>,
    /// The lowest value global 0 took during the run.
    pub lowest_stack: Option<u32>,
    /// The highest address written during the run.
    pub highest_written: Option<u64>,
    /// Number of bins in use: the bins cover `[0, bins · bin_width)`.
    pub bins: usize,
}

impl Timeline {
    /// An empty recorder.
    pub fn new() -> Self {
        Timeline { stack: vec![u32::MAX; MAX_BINS], ..Self::default() }
    }

    /// The bin of instruction count `n`, widening the bins until it fits.
    fn bin(&mut self, n: u64) -> usize {
        while (n >> self.shift) as usize >= MAX_BINS {
            self.widen();
        }
        (n >> self.shift) as usize
    }

    #[cold]
    fn widen(&mut self) {
        self.shift += 1;
        for p in &mut self.pages {
            for i in 0..MAX_BINS / 2 {
                let (a, b) = (p.bins[2 * i], p.bins[2 * i + 1]);
                p.bins[i] = (a.0.saturating_add(b.0), a.1.saturating_add(b.1));
            }
            p.bins[MAX_BINS / 2..].fill((0, 0));
        }
        for i in 0..MAX_BINS / 2 {
            self.stack[i] = self.stack[2 * i].min(self.stack[2 * i + 1]);
        }
        self.stack[MAX_BINS / 2..].fill(u32::MAX);
    }

    fn touch(&mut self, addr: u64, len: u64, n: u64, write: bool) {
        if len == 0 {
            return;
        }
        let bin = self.bin(n);
        for page in addr / PAGE_SIZE..=(addr + len - 1) / PAGE_SIZE {
            let i = page as usize;
            if i >= self.index.len() {
                self.index.resize(i + 1, 0);
            }
            if self.index[i] == 0 {
                self.pages.push(PageTimes { page, first: n, last: n, bins: vec![(0, 0); MAX_BINS] });
                self.index[i] = self.pages.len() as u32;
            }
            let p = &mut self.pages[self.index[i] as usize - 1];
            p.last = n;
            let b = &mut p.bins[bin];
            if write {
                b.1 = b.1.saturating_add(1);
            } else {
                b.0 = b.0.saturating_add(1);
            }
        }
        if write {
            let end = addr + len - 1;
            self.highest_written = Some(self.highest_written.map_or(end, |h| h.max(end)));
        }
    }

    /// Ends the recording. `instructions`: the run's final count (the bins then cover it).
    pub fn finish(mut self, instructions: u64) -> Times {
        let last = self.bin(instructions.saturating_sub(1));
        let bins = last + 1;
        self.pages.sort_by_key(|p| p.page);
        for p in &mut self.pages {
            p.bins.truncate(bins);
        }
        Times {
            bin_width: 1 << self.shift,
            pages: self.pages,
            stack: self.stack[..bins].iter().map(|&v| (v != u32::MAX).then_some(v)).collect(),
            lowest_stack: self.lowest_stack,
            highest_written: self.highest_written,
            bins,
        }
    }
}

impl Observer for Timeline {
    fn load(&mut self, addr: u64, len: u32, n: u64) {
        self.touch(addr, len as u64, n, false);
    }
    fn store(&mut self, addr: u64, len: u32, n: u64) {
        self.touch(addr, len as u64, n, true);
    }
    fn copy(&mut self, dst: u64, src: u64, len: u64, n: u64) {
        self.touch(src, len, n, false);
        self.touch(dst, len, n, true);
    }
    fn fill(&mut self, dst: u64, len: u64, n: u64) {
        self.touch(dst, len, n, true);
    }
    fn global0_write(&mut self, value: u32, n: u64) {
        let bin = self.bin(n);
        self.stack[bin] = self.stack[bin].min(value);
        self.lowest_stack = Some(self.lowest_stack.map_or(value, |l| l.min(value)));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bins_widen_by_merging_pairs() {
        let mut t = Timeline::new();
        t.store(10, 4, 0);
        t.load(65536, 1, 1023);
        t.load(65536, 1, 1024); // past bin 1023 at width 1: width 2, this is bin 512
        t.global0_write(900, 5);
        t.global0_write(800, 4);
        let times = t.finish(1025);
        assert_eq!(times.bin_width, 2);
        assert_eq!(times.bins, 513);
        assert_eq!(times.pages.len(), 2);
        let (p0, p1) = (&times.pages[0], &times.pages[1]);
        assert_eq!((p0.page, p0.first, p0.last, p0.bins[0]), (0, 0, 0, (0, 1)));
        assert_eq!((p1.page, p1.first, p1.last), (1, 1023, 1024));
        assert_eq!((p1.bins[511], p1.bins[512]), ((1, 0), (1, 0)));
        assert_eq!(p1.bins.iter().map(|b| b.0).sum::<u32>(), 2);
        // Counts 4 and 5 share bin 2 at width 2.
        assert_eq!(times.stack[2], Some(800));
        assert_eq!(times.stack[1], None);
        assert_eq!((times.lowest_stack, times.highest_written), (Some(800), Some(13)));
    }

    #[test]
    fn an_access_across_pages_counts_in_both() {
        let mut t = Timeline::new();
        t.copy(65534, 10, 4, 7);
        let times = t.finish(8);
        let got: Vec<(u64, (u32, u32))> = times.pages.iter().map(|p| (p.page, p.bins[7])).collect();
        assert_eq!(got, [(0, (1, 1)), (1, (0, 1))]);
        assert_eq!(times.highest_written, Some(65537));
    }
}
