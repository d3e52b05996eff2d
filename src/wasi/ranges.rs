//! The set of guest memory ranges the WASI calls touched ([`Wasi::io_ranges`]): byte ranges
//! `[start, end)` of memory 0, kept merged (overlapping or adjacent ranges become one) and
//! bounded in number.
//!
//! When a range would make the set hold more than [`IO_RANGES_CAP`] ranges, the set is
//! coarsened at once to `IO_RANGES_CAP * 3 / 4` ranges by closing the smallest gaps between
//! neighbours (the earlier gap first among equal ones): the merged ranges then also cover the
//! bytes of the gaps they closed, so the set over-approximates what was touched, never
//! under-approximates it. Coarsening a quarter at a time keeps the cost of a recorded range
//! amortised O(log n).
//!
//! [`Wasi::io_ranges`]: super::Wasi::io_ranges

use alloc::collections::BTreeMap;
use alloc::vec::Vec;

/// The most ranges [`super::Wasi::io_ranges`] returns.
pub const IO_RANGES_CAP: usize = 1024;

/// Merged, bounded byte ranges: `start → end`, disjoint and not adjacent.
#[derive(Debug, Default, Clone)]
pub(super) struct IoRanges {
    ranges: BTreeMap<u64, u64>,
}

impl IoRanges {
    /// Adds `[start, end)` (nothing when empty).
    pub fn add(&mut self, start: u64, end: u64) {
        if start >= end {
            return;
        }
        let (mut start, mut end) = (start, end);
        // A range that starts at or before `start` and reaches it absorbs the new one.
        if let Some((&s, &e)) = self.ranges.range(..=start).next_back()
            && e >= start
        {
            start = s;
            end = end.max(e);
            self.ranges.remove(&s);
        }
        // Ranges that start inside `[start, end]` are absorbed.
        while let Some((&s, &e)) = self.ranges.range(start..=end).next() {
            end = end.max(e);
            self.ranges.remove(&s);
        }
        self.ranges.insert(start, end);
        if self.ranges.len() > IO_RANGES_CAP {
            self.coarsen(IO_RANGES_CAP * 3 / 4);
        }
    }

    /// Closes the smallest gaps until `target` ranges remain.
    fn coarsen(&mut self, target: usize) {
        let list: Vec<(u64, u64)> = self.ranges.iter().map(|(&s, &e)| (s, e)).collect();
        let merges = list.len().saturating_sub(target);
        // Gap `i` lies between range `i` and range `i + 1`.
        let mut gaps: Vec<(u64, usize)> =
            list.windows(2).enumerate().map(|(i, w)| (w[1].0 - w[0].1, i)).collect();
        gaps.sort_unstable();
        let mut close = alloc::vec![false; list.len()];
        for &(_, i) in gaps.iter().take(merges) {
            close[i] = true;
        }
        self.ranges.clear();
        let mut current = list[0];
        for (i, &(s, e)) in list.iter().enumerate().skip(1) {
            if close[i - 1] {
                current.1 = e;
            } else {
                self.ranges.insert(current.0, current.1);
                current = (s, e);
            }
        }
        self.ranges.insert(current.0, current.1);
    }

    /// The ranges, sorted by start.
    pub fn to_vec(&self) -> Vec<(u64, u64)> {
        self.ranges.iter().map(|(&s, &e)| (s, e)).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn merges_overlapping_and_adjacent() {
        let mut r = IoRanges::default();
        r.add(10, 20);
        r.add(30, 40);
        r.add(20, 25); // adjacent to [10, 20): one range [10, 25)
        r.add(5, 6);
        r.add(0, 0); // empty: ignored
        assert_eq!(r.to_vec(), [(5, 6), (10, 25), (30, 40)]);
        r.add(6, 35); // bridges all three: [5, 40)
        assert_eq!(r.to_vec(), [(5, 40)]);
        r.add(7, 8); // inside: unchanged
        assert_eq!(r.to_vec(), [(5, 40)]);
    }

    #[test]
    fn coarsens_smallest_gaps_first() {
        let mut r = IoRanges::default();
        // Range 0 is [0, 9), range k (1 ≤ k ≤ 1024) is [10k, 10k + 1): 1025 ranges.
        r.add(0, 9);
        for k in 1..=IO_RANGES_CAP as u64 {
            r.add(10 * k, 10 * k + 1);
        }
        // 1025 ranges > 1024: coarsened to 768 by closing 257 gaps. Gap 0 is 1 byte (9..10),
        // every other gap 9 bytes; the smallest first, then the earliest of the equal ones:
        // gaps 0..=256 close, so ranges 0..=257 become [0, 2571) and 767 ranges follow.
        let v = r.to_vec();
        assert_eq!(v.len(), 768);
        assert_eq!(v[0], (0, 10 * 257 + 1));
        assert_eq!(v[1], (10 * 258, 10 * 258 + 1));
        assert_eq!(*v.last().unwrap(), (10_240, 10_241));
    }
}
