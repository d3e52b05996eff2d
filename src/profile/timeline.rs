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
#[derive(Debug, Clone)]
pub struct Timeline {
    /// log2 of the bin width in instructions.
    shift: u32,
    /// Per page index: position among the touched pages + 1, or 0 while untouched.
    index: Vec<u32>,
    /// Per position: the page index, and the instruction counts of its first and last touch.
    pages: Vec<(u64, u64, u64)>,
    /// Per position, [`MAX_BINS`] entries each: (read events, write events).
    bins: Vec<(u32, u32)>,
    /// Per bin: the lowest value global 0 took (u32::MAX: not written in that bin).
    stack: Vec<u32>,
    lowest_stack: Option<u32>,
    highest_written: Option<u64>,
}

impl Default for Timeline {
    fn default() -> Self {
        Self::new()
    }
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
        Timeline {
            shift: 0,
            index: Vec::new(),
            pages: Vec::new(),
            bins: Vec::new(),
            stack: vec![u32::MAX; MAX_BINS],
            lowest_stack: None,
            highest_written: None,
        }
    }

    /// The bin of instruction count `n`, widening the bins until it fits.
    #[inline]
    fn bin(&mut self, n: u64) -> usize {
        let bin = (n >> self.shift) as usize;
        if bin < MAX_BINS { bin } else { self.widen_to(n) }
    }

    #[cold]
    fn widen_to(&mut self, n: u64) -> usize {
        while (n >> self.shift) as usize >= MAX_BINS {
            self.shift += 1;
            for bins in self.bins.chunks_exact_mut(MAX_BINS) {
                for i in 0..MAX_BINS / 2 {
                    let (a, b) = (bins[2 * i], bins[2 * i + 1]);
                    bins[i] = (a.0.saturating_add(b.0), a.1.saturating_add(b.1));
                }
                bins[MAX_BINS / 2..].fill((0, 0));
            }
            for i in 0..MAX_BINS / 2 {
                self.stack[i] = self.stack[2 * i].min(self.stack[2 * i + 1]);
            }
            self.stack[MAX_BINS / 2..].fill(u32::MAX);
        }
        (n >> self.shift) as usize
    }

    /// The position of `page`, adding it at its first touch (instruction count `n`).
    #[inline(never)]
    fn position(&mut self, page: u64, n: u64) -> usize {
        let i = page as usize;
        if i >= self.index.len() {
            self.index.resize(i + 1, 0);
        }
        if self.index[i] == 0 {
            self.pages.push((page, n, n));
            self.bins.resize(self.bins.len() + MAX_BINS, (0, 0));
            self.index[i] = self.pages.len() as u32;
        }
        self.index[i] as usize - 1
    }

    #[inline(always)]
    fn count(&mut self, page: u64, bin: usize, n: u64, write: bool) {
        let pos = match self.index.get(page as usize) {
            Some(&i) if i != 0 => i as usize - 1,
            _ => self.position(page, n),
        };
        self.pages[pos].2 = n;
        let b = &mut self.bins[pos * MAX_BINS + bin];
        if write {
            b.1 = b.1.saturating_add(1);
        } else {
            b.0 = b.0.saturating_add(1);
        }
    }

    #[inline(always)]
    fn touch(&mut self, addr: u64, len: u64, n: u64, write: bool) {
        if len == 0 {
            return;
        }
        let bin = self.bin(n);
        let end = addr + len - 1;
        let (first, last) = (addr / PAGE_SIZE, end / PAGE_SIZE);
        if first == last {
            self.count(first, bin, n, write);
        } else {
            for page in first..=last {
                self.count(page, bin, n, write);
            }
        }
        if write && self.highest_written.is_none_or(|h| end > h) {
            self.highest_written = Some(end);
        }
    }

    /// Ends the recording. `instructions`: the run's final count (the bins then cover it).
    pub fn finish(mut self, instructions: u64) -> Times {
        let last = self.bin(instructions.saturating_sub(1));
        let bins = last + 1;
        let mut pages: Vec<PageTimes> = self
            .pages
            .iter()
            .zip(self.bins.chunks_exact(MAX_BINS))
            .map(|(&(page, first, last), b)| PageTimes { page, first, last, bins: b[..bins].to_vec() })
            .collect();
        crate::order::sort_by_key(&mut pages, |p| p.page);
        Times {
            bin_width: 1 << self.shift,
            pages,
            stack: self.stack[..bins].iter().map(|&v| (v != u32::MAX).then_some(v)).collect(),
            lowest_stack: self.lowest_stack,
            highest_written: self.highest_written,
            bins,
        }
    }
}

impl Observer for Timeline {
    #[inline]
    fn load(&mut self, addr: u64, len: u32, n: u64) {
        self.touch(addr, len as u64, n, false);
    }
    #[inline]
    fn store(&mut self, addr: u64, len: u32, n: u64) {
        self.touch(addr, len as u64, n, true);
    }
    #[inline]
    fn copy(&mut self, dst: u64, src: u64, len: u64, n: u64) {
        self.touch(src, len, n, false);
        self.touch(dst, len, n, true);
    }
    #[inline]
    fn fill(&mut self, dst: u64, len: u64, n: u64) {
        self.touch(dst, len, n, true);
    }
    fn host_read(&mut self, addr: u64, len: u64, n: u64) {
        self.touch(addr, len, n, false);
    }
    fn host_write(&mut self, addr: u64, len: u64, n: u64) {
        self.touch(addr, len, n, true);
    }
    #[inline]
    fn stack_pointer_write(&mut self, value: u32, n: u64) {
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
        t.stack_pointer_write(900, 5);
        t.stack_pointer_write(800, 4);
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
