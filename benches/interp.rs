//! Interpreter benchmark: our interpreter against wasmi 2.0 on two workloads.
//!
//! ```text
//! cargo bench --bench interp            # BENCH_REPS=N for N timed runs (default 5)
//! ```
//!
//! Workloads (sources in `benches/workloads/`):
//!
//! * `checksum.wat`: FNV-1a and Adler-32 over a 64 KiB buffer the module fills itself.
//! * `rust-program`: a no_std Rust crate compiled to `wasm32-unknown-unknown` (SHA-256 of a few
//!   MiB, a prime sieve, a sort, a Mandelbrot set). This benchmark builds it first with
//!   `cargo build --release --target wasm32-unknown-unknown` in its directory (a no-op when up
//!   to date); `make -C benches/workloads` does the same by hand.
//!
//! For each workload and engine it measures, as the median of the runs:
//!
//! * load: decoding, validation and translation (`Module::new`). wasmi's default
//!   configuration translates lazily, at a function's first call, so its default load time
//!   covers validation only; the eager-translation time is printed beside it.
//! * execution: one `run(arg)` call on a fresh instance (instantiation not timed). Ours runs
//!   with plain [`Store::call`] (no observer, no budget); wasmi with its default configuration
//!   (no fuel), after one untimed warm-up call on another instance so that its lazy
//!   translation is not part of the time.
//!
//! Both engines must return the same value (asserted). `speed ratio` is ours/wasmi speed, i.e.
//! wasmi's time divided by ours: above 1 means ours is faster.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;
use std::time::{Duration, Instant};

use qip_memory::wasm::{Limits, Module, Store, Value};

struct Workload {
    name: &'static str,
    bytes: Vec<u8>,
    arg: i32,
}

fn manifest_dir() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// Builds the Rust workload with the same cargo that runs this benchmark and returns its bytes.
fn build_rust_program() -> Vec<u8> {
    let dir = manifest_dir().join("benches/workloads/rust-program");
    let target_dir = dir.join("target");
    let status = Command::new(env!("CARGO"))
        .current_dir(&dir)
        .args(["build", "--release", "--quiet", "--target", "wasm32-unknown-unknown", "--target-dir"])
        .arg(&target_dir)
        // Flags meant for the host build (e.g. target-cpu=native) do not apply to wasm32.
        .env_remove("RUSTFLAGS")
        .env_remove("CARGO_ENCODED_RUSTFLAGS")
        .status()
        .expect("run cargo to build benches/workloads/rust-program");
    assert!(status.success(), "building benches/workloads/rust-program failed");
    let wasm: PathBuf = target_dir.join("wasm32-unknown-unknown/release/qip_bench_program.wasm");
    std::fs::read(&wasm).unwrap_or_else(|e| panic!("{}: {e}", wasm.display()))
}

/// Loads are fast: at least 11 of them, except in a smoke run.
fn load_reps(reps: usize) -> usize {
    if reps == 1 { 1 } else { reps.max(11) }
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn secs(d: Duration) -> String {
    let s = d.as_secs_f64();
    if s >= 1.0 {
        format!("{s:.3} s")
    } else if s >= 1e-3 {
        format!("{:.2} ms", s * 1e3)
    } else {
        format!("{:.1} µs", s * 1e6)
    }
}

fn limits() -> Limits {
    Limits::default().with_max_module_bytes(64 << 20)
}

/// Ours: (load times, run times, result, instructions of one run).
fn bench_ours(w: &Workload, reps: usize) -> (Vec<Duration>, Vec<Duration>, i32, u64) {
    let mut loads = Vec::new();
    let mut module = None;
    for _ in 0..load_reps(reps) {
        let t = Instant::now();
        let m = Module::new(&w.bytes, &limits()).expect("ours loads the workload");
        loads.push(t.elapsed());
        module = Some(Arc::new(m));
    }
    let module = module.expect("at least one load");
    let mut runs = Vec::new();
    let mut result = None;
    let mut instructions = 0;
    for _ in 0..reps {
        let mut store = Store::new(limits());
        let inst = store.instantiate(module.clone(), &[]).expect("ours instantiates the workload");
        let run = store.get_func(inst, "run").expect("the workload exports run");
        store.reset_counters();
        let t = Instant::now();
        let r = store.call(run, &[Value::I32(w.arg)]);
        runs.push(t.elapsed());
        let r = match r.expect("ours runs the workload").as_slice() {
            [Value::I32(v)] => *v,
            other => panic!("run returned {other:?}"),
        };
        assert!(result.is_none_or(|x| x == r), "ours is not deterministic");
        result = Some(r);
        instructions = store.counters().instructions;
    }
    (loads, runs, result.expect("at least one run"), instructions)
}

/// wasmi: (lazy load times, eager load times, run times, result).
fn bench_wasmi(w: &Workload, reps: usize) -> (Vec<Duration>, Vec<Duration>, Vec<Duration>, i32) {
    let engine = wasmi::Engine::default();
    let mut eager_config = wasmi::Config::default();
    eager_config.compilation_mode(wasmi::CompilationMode::Eager);
    let eager_engine = wasmi::Engine::new(&eager_config);
    let mut lazy = Vec::new();
    let mut eager = Vec::new();
    let mut module = None;
    for _ in 0..load_reps(reps) {
        let t = Instant::now();
        let m = wasmi::Module::new(&eager_engine, &w.bytes).expect("wasmi loads the workload");
        eager.push(t.elapsed());
        drop(m);
        let t = Instant::now();
        let m = wasmi::Module::new(&engine, &w.bytes).expect("wasmi loads the workload");
        lazy.push(t.elapsed());
        module = Some(m);
    }
    let module = module.expect("at least one load");
    let call = || -> (Duration, i32) {
        let mut store = wasmi::Store::new(&engine, ());
        let inst = wasmi::Instance::new(&mut store, &module, &[]).expect("wasmi instantiates the workload");
        let run =
            inst.get_typed_func::<i32, i32>(&store, "run").expect("the workload exports run(i32) -> i32");
        let t = Instant::now();
        let r = run.call(&mut store, w.arg).expect("wasmi runs the workload");
        (t.elapsed(), r)
    };
    let (_, first) = call(); // warm-up: lazy translation happens here
    let mut runs = Vec::new();
    for _ in 0..reps {
        let (d, r) = call();
        assert_eq!(r, first, "wasmi is not deterministic");
        runs.push(d);
    }
    (lazy, eager, runs, first)
}

fn rustc_version() -> String {
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
    Command::new(rustc)
        .current_dir(manifest_dir())
        .arg("-vV")
        .output()
        .ok()
        .and_then(|o| String::from_utf8(o.stdout).ok())
        .map(|s| {
            let release = s.lines().next().unwrap_or("").to_string();
            let llvm = s.lines().find_map(|l| l.strip_prefix("LLVM version: ")).unwrap_or("?");
            format!("{release} (LLVM {llvm})")
        })
        .unwrap_or_else(|| "unknown".into())
}

fn cpu_model() -> String {
    std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| {
            s.lines().find_map(|l| {
                l.strip_prefix("model name").map(|r| r.trim_start_matches([' ', '\t', ':']).to_string())
            })
        })
        .unwrap_or_else(|| "unknown".into())
}

fn main() {
    // `cargo bench` passes `--bench`; `cargo test --all-targets` runs this file too, without
    // it: then one small run of each workload checks that both engines agree, untimed.
    let smoke = !std::env::args().any(|a| a == "--bench");
    let reps: usize = if smoke {
        1
    } else {
        std::env::var("BENCH_REPS").ok().and_then(|v| v.parse().ok()).unwrap_or(5).max(1)
    };
    let checksum =
        wat::parse_file(manifest_dir().join("benches/workloads/checksum.wat")).expect("parse checksum.wat");
    let workloads = [
        Workload { name: "checksum.wat", bytes: checksum, arg: 32 },
        Workload { name: "rust-program", bytes: build_rust_program(), arg: 48 },
    ];
    if smoke {
        for w in &workloads {
            let w = Workload { name: w.name, bytes: w.bytes.clone(), arg: 1 };
            let (_, _, ours, instructions) = bench_ours(&w, 1);
            let (_, _, _, wasmi) = bench_wasmi(&w, 1);
            assert_eq!(ours, wasmi, "{}: the engines disagree on the result", w.name);
            println!("{} run(1): both engines return {ours} ({instructions} instructions)", w.name);
        }
        println!("smoke run only (timing needs `cargo bench --bench interp`)");
        return;
    }

    println!("interp benchmark: ours (qip_memory::wasm) vs wasmi 2.0.0");
    println!(
        "machine: {} logical cores available, CPU {}",
        std::thread::available_parallelism().map_or(0, |n| n.get()),
        cpu_model()
    );
    println!(
        "toolchain: {}; profile: {}",
        rustc_version(),
        if cfg!(debug_assertions) { "debug (numbers are not meaningful)" } else { "bench (release)" }
    );
    println!("median of {reps} runs (loads: of {} runs)", load_reps(reps));
    for w in &workloads {
        let (o_load, o_run, o_result, instructions) = bench_ours(w, reps);
        let (w_lazy, w_eager, w_run, w_result) = bench_wasmi(w, reps);
        assert_eq!(o_result, w_result, "{}: the engines disagree on the result", w.name);
        let (o_load, o_run) = (median(o_load), median(o_run));
        let (w_lazy, w_eager, w_run) = (median(w_lazy), median(w_eager), median(w_run));
        println!();
        println!("{} run({}) ({} bytes) -> {} (both engines)", w.name, w.arg, w.bytes.len(), o_result);
        println!(
            "  load:      ours {:>10}   wasmi {:>10} (lazy, default) / {:>10} (eager)   ours/wasmi-eager speed {:.2}",
            secs(o_load),
            secs(w_lazy),
            secs(w_eager),
            w_eager.as_secs_f64() / o_load.as_secs_f64()
        );
        println!(
            "  execute:   ours {:>10}   wasmi {:>10}   instructions (ours) {}   ours {:.1} M instr/s, wasmi {:.1} M instr/s",
            secs(o_run),
            secs(w_run),
            instructions,
            instructions as f64 / o_run.as_secs_f64() / 1e6,
            instructions as f64 / w_run.as_secs_f64() / 1e6
        );
        println!(
            "  speed ratio ours/wasmi (= wasmi time / our time): {:.2}",
            w_run.as_secs_f64() / o_run.as_secs_f64()
        );
    }
}
