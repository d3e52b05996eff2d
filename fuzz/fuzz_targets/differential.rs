//! Our interpreter (`qip_memory::wasm`) against wasmi 2.0 on modules wasm-smith builds from the
//! fuzzer's bytes: the comparison of tests/differential.rs, fed by libFuzzer instead of seeds.
//!
//! Input: the first 8 bytes (little-endian, zero-padded) are the *seed*, the rest goes to
//! `wasm_smith::Module::new` as it is. The seed plays the part of the test's seed: it picks
//! the generator settings ([`engine::smith_config`]: WebAssembly 2.0, with threads for 1 seed
//! in 8, no imports, everything exported, NaN canonicalisation for 3 seeds in 4, trap-free code
//! for 1 in 3, the section minima) and the call arguments; a module that uses threads is
//! judged by wasmtime directly, as in the test. Everything after that is the test's own code,
//! included from tests/differential/engine.rs, so the two cannot drift apart: load and
//! instantiate in ours (plain and observed by `PageRecorder`) and in wasmi with the same
//! limits (call depth 256, 8 MiB of memory, 100,000 table elements, our budget of 20,000
//! instructions per call or `DIFF_BUDGET`); call every exported function with numeric or
//! `v128` parameters twice with deterministic arguments; compare load and instantiation
//! outcomes, trap or no trap, results (with the test's NaN rules), the exported memories and
//! globals after every call; a call that exhausts our budget is not compared, and fresh
//! instances follow. Plain and observed must agree on results, counters and state.
//!
//! Arbiter. As in the test, a divergence from wasmi (or a wasmi panic) is run again against
//! wasmtime, following the first run's schedule ([`engine::judge`]). wasmi 2.0.0 has bugs
//! that the `select` workaround does not cover (24 *peer wrong* seeds in the million of
//! `make soak`, the reduced one in `wasmi_bugs_ours_is_right`); without the arbiter, the
//! fuzzer would stop at the first of them, which at the soak's rate is minutes into a run.
//! Building wasmtime with the sanitizer costs build time (docs/testing.md has the figure), but
//! it runs only on the rare inputs where ours and wasmi disagree. Verdicts: *ours wrong* and
//! *undecided* panic (libFuzzer saves the input) with the test's message; *peer wrong* and
//! *peer crashed* print one line to stderr and the run goes on.
//!
//! Panics. libfuzzer-sys's panic hook aborts on every panic, even one that is caught, so the
//! target wraps it: a panic inside a peer (`peer::guarded`, which catches it and reports
//! *peer crashed*) passes silently; any other (ours, the harness) still aborts.
//!
//! Reproduce a crash: `cargo +nightly fuzz run differential fuzz/artifacts/differential/crash-…`
//! (from fuzz/) prints the message again. With `DIFF_DUMP=/tmp/case.wasm` it also prints every
//! call of the engines and writes the module, which the test then runs and `wasm-tools shrink`
//! reduces (docs/differential-testing.md): `DIFF_WAT=/tmp/case.wasm DIFF_SEED=<seed>` (plus
//! `DIFF_NANS_LOOSE=1` when the message says the NaNs are not canonical).
#![no_main]

use libfuzzer_sys::fuzz_target;

// The test uses parts of the engine this target does not (its `Stats` summary, the raw-wasmi
// switch), and the reverse.
#[allow(dead_code)]
#[path = "../../tests/differential/engine.rs"]
mod engine;

use engine::{Stats, Verdict, build, judge, peer};

fuzz_target!(
    init: {
        let fuzzer_hook = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if !peer::inside_guarded() {
                fuzzer_hook(info)
            }
        }));
    },
    |data: &[u8]| {
        let (head, rest) = data.split_at(data.len().min(8));
        let mut seed = [0u8; 8];
        seed[..head.len()].copy_from_slice(head);
        let seed = u64::from_le_bytes(seed);
        let Ok(case) = build(seed, rest) else { return };
        let dump = std::env::var("DIFF_DUMP").ok();
        if let Some(path) = &dump {
            std::fs::write(path, &case.bytes).expect("write DIFF_DUMP");
            let (len, nans) = (case.bytes.len(), case.canonical_nans);
            println!("wrote {path} ({len} bytes, seed {seed}, canonicalize_nans = {nans})");
        }
        let label = format!("seed {seed}");
        let nans = if case.canonical_nans { "canonical" } else { "not canonical" };
        match judge(&label, seed, &case.bytes, case.canonical_nans, &Stats::default(), dump.is_some()) {
            Verdict::Agree => {}
            Verdict::PeerWrong(m) => eprintln!("peer wrong (wasmtime agrees with ours) {m}"),
            Verdict::PeerCrashed(m) => eprintln!("peer crashed (ours agrees with wasmtime) {m}"),
            Verdict::OursWrong(m) => panic!("OURS WRONG {m}\n(NaNs {nans})"),
            Verdict::Undecided(m) => panic!("UNDECIDED {m}\n(NaNs {nans})"),
        }
    }
);
