//! The WASI fuzz target's harness (`fuzz/fuzz_targets/common/wasi_calls.rs`) without
//! libFuzzer: 3,000 deterministic pseudo-random call sequences (SplitMix64 from seeds 0…2,999,
//! 64 to 575 bytes each) against a fresh sandbox each, every one checked for no panic and
//! nothing outside the preopened directory created, changed or read.

#[path = "../fuzz/fuzz_targets/common/wasi_calls.rs"]
mod wasi_calls;

/// SplitMix64's outputs from `seed`, as bytes.
fn bytes(seed: u64, len: usize) -> Vec<u8> {
    let mut state = seed;
    let mut out = Vec::with_capacity(len + 8);
    while out.len() < len {
        state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        out.extend_from_slice(&(z ^ (z >> 31)).to_le_bytes());
    }
    out.truncate(len);
    out
}

#[test]
fn random_call_sequences_stay_inside() {
    let wasm = wat::parse_str(wasi_calls::module_wat()).unwrap();
    // On a RAM file system where there is one: the sequences call fd_sync, which on a disk
    // waits for it (about 45 s for the 3,000 sequences instead of a few).
    let shm = std::path::Path::new("/dev/shm");
    let tmp = if shm.is_dir() { shm.to_path_buf() } else { std::env::temp_dir() };
    let base = tmp.join(format!("qip-wasi-fuzz-test-{}", std::process::id()));
    for seed in 0..3000u64 {
        let _ = std::fs::remove_dir_all(&base);
        std::fs::create_dir_all(&base).unwrap();
        let data = bytes(seed, 64 + (seed as usize * 7) % 512);
        wasi_calls::run(&data, &wasm, &base);
    }
    let _ = std::fs::remove_dir_all(&base);
}
