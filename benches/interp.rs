//! Interpreter benchmark: our interpreter against wasmi 2.0 on three workloads.
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
//! * `markdown-to-html`: a real Content target (`tests/targets/markdown-to-html.wasm`, built by
//!   `make targets`) rendering a generated Markdown document of about 60 M instructions: the
//!   input is written at `input_ptr` and `render(len)` is timed; both engines must return the
//!   same `render` value and the same output bytes.
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
//! * the same execution with ours observed by the page-table recorder (`PageRecorder`, what
//!   the page-writes component runs), and with wasmi's fuel metering on (`consume_fuel`, the
//!   fairer peer of a counting interpreter).
//!
//! wasmi runs with its default dispatch, handlers that tail-call each other in optimised native
//! builds;
//! `--features bench-wasmi-loop` switches it to its portable loop (`portable-dispatch`), the
//! same shape as ours (docs/speed.md, "wasmi's dispatch").
//!
//! Then, when `valgrind` is installed, the host instructions (counts from cachegrind, repeatable to a few thousand) of
//! one call of each workload in ours, wasmi and wasmi with fuel, both engines translating
//! eagerly, with load and instantiation subtracted: the bench runs itself under cachegrind
//! with `--once ENGINE WORKLOAD EXECUTE`, with and without the call. `BENCH_CACHEGRIND=0`
//! skips it (about half a minute).
//!
//! Both engines must return the same value (asserted). `speed ratio` is ours/wasmi speed, i.e.
//! wasmi's time divided by ours: above 1 means ours is faster.

#[path = "common/cachegrind.rs"]
mod cachegrind;
#[path = "common/markdown.rs"]
mod markdown;
use markdown::markdown;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;
use std::time::{Duration, Instant};

use qip_memory::profile::pages::PageRecorder;
use qip_memory::wasm::{Func, Instance, Limits, Module, NoObserver, Observer, Store, Value};

struct Workload {
    name: &'static str,
    bytes: Vec<u8>,
    call: Call,
}

/// What one timed run calls.
#[derive(Clone)]
enum Call {
    /// `run(arg) -> i32`.
    Run(i32),
    /// A Content target: the input written at `input_ptr`, then `render(len) -> i64`.
    Render(Vec<u8>),
}

impl Call {
    /// The call as the count table names it: `run(8)`, `render`.
    fn name(&self) -> String {
        match self {
            Call::Run(arg) => format!("run({arg})"),
            Call::Render(_) => "render".into(),
        }
    }

    /// The call as the timing report names it: the render with its input's size.
    fn label(&self) -> String {
        match self {
            Call::Run(_) => self.name(),
            Call::Render(input) => format!("render({} bytes of Markdown)", input.len()),
        }
    }
}

/// What a run returned: `run`'s value, or `render`'s value and the output bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Outcome {
    Run(i32),
    Render(i64, Vec<u8>),
}

/// The output a `render` result `r` designates: bits 32..63 are its address, the low 32 bits
/// its length (QIP's Content contract, docs/content.md).
fn output_of(memory: &[u8], r: i64) -> Vec<u8> {
    let (ptr, len) = (((r >> 32) & 0x7fff_ffff) as usize, r as u32 as usize);
    memory.get(ptr..ptr + len).map(<[u8]>::to_vec).unwrap_or_default()
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

/// A fresh instance of ours ready for `call`: the store, the function and its arguments (for
/// a render, the input is already written at `input_ptr`).
fn prepare_ours(module: &Arc<Module>, call: &Call) -> (Store, Instance, Func, Vec<Value>) {
    let mut store = Store::new(limits());
    let inst = store.instantiate(module.clone(), &[]).expect("ours instantiates the workload");
    let getter = |store: &mut Store, name: &str| {
        let f = store.get_func(inst, name).unwrap_or_else(|| panic!("the target exports {name}"));
        match store.call(f, &[]).expect("a getter returns").as_slice() {
            [Value::I32(v)] => *v as u32,
            other => panic!("{name} returned {other:?}"),
        }
    };
    let (f, args) = match call {
        Call::Run(arg) => {
            (store.get_func(inst, "run").expect("the workload exports run"), vec![Value::I32(*arg)])
        }
        Call::Render(input) => {
            let at = getter(&mut store, "input_ptr") as usize;
            let memory = store.instance_memory(inst).expect("a memory");
            store.memory_data_mut(memory)[at..at + input.len()].copy_from_slice(input);
            (store.get_func(inst, "render").expect("exports render"), vec![Value::I32(input.len() as i32)])
        }
    };
    store.reset_counters();
    (store, inst, f, args)
}

/// One call of ours on a fresh instance: (time, outcome, instructions), observed by `obs`.
fn call_ours<O: Observer>(module: &Arc<Module>, call: &Call, obs: &mut O) -> (Duration, Outcome, u64) {
    let (mut store, inst, f, args) = prepare_ours(module, call);
    let t = Instant::now();
    let r = store.call_observed(f, &args, obs);
    let elapsed = t.elapsed();
    let instructions = store.counters().instructions;
    let outcome = match (call, r.expect("ours runs the workload").as_slice()) {
        (Call::Run(_), [Value::I32(v)]) => Outcome::Run(*v),
        (Call::Render(_), [Value::I64(r)]) => {
            let memory = store.instance_memory(inst).expect("a memory");
            Outcome::Render(*r, output_of(store.memory_data(memory), *r))
        }
        (_, other) => panic!("the workload returned {other:?}"),
    };
    (elapsed, outcome, instructions)
}

/// Ours: (load times, plain run times, run times observed by the page table recorder, outcome,
/// instructions of one run).
fn bench_ours(w: &Workload, reps: usize) -> (Vec<Duration>, Vec<Duration>, Vec<Duration>, Outcome, u64) {
    let mut loads = Vec::new();
    let mut module = None;
    for _ in 0..load_reps(reps) {
        let t = Instant::now();
        let m = Module::new(&w.bytes, &limits()).expect("ours loads the workload");
        loads.push(t.elapsed());
        module = Some(Arc::new(m));
    }
    let module = module.expect("at least one load");
    let (mut runs, mut observed) = (Vec::new(), Vec::new());
    let mut result: Option<Outcome> = None;
    let mut instructions = 0;
    for _ in 0..reps {
        let (d, r, n) = call_ours(&module, &w.call, &mut NoObserver);
        runs.push(d);
        assert!(result.as_ref().is_none_or(|x| *x == r), "ours is not deterministic");
        result = Some(r);
        instructions = n;
        let (d, r, n) = call_ours(&module, &w.call, &mut PageRecorder::new());
        observed.push(d);
        assert_eq!(Some(&r), result.as_ref(), "observing changed the result");
        assert_eq!(n, instructions, "observing changed the count");
    }
    (loads, runs, observed, result.expect("at least one run"), instructions)
}

/// A fresh wasmi instance ready for `call` (for a render, the input already written at
/// `input_ptr`); with `fuel`, the store holds all the fuel it can.
fn prepare_wasmi(
    engine: &wasmi::Engine,
    module: &wasmi::Module,
    fuel: bool,
    call: &Call,
) -> (wasmi::Store<()>, wasmi::Instance) {
    let mut store = wasmi::Store::new(engine, ());
    if fuel {
        store.set_fuel(u64::MAX).expect("fuel metering is on");
    }
    let inst = wasmi::Instance::new(&mut store, module, &[]).expect("wasmi instantiates the workload");
    if let Call::Render(input) = call {
        let f = inst.get_typed_func::<(), i32>(&store, "input_ptr").expect("a getter");
        let at = f.call(&mut store, ()).expect("a getter returns") as u32 as usize;
        let memory = inst.get_memory(&store, "memory").expect("exports memory");
        memory.data_mut(&mut store)[at..at + input.len()].copy_from_slice(input);
    }
    (store, inst)
}

/// One call of wasmi on a fresh instance: (time, outcome).
fn call_wasmi(
    engine: &wasmi::Engine,
    module: &wasmi::Module,
    fuel: bool,
    call: &Call,
) -> (Duration, Outcome) {
    let (mut store, inst) = prepare_wasmi(engine, module, fuel, call);
    match call {
        Call::Run(arg) => {
            let run =
                inst.get_typed_func::<i32, i32>(&store, "run").expect("the workload exports run(i32) -> i32");
            let t = Instant::now();
            let r = run.call(&mut store, *arg).expect("wasmi runs the workload");
            (t.elapsed(), Outcome::Run(r))
        }
        Call::Render(input) => {
            let render = inst.get_typed_func::<i32, i64>(&store, "render").expect("exports render");
            let t = Instant::now();
            let r = render.call(&mut store, input.len() as i32).expect("wasmi renders");
            let elapsed = t.elapsed();
            let memory = inst.get_memory(&store, "memory").expect("exports memory");
            (elapsed, Outcome::Render(r, output_of(memory.data(&store), r)))
        }
    }
}

/// A wasmi engine: translating eagerly or lazily (wasmi's default), with fuel metering or
/// without.
fn wasmi_engine(eager: bool, fuel: bool) -> wasmi::Engine {
    let mut config = wasmi::Config::default();
    if eager {
        config.compilation_mode(wasmi::CompilationMode::Eager);
    }
    config.consume_fuel(fuel);
    wasmi::Engine::new(&config)
}

/// wasmi: (lazy load times, eager load times, run times, run times with fuel metering,
/// outcome).
fn bench_wasmi(
    w: &Workload,
    reps: usize,
) -> (Vec<Duration>, Vec<Duration>, Vec<Duration>, Vec<Duration>, Outcome) {
    // wasmi's default: lazy translation, no fuel.
    let engine = wasmi_engine(false, false);
    // The same, translating eagerly (the load time compared with ours).
    let eager_engine = wasmi_engine(true, false);
    // Lazy, with fuel metering (the run time compared with ours).
    let fuel_engine = wasmi_engine(false, true);
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
    let fuel_module = wasmi::Module::new(&fuel_engine, &w.bytes).expect("wasmi loads the workload");
    let call = |engine: &wasmi::Engine, module: &wasmi::Module, fuel: bool| {
        call_wasmi(engine, module, fuel, &w.call)
    };
    // Warm-up: lazy translation happens here.
    let (_, first) = call(&engine, &module, false);
    let _ = call(&fuel_engine, &fuel_module, true);
    let (mut runs, mut fueled) = (Vec::new(), Vec::new());
    for _ in 0..reps {
        let (d, r) = call(&engine, &module, false);
        assert_eq!(r, first, "wasmi is not deterministic");
        runs.push(d);
        let (d, r) = call(&fuel_engine, &fuel_module, true);
        assert_eq!(r, first, "fuel metering changed wasmi's result");
        fueled.push(d);
    }
    (lazy, eager, runs, fueled, first)
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

/// The workloads, each built by its function from `smoke` (which makes the render small);
/// `--once` takes an index into this list.
const WORKLOADS: [fn(bool) -> Workload; 3] = [checksum, rust_program, markdown_to_html];

fn checksum(_smoke: bool) -> Workload {
    let path = manifest_dir().join("benches/workloads/checksum.wat");
    let bytes = wat::parse_file(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    Workload { name: "checksum.wat", bytes, call: Call::Run(32) }
}

fn rust_program(_smoke: bool) -> Workload {
    Workload { name: "rust-program", bytes: build_rust_program(), call: Call::Run(48) }
}

fn markdown_to_html(smoke: bool) -> Workload {
    let bytes = std::fs::read(manifest_dir().join("tests/targets/markdown-to-html.wasm"))
        .expect("tests/targets/markdown-to-html.wasm (make targets)");
    let input = markdown(if smoke { 3 } else { 900 }).into_bytes();
    Workload { name: "markdown-to-html", bytes, call: Call::Render(input) }
}

/// The engines the host-instruction count compares; wasmi translates eagerly there, so that
/// translation is part of the load that the count subtracts.
const COUNTED_ENGINES: [&str; 3] = ["ours", "wasmi", "wasmi-fuel"];

/// The call the host-instruction count makes: `run(8)` instead of the timed argument (about
/// a quarter of the work, under valgrind's 20–50× slowdown), the same render.
fn counted_call(w: &Workload) -> Call {
    match &w.call {
        Call::Run(_) => Call::Run(8),
        render => render.clone(),
    }
}

/// The arguments of `--once`: an engine of [`COUNTED_ENGINES`], a workload number and
/// whether to make the call.
struct Once {
    engine: &'static str,
    workload: usize,
    execute: bool,
}

impl Once {
    /// Parses `ENGINE WORKLOAD EXECUTE` (EXECUTE is 0 or 1); the error says which argument
    /// is wrong.
    fn parse(args: &[String]) -> Result<Once, String> {
        let [engine, workload, execute] = args else {
            return Err(format!("usage: --once ENGINE WORKLOAD EXECUTE, got {args:?}"));
        };
        let engine = COUNTED_ENGINES
            .into_iter()
            .find(|e| e == engine)
            .ok_or_else(|| format!("--once: unknown engine {engine:?} (one of {COUNTED_ENGINES:?})"))?;
        let workload = workload.parse::<usize>().ok().filter(|&i| i < WORKLOADS.len()).ok_or_else(|| {
            format!("--once: workload {workload:?} is not a number below {}", WORKLOADS.len())
        })?;
        let execute = match execute.as_str() {
            "0" => false,
            "1" => true,
            other => return Err(format!("--once: EXECUTE is 0 or 1, got {other:?}")),
        };
        Ok(Once { engine, workload, execute })
    }
}

/// `--once ENGINE WORKLOAD EXECUTE`: loads the workload in the engine, instantiates it,
/// prepares [`counted_call`] and, when EXECUTE is 1, makes that call and returns its outcome
/// (the same work after the call in both engines: the result, and for a render the output
/// bytes copied out). Run under cachegrind by [`host_instructions`], which subtracts the count
/// with EXECUTE 0 from the count with 1.
fn once(w: &Workload, o: &Once) -> Option<Outcome> {
    let call = counted_call(w);
    if o.engine == "ours" {
        let module = Arc::new(Module::new(&w.bytes, &limits()).expect("ours loads the workload"));
        if o.execute {
            return Some(call_ours(&module, &call, &mut NoObserver).1);
        }
        prepare_ours(&module, &call);
        return None;
    }
    let fuel = o.engine == "wasmi-fuel";
    let engine = wasmi_engine(true, fuel);
    let module = wasmi::Module::new(&engine, &w.bytes).expect("wasmi loads the workload");
    if o.execute {
        return Some(call_wasmi(&engine, &module, fuel, &call).1);
    }
    prepare_wasmi(&engine, &module, fuel, &call);
    None
}

/// Prints the host instructions one call of each workload executes in each engine, from
/// cachegrind (repeatable to a few thousand instructions, unlike times on a shared machine): this binary runs itself with
/// `--once`, with and without the call, and the difference is the call's.
fn host_instructions(workloads: &[Workload]) {
    let Some(version) = cachegrind::version() else {
        println!("\nhost instructions: skipped (valgrind not found; apt-get install valgrind)");
        return;
    };
    let exe = std::env::current_exe().expect("the bench's own path");
    // Cargo's scratch directory for benches (under target/), not the shared /tmp.
    let out =
        Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("interp-{}.cachegrind", std::process::id()));
    println!();
    println!(
        "host instructions of one call, load and instantiation subtracted ({version}, cachegrind; repeatable to a few thousand instructions):"
    );
    println!(
        "  {:<34} {:>14} {:>14} {:>14} {:>11} {:>16}",
        "workload", "ours", "wasmi", "wasmi, fuel", "wasmi/ours", "wasmi fuel/ours"
    );
    for (i, w) in workloads.iter().enumerate() {
        let mut counts = Vec::new();
        for engine in COUNTED_ENGINES {
            let run = |execute: &str| {
                let args = ["--bench", "--once", engine, &i.to_string(), execute].map(String::from);
                cachegrind::instructions(&exe, &args, &out).unwrap_or_else(|e| panic!("{e}"))
            };
            let (with, without) = (run("1"), run("0"));
            let count = with.checked_sub(without).unwrap_or_else(|| {
                panic!("{} in {engine}: {with} host instructions with the call, {without} without", w.name)
            });
            counts.push(count);
        }
        let m = |n: u64| format!("{:.1} M", n as f64 / 1e6);
        println!(
            "  {:<34} {:>14} {:>14} {:>14} {:>11.2} {:>16.2}",
            format!("{} {}", w.name, counted_call(w).name()),
            m(counts[0]),
            m(counts[1]),
            m(counts[2]),
            counts[1] as f64 / counts[0] as f64,
            counts[2] as f64 / counts[0] as f64
        );
    }
}

fn main() {
    // `cargo bench` passes `--bench`; `cargo test --all-targets` runs this file too, without
    // it: then one small run of each workload checks that both engines agree, untimed.
    let args: Vec<String> = std::env::args().collect();
    let smoke = !args.iter().any(|a| a == "--bench");
    let reps: usize = if smoke {
        1
    } else {
        std::env::var("BENCH_REPS").ok().and_then(|v| v.parse().ok()).unwrap_or(5).max(1)
    };
    let once_args = args.iter().position(|a| a == "--once").map(|i| Once::parse(&args[i + 1..]));
    if let Some(Err(e)) = &once_args {
        eprintln!("{e}");
        std::process::exit(2);
    }
    // A `--once` child builds only the workload it counts.
    if let Some(Ok(o)) = &once_args {
        once(&WORKLOADS[o.workload](smoke), o);
        return;
    }
    let workloads = WORKLOADS.map(|build| build(smoke));
    if smoke {
        for w in &workloads {
            let call = match &w.call {
                Call::Run(_) => Call::Run(1),
                render => render.clone(),
            };
            let w = Workload { name: w.name, bytes: w.bytes.clone(), call };
            let (_, _, _, ours, instructions) = bench_ours(&w, 1);
            let (_, _, _, _, wasmi) = bench_wasmi(&w, 1);
            assert_eq!(ours, wasmi, "{}: the engines disagree on the result", w.name);
            println!("{} {}: both engines agree ({instructions} instructions)", w.name, w.call.label());
        }
        // The mode the host-instruction count runs under cachegrind, here without it: every
        // engine makes each counted call, and they agree.
        for (workload, w) in workloads.iter().enumerate() {
            let outcomes: Vec<Option<Outcome>> = COUNTED_ENGINES
                .into_iter()
                .map(|engine| once(w, &Once { engine, workload, execute: true }))
                .collect();
            assert!(outcomes[0].is_some(), "--once with EXECUTE 1 returns the outcome");
            assert!(outcomes.iter().all(|o| *o == outcomes[0]), "{}: --once outcomes differ", w.name);
        }
        println!("smoke run only (timing needs `cargo bench --bench interp`)");
        return;
    }

    println!("interp benchmark: ours (qip_memory::wasm) vs wasmi 2.0.0");
    let dispatch = if cfg!(feature = "bench-wasmi-loop") {
        "portable loop (feature bench-wasmi-loop)"
    } else {
        "its default (handlers tail-call each other in optimised native builds)"
    };
    println!("wasmi dispatch: {dispatch}");
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
        let (o_load, o_run, o_observed, o_result, instructions) = bench_ours(w, reps);
        let (w_lazy, w_eager, w_run, w_fuel, w_result) = bench_wasmi(w, reps);
        assert_eq!(o_result, w_result, "{}: the engines disagree on the result", w.name);
        let (o_load, o_run, o_observed) = (median(o_load), median(o_run), median(o_observed));
        let (w_lazy, w_eager, w_run, w_fuel) =
            (median(w_lazy), median(w_eager), median(w_run), median(w_fuel));
        let result = match &o_result {
            Outcome::Run(v) => v.to_string(),
            Outcome::Render(r, out) => format!("{r:#x}, {} output bytes", out.len()),
        };
        let mips = |d: Duration| instructions as f64 / d.as_secs_f64() / 1e6;
        println!();
        println!("{} {} ({} bytes) -> {result} (both engines)", w.name, w.call.label(), w.bytes.len());
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
            mips(o_run),
            mips(w_run)
        );
        println!(
            "  observed:  ours with the page-table recorder {:>10} ({:.1} M instr/s, {:+.0} % over plain)",
            secs(o_observed),
            mips(o_observed),
            (o_observed.as_secs_f64() / o_run.as_secs_f64() - 1.0) * 100.0
        );
        println!(
            "  fuel:      wasmi with fuel metering {:>10} ({:.1} M instr/s)",
            secs(w_fuel),
            mips(w_fuel)
        );
        println!(
            "  speed ratio ours/wasmi (= wasmi time / our time): {:.2}; against wasmi with fuel {:.2}; observed ours against wasmi with fuel {:.2}",
            w_run.as_secs_f64() / o_run.as_secs_f64(),
            w_fuel.as_secs_f64() / o_run.as_secs_f64(),
            w_fuel.as_secs_f64() / o_observed.as_secs_f64()
        );
    }
    if std::env::var("BENCH_CACHEGRIND").as_deref() == Ok("0") {
        println!("\nhost instructions: skipped (BENCH_CACHEGRIND=0)");
    } else {
        host_instructions(&workloads);
    }
}
