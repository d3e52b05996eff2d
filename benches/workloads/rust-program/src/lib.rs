//! Benchmark workload: a small, deterministic, compute-bound program for
//! `wasm32-unknown-unknown`, without std, allocator or imports. `run(n)` hashes `n` × 64 KiB of
//! generated data with SHA-256, counts the primes below 400,000 with a sieve, sorts 40,000
//! pseudo-random integers, and renders a small Mandelbrot set with `f64`s; it returns a
//! checksum of all four so that nothing can be optimised away and engines can be compared.
#![no_std]

use core::panic::PanicInfo;

#[panic_handler]
fn panic(_: &PanicInfo<'_>) -> ! {
    // `panic = "abort"` in every profile: this compiles to `unreachable`.
    loop {}
}

/// xorshift64*: the generator of all input data.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
}

// ---------------------------------------------------------------------------------------------
// SHA-256 (FIPS 180-4), streaming.

const K: [u32; 64] = [
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
];

struct Sha256 {
    state: [u32; 8],
    block: [u8; 64],
    fill: usize,
    bytes: u64,
}

impl Sha256 {
    fn new() -> Self {
        Sha256 {
            state: [
                0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab,
                0x5be0cd19,
            ],
            block: [0; 64],
            fill: 0,
            bytes: 0,
        }
    }

    fn compress(state: &mut [u32; 8], block: &[u8; 64]) {
        let mut w = [0u32; 64];
        for (i, c) in block.chunks_exact(4).enumerate() {
            w[i] = u32::from_be_bytes([c[0], c[1], c[2], c[3]]);
        }
        for i in 16..64 {
            let s0 = w[i - 15].rotate_right(7) ^ w[i - 15].rotate_right(18) ^ (w[i - 15] >> 3);
            let s1 = w[i - 2].rotate_right(17) ^ w[i - 2].rotate_right(19) ^ (w[i - 2] >> 10);
            w[i] = w[i - 16].wrapping_add(s0).wrapping_add(w[i - 7]).wrapping_add(s1);
        }
        let [mut a, mut b, mut c, mut d, mut e, mut f, mut g, mut h] = *state;
        for i in 0..64 {
            let s1 = e.rotate_right(6) ^ e.rotate_right(11) ^ e.rotate_right(25);
            let ch = (e & f) ^ (!e & g);
            let t1 = h.wrapping_add(s1).wrapping_add(ch).wrapping_add(K[i]).wrapping_add(w[i]);
            let s0 = a.rotate_right(2) ^ a.rotate_right(13) ^ a.rotate_right(22);
            let maj = (a & b) ^ (a & c) ^ (b & c);
            let t2 = s0.wrapping_add(maj);
            h = g;
            g = f;
            f = e;
            e = d.wrapping_add(t1);
            d = c;
            c = b;
            b = a;
            a = t1.wrapping_add(t2);
        }
        for (s, v) in state.iter_mut().zip([a, b, c, d, e, f, g, h]) {
            *s = s.wrapping_add(v);
        }
    }

    fn update(&mut self, mut data: &[u8]) {
        self.bytes += data.len() as u64;
        while !data.is_empty() {
            let take = (64 - self.fill).min(data.len());
            self.block[self.fill..self.fill + take].copy_from_slice(&data[..take]);
            self.fill += take;
            data = &data[take..];
            if self.fill == 64 {
                Self::compress(&mut self.state, &self.block);
                self.fill = 0;
            }
        }
    }

    fn finish(mut self) -> [u8; 32] {
        let bits = self.bytes.wrapping_mul(8);
        self.update(&[0x80]);
        while self.fill != 56 {
            self.update(&[0]);
        }
        self.update(&bits.to_be_bytes());
        let mut out = [0u8; 32];
        for (o, s) in out.chunks_exact_mut(4).zip(self.state) {
            o.copy_from_slice(&s.to_be_bytes());
        }
        out
    }
}

fn sha256_work(n: u32, rng: &mut Rng) -> u32 {
    let mut chunk = [0u8; 4096];
    let mut h = Sha256::new();
    for _ in 0..n * 16 {
        for c in chunk.chunks_exact_mut(8) {
            c.copy_from_slice(&rng.next().to_le_bytes());
        }
        h.update(&chunk);
    }
    let d = h.finish();
    u32::from_le_bytes([d[0], d[1], d[2], d[3]]) ^ u32::from_le_bytes([d[28], d[29], d[30], d[31]])
}

// ---------------------------------------------------------------------------------------------
// Sieve of Eratosthenes (one byte per odd number).

const SIEVE_LIMIT: usize = 400_000;

fn sieve() -> u32 {
    let mut composite = [false; SIEVE_LIMIT / 2];
    let mut count = 1; // 2
    let mut i = 3;
    while i < SIEVE_LIMIT {
        if !composite[i / 2] {
            count += 1;
            let mut j = i * i;
            while j < SIEVE_LIMIT {
                composite[j / 2] = true;
                j += 2 * i;
            }
        }
        i += 2;
    }
    count
}

// ---------------------------------------------------------------------------------------------
// Sorting.

const SORT_LEN: usize = 40_000;

fn sort_work(rng: &mut Rng) -> u32 {
    let mut v = [0u32; SORT_LEN];
    for x in v.iter_mut() {
        *x = rng.next() as u32;
    }
    v.sort_unstable();
    let mut acc = 0u32;
    for (i, x) in v.iter().enumerate().step_by(97) {
        acc = acc.rotate_left(5) ^ x.wrapping_add(i as u32);
    }
    acc
}

// ---------------------------------------------------------------------------------------------
// Mandelbrot set, 96 × 64 points, at most 200 iterations each.

fn mandelbrot() -> u32 {
    let (w, h, max) = (96, 64, 200);
    let mut total = 0u32;
    for py in 0..h {
        for px in 0..w {
            let cx = -2.2 + 3.0 * px as f64 / w as f64;
            let cy = -1.2 + 2.4 * py as f64 / h as f64;
            let (mut x, mut y, mut k) = (0.0f64, 0.0f64, 0);
            while k < max && x * x + y * y <= 4.0 {
                let t = x * x - y * y + cx;
                y = 2.0 * x * y + cy;
                x = t;
                k += 1;
            }
            total = total.wrapping_mul(31).wrapping_add(k);
        }
    }
    total
}

/// The workload: `n` scales the hashed data (`n` × 64 KiB); the other parts are fixed.
#[unsafe(no_mangle)]
pub extern "C" fn run(n: i32) -> i32 {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15 ^ n as u64);
    let a = sha256_work(n as u32, &mut rng);
    let b = sieve();
    let c = sort_work(&mut rng);
    let d = mandelbrot();
    (a ^ b.rotate_left(8) ^ c.rotate_left(16) ^ d.rotate_left(24)) as i32
}
