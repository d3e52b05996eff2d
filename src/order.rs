//! One small sort for the lists the tools put in order: pages, functions, tiles, uniforms.
//!
//! The standard library's sorts are faster on long inputs, but each element type brings
//! several kilobytes of code (quicksort, heapsort fallback, small-sort networks) into the
//! Content components, which a host compiles on every run (docs/components.md). These lists
//! are short (at most a few thousand entries), so a heapsort serves: O(n log n), in place,
//! a few hundred bytes per use. It is not stable; every caller orders by a total order (ties
//! broken by an index or an address), so the result is the same as any sort's.

/// Sorts `v` so that no element is `less` than one before it. `less` must be a strict weak
/// order.
pub(crate) fn sort_by<T>(v: &mut [T], mut less: impl FnMut(&T, &T) -> bool) {
    let n = v.len();
    for root in (0..n / 2).rev() {
        sift_down(v, root, n, &mut less);
    }
    for end in (1..n).rev() {
        v.swap(0, end);
        sift_down(v, 0, end, &mut less);
    }
}

/// Sorts `v` in ascending order.
pub(crate) fn sort<T: Ord>(v: &mut [T]) {
    sort_by(v, |a, b| a < b);
}

/// Sorts `v` by ascending `key`.
pub(crate) fn sort_by_key<T, K: Ord>(v: &mut [T], mut key: impl FnMut(&T) -> K) {
    sort_by(v, |a, b| key(a) < key(b));
}

/// Restores the max-heap property below `root` in `v[..end]`.
fn sift_down<T>(v: &mut [T], mut root: usize, end: usize, less: &mut impl FnMut(&T, &T) -> bool) {
    loop {
        let mut child = 2 * root + 1;
        if child >= end {
            return;
        }
        if child + 1 < end && less(&v[child], &v[child + 1]) {
            child += 1;
        }
        if !less(&v[root], &v[child]) {
            return;
        }
        v.swap(root, child);
        root = child;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec::Vec;

    #[test]
    fn sorts_like_the_standard_library() {
        // Lengths 0 to 300, values from a linear congruential stream with many duplicates;
        // the standard library's sort is the reference.
        let mut x = 12345u64;
        for n in 0..300 {
            let mut v: Vec<u32> = (0..n)
                .map(|_| {
                    x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                    (x >> 40) as u32 % 50
                })
                .collect();
            let mut expected = v.clone();
            expected.sort();
            sort(&mut v);
            assert_eq!(v, expected, "n = {n}");
        }
        let mut pairs = [(3, 'c'), (1, 'z'), (2, 'b'), (1, 'a')];
        sort_by(&mut pairs, |a, b| b.0 < a.0 || (a.0 == b.0 && a.1 < b.1));
        assert_eq!(pairs, [(3, 'c'), (2, 'b'), (1, 'a'), (1, 'z')]);
    }
}
