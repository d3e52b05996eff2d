//! `random_get`'s generator: SplitMix64 (Guy L. Steele, Doug Lea and Christine H. Flood,
//! "Fast splittable pseudorandom number generators", OOPSLA 2014; the constants of Sebastiano
//! Vigna's reference `splitmix64.c`), seeded with [`Config::seed`](super::Config::seed).
//!
//! The bytes a run receives are the little-endian bytes of the generator's successive outputs,
//! one stream across all the calls of the run: a call for `n` bytes takes the next `n` bytes
//! of the stream. Not cryptographic: a run is meant to repeat exactly, and two runs with one
//! seed receive the same bytes.

/// The generator and the unused bytes of its last output.
#[derive(Debug, Clone)]
pub(super) struct SplitMix64 {
    state: u64,
    /// The last output's bytes not yet handed out: `buf[used..]`.
    buf: [u8; 8],
    used: usize,
}

impl SplitMix64 {
    pub fn new(seed: u64) -> Self {
        SplitMix64 { state: seed, buf: [0; 8], used: 8 }
    }

    /// The next 64-bit output.
    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Fills `out` with the next bytes of the stream.
    pub fn fill(&mut self, out: &mut [u8]) {
        for b in out {
            if self.used == 8 {
                self.buf = self.next_u64().to_le_bytes();
                self.used = 0;
            }
            *b = self.buf[self.used];
            self.used += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reference_outputs() {
        // splitmix64.c with x = 0: the first outputs as published with the reference code
        // (and as Java's SplittableRandom(0).nextLong() gives them).
        let mut g = SplitMix64::new(0);
        assert_eq!(g.next_u64(), 0xE220_A839_7B1D_CDAF);
        assert_eq!(g.next_u64(), 0x6E78_9E6A_A1B9_65F4);
        assert_eq!(g.next_u64(), 0x06C4_5D18_8009_454F);
    }

    #[test]
    fn one_stream_across_calls() {
        let mut whole = [0u8; 20];
        SplitMix64::new(7).fill(&mut whole);
        let mut g = SplitMix64::new(7);
        let (mut a, mut b) = ([0u8; 3], [0u8; 17]);
        g.fill(&mut a);
        g.fill(&mut b);
        assert_eq!(&whole[..3], &a);
        assert_eq!(&whole[3..], &b);
    }
}
