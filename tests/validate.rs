//! Our decoder and validator (`qip_memory::wasm::binary`) against `wasmparser`'s, restricted to
//! WebAssembly 2.0 (`WasmFeatures::WASM2`), as an independent second opinion on what is a
//! valid module:
//!
//! * modules `wasm-smith` generates with 2.0's features: both accept every one;
//! * modules it generates with a feature beyond 2.0 switched on (tail calls, exceptions,
//!   threads, 64-bit memories, extended constants, several memories, ...): both reject the
//!   ones that use it and accept the others;
//! * each generated module mutated (a byte changed, bytes dropped or inserted, the module cut
//!   short): both accept or both reject.
//!
//! Where both reject, the offsets are compared too and the share that agrees is printed; the
//! test requires agreement on accept/reject only, since two correct validators may notice one
//! problem at different bytes. A module that our limits refuse (`docs/limits.md`: more locals,
//! functions or memory than the interpreter takes) is not compared: loading stops at the limit,
//! before it would see a later problem.
//!
//! `VALIDATE_SEEDS` (default 3,000) and `VALIDATE_SEED_START` (default 0) choose the seeds;
//! `VALIDATE_VERBOSE=1` prints every rejection with both reasons.

#[path = "differential/engine.rs"]
#[allow(dead_code)]
mod engine;

use qip_memory::wasm::{Limits, LoadErrorKind, Module};
use wasmparser::{Validator, WasmFeatures};

use engine::SplitMix64 as Rng;

/// A number below `n` (0 for `n` = 0).
fn below(rng: &mut Rng, n: usize) -> usize {
    (rng.next() % n.max(1) as u64) as usize
}

/// `Some(Ok(()))` if the module is valid for us, `Some(Err((offset, reason)))` if not, `None`
/// if it exceeds one of our limits.
fn ours(bytes: &[u8]) -> Option<Result<(), (u32, String)>> {
    let limits = Limits { max_module_bytes: usize::MAX, ..Limits::default() };
    match Module::new(bytes, &limits) {
        Ok(_) => Some(Ok(())),
        Err(e) if matches!(e.kind, LoadErrorKind::Limit(_)) => None,
        Err(e) => Some(Err((e.offset.0, e.kind.to_string()))),
    }
}

fn theirs(bytes: &[u8]) -> Result<(), (u32, String)> {
    let mut v = Validator::new_with_features(WasmFeatures::WASM2);
    v.validate_all(bytes).map(|_| ()).map_err(|e| (e.offset() as u32, e.message().to_string()))
}

#[derive(Default)]
struct Tally {
    compared: u64,
    limited: u64,
    accepted: u64,
    rejected: u64,
    same_offset: u64,
    disagreements: Vec<String>,
}

impl Tally {
    fn compare(&mut self, what: &str, bytes: &[u8]) {
        let Some(a) = ours(bytes) else {
            self.limited += 1;
            return;
        };
        self.compared += 1;
        let b = theirs(bytes);
        match (&a, &b) {
            (Ok(()), Ok(())) => self.accepted += 1,
            (Err((oa, ma)), Err((ob, mb))) => {
                self.rejected += 1;
                self.same_offset += u64::from(oa == ob);
                if std::env::var_os("VALIDATE_VERBOSE").is_some() {
                    println!("{what}: ours {ma} at {oa:#x}; wasmparser {mb} at {ob:#x}");
                }
            }
            _ => {
                let path = std::env::temp_dir().join(format!("validate-{}.wasm", self.disagreements.len()));
                let _ = std::fs::write(&path, bytes);
                self.disagreements.push(format!(
                    "{what}: ours {a:?}, wasmparser {b:?} (module written to {})",
                    path.display()
                ));
            }
        }
    }
}

/// One random change: a byte replaced, a run deleted, bytes inserted, or the end cut off.
fn mutate(bytes: &[u8], rng: &mut Rng) -> Vec<u8> {
    let mut m = bytes.to_vec();
    // Leave the header alone most of the time: past it is where the rules are.
    let lo = if below(rng, 16) == 0 { 0 } else { 8.min(m.len()) };
    let at = lo + below(rng, m.len().saturating_sub(lo));
    match below(rng, 5) {
        0 | 1 => {
            if at < m.len() {
                m[at] = rng.next() as u8;
            }
        }
        2 => {
            let n = 1 + below(rng, 4);
            m.drain(at..(at + n).min(m.len()));
        }
        3 => {
            let n = 1 + below(rng, 4);
            for _ in 0..n {
                m.insert(at.min(m.len()), rng.next() as u8);
            }
        }
        _ => m.truncate(at),
    }
    m
}

/// A module from `wasm-smith` for `seed`, with the config `configure` adjusts.
fn generate(seed: u64, configure: impl FnOnce(&mut wasm_smith::Config)) -> Option<Vec<u8>> {
    let mut config = engine::smith_config(seed);
    configure(&mut config);
    let mut rng = Rng(seed);
    let data: Vec<u8> = (0..4096).map(|_| rng.next() as u8).collect();
    let mut u = arbitrary::Unstructured::new(&data);
    wasm_smith::Module::new(config, &mut u).ok().map(|m| m.to_bytes())
}

/// Features beyond WebAssembly 2.0, one per seed, each switched on over the 2.0 config.
fn beyond_2_0(seed: u64, c: &mut wasm_smith::Config) {
    match seed % 7 {
        0 => c.tail_call_enabled = true,
        1 => c.exceptions_enabled = true,
        2 => c.threads_enabled = true,
        3 => c.memory64_enabled = true,
        4 => c.extended_const_enabled = true,
        5 => c.max_memories = 3,
        _ => c.relaxed_simd_enabled = true,
    }
}

fn env(name: &str, default: u64) -> u64 {
    std::env::var(name).ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

#[test]
fn our_validator_agrees_with_wasmparser() {
    let (start, n) = (env("VALIDATE_SEED_START", 0), env("VALIDATE_SEEDS", 3000));
    let mut t = Tally::default();
    let mut valid = 0u64;
    for seed in start..start + n {
        if let Some(m) = generate(seed, |_| {}) {
            t.compare(&format!("seed {seed}"), &m);
            valid += u64::from(matches!(ours(&m), Some(Ok(()))));
            let mut rng = Rng(seed ^ 0x5EED);
            for k in 0..8 {
                let mutated = mutate(&m, &mut rng);
                t.compare(&format!("seed {seed} mutation {k}"), &mutated);
            }
        }
        if let Some(m) = generate(seed, |c| beyond_2_0(seed, c)) {
            t.compare(&format!("seed {seed} beyond 2.0"), &m);
        }
    }
    println!(
        "validate: {} modules compared ({} more past our limits), {} accepted by both, {} rejected by both \
         ({} at the same offset), {} disagreements; {valid} of the 2.0 modules valid",
        t.compared,
        t.limited,
        t.accepted,
        t.rejected,
        t.same_offset,
        t.disagreements.len()
    );
    for d in t.disagreements.iter().take(20) {
        println!("  {d}");
    }
    assert!(t.disagreements.is_empty(), "{} disagreements with wasmparser", t.disagreements.len());
    // Both must see real work: most generated modules valid, most mutations caught.
    assert!(t.accepted > n, "too few valid modules: {}", t.accepted);
    assert!(t.rejected > n, "too few rejected modules: {}", t.rejected);
}
