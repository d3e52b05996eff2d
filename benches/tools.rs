//! The memory tools on the real targets: heat map (`tools::thermal`) and report
//! (`tools::report`, HTML included) against page table (`tools::page_writes`) on the same
//! requests, with a plain interpreter run (no observer) as
//! the floor. Issue 4's goal: heat-map time / page-table time ≤ 1.5 (the reference runs the
//! target twice for the heat map).
//!
//! ```text
//! cargo bench --bench tools            # BENCH_REPS=N for N timed runs (default 7)
//! ```
//!
//! Also prints the peak heap bytes of each tool's call (a counting global allocator), which
//! includes the target's memory (the interpreter reserves the declared maximum); counted by
//! the `peak_alloc` crate's allocator.
//! `make targets` must have built `tests/targets/*.wasm`.
//!
//! Then a real WASI program (`tests/programs/rust-wasi.wasm`, `wordfreq --iterations 320` on
//! the fixture: about 150 million instructions, `make programs` builds it) as a command: the
//! plain run (`count`), the page table, the heat map and the report over the same run, and the
//! same module under wasmtime without instrumentation (compiled once before timing; Cranelift's
//! compile time is not in its figure), with each one's slowdown over wasmtime and the report
//! over the plain run (issue 44's goal: at most 3).

#[path = "common/markdown.rs"]
mod markdown;
use markdown::markdown;

use std::time::{Duration, Instant};

use peak_alloc::PeakAlloc;

use qip_memory::content::form::{DEFAULT_BOUNDARY, DEFAULT_CONTENT_TYPE, FieldSource, build_body};
use qip_memory::content::run::{TargetUniform, run};
use qip_memory::tools::page_writes::page_writes;
use qip_memory::tools::report::{Options as ReportOptions, report};
use qip_memory::tools::target_limits;
use qip_memory::tools::thermal::{Options, thermal};
use qip_memory::wasm::NoObserver;

#[global_allocator]
static ALLOCATOR: PeakAlloc = PeakAlloc;

/// Times of `reps` rounds in which every one of `tools` runs once, in turn, so that a slow
/// spell of the machine falls on all of them alike; with the peak bytes allocated during one
/// (untimed, first) call of each.
struct Rounds {
    /// Per tool, its time in each round.
    times: Vec<Vec<Duration>>,
    /// Per tool, the peak heap bytes of one call.
    peaks: Vec<usize>,
}

impl Rounds {
    fn measure(reps: usize, tools: &mut [&mut dyn FnMut()]) -> Rounds {
        let peaks = tools
            .iter_mut()
            .map(|f| {
                let base = ALLOCATOR.current_usage();
                ALLOCATOR.reset_peak_usage();
                f();
                ALLOCATOR.peak_usage() - base
            })
            .collect();
        let mut times = vec![Vec::with_capacity(reps); tools.len()];
        for _ in 0..reps {
            for (f, t) in tools.iter_mut().zip(&mut times) {
                let start = Instant::now();
                f();
                t.push(start.elapsed());
            }
        }
        Rounds { times, peaks }
    }

    /// The median time of tool `i`.
    fn median(&self, i: usize) -> Duration {
        let mut t = self.times[i].clone();
        t.sort();
        t[t.len() / 2]
    }

    /// The median over the rounds of tool `i`'s time over tool `j`'s in the same round.
    fn ratio(&self, i: usize, j: usize) -> f64 {
        let mut r: Vec<f64> = self.times[i]
            .iter()
            .zip(&self.times[j])
            .map(|(a, b)| a.as_secs_f64() / b.as_secs_f64())
            .collect();
        r.sort_by(f64::total_cmp);
        r[r.len() / 2]
    }
}

fn target(name: &str) -> Vec<u8> {
    let path = format!("{}/tests/targets/{name}.wasm", env!("CARGO_MANIFEST_DIR"));
    std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e} (run `make targets` first)"))
}

fn main() {
    let smoke = !std::env::args().any(|a| a == "--bench");
    let reps: usize = if smoke {
        1
    } else {
        std::env::var("BENCH_REPS").ok().and_then(|v| v.parse().ok()).unwrap_or(7).max(1)
    };
    let md = markdown(if smoke { 3 } else { 60 });
    let cases: [(&str, &str, &[u8], u32); 2] = [
        ("QR https://example.com", "url-to-qr-svg", b"https://example.com", 10_000_000),
        ("Markdown document", "markdown-to-html", md.as_bytes(), 200_000_000),
    ];
    let slot = DEFAULT_CONTENT_TYPE.as_bytes();
    println!(
        "tools benchmark: heat map and report vs page table on the same requests; median of {reps} rounds (each tool once per round, ratios per round)"
    );
    for (label, name, input, budget) in cases {
        let module = target(name);
        let fields = vec![
            ("component".to_owned(), FieldSource::Raw(module.clone())),
            ("input".to_owned(), FieldSource::Text(input.to_vec())),
        ];
        let req = build_body(&fields, DEFAULT_BOUNDARY).unwrap();
        let limits = target_limits();
        let (mut instructions, mut tiles, mut html_bytes) = (0, 0, 0);
        let rounds = Rounds::measure(
            reps,
            &mut [
                &mut || {
                    run(&module, input, &[] as &[TargetUniform<'_>], budget as u64, &limits, &mut NoObserver)
                        .unwrap();
                },
                &mut || instructions = page_writes(&req, slot, budget).unwrap().counters.instructions,
                &mut || {
                    let t = thermal(&req, slot, Options { budget, ..Options::default() }).unwrap();
                    tiles = t.pages.len();
                    assert_eq!(t.runs, 1, "one run suffices for these targets");
                },
                &mut || {
                    let r = report(&req, slot, ReportOptions { budget, first_page: 0 }).unwrap();
                    html_bytes = r.to_html().len();
                },
            ],
        );
        let ms = |i: usize| rounds.median(i).as_secs_f64() * 1e3;
        let mib = |i: usize| rounds.peaks[i] as f64 / 1048576.0;
        println!("{label}: {instructions} instructions, {tiles} tiles");
        println!("  plain run (no observer)  {:9.2} ms", ms(0));
        println!("  page table               {:9.2} ms   peak {:6.1} MiB", ms(1), mib(1));
        println!("  heat map                 {:9.2} ms   peak {:6.1} MiB", ms(2), mib(2));
        println!("  heat map / page table    {:9.2}x", rounds.ratio(2, 1));
        println!(
            "  report (HTML)            {:9.2} ms   peak {:6.1} MiB   {html_bytes} bytes of HTML",
            ms(3),
            mib(3)
        );
        println!("  report / page table      {:9.2}x", rounds.ratio(3, 1));
    }
    wasi_program(reps, smoke);
    if smoke {
        println!("smoke run only (timing needs `cargo bench --bench tools`)");
    }
}

/// `wordfreq --iterations N` on the fixture, in a fresh directory per run.
const WORDFREQ: &str = "tests/programs/rust-wasi.wasm";
const FIXTURE: &str = "tests/programs/fixtures/harbour.txt";

/// A directory holding the fixture as `in.txt`, under the system's temporary directory.
fn scratch() -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("qip-memory-bench-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    std::fs::copy(format!("{}/{FIXTURE}", env!("CARGO_MANIFEST_DIR")), d.join("in.txt")).unwrap();
    d
}

/// The run of `wordfreq` under our interpreter, its output discarded.
fn wordfreq_run<'a>(module: &'a [u8], dir: &std::path::Path, iterations: u32) -> qip_memory::run::Run<'a> {
    use qip_memory::run::{Command, Imports, Program, Run};
    use qip_memory::wasi::{Config, Output, Preopen, Stdin};
    let args = ["rust-wasi.wasm", "--iterations", &iterations.to_string(), "in.txt", "out.txt"]
        .map(|a| a.as_bytes().to_vec())
        .to_vec();
    let config = Config {
        args,
        env: Vec::new(),
        dirs: vec![Preopen { host: dir.to_path_buf(), guest: ".".into() }],
        stdin: Stdin::Empty,
        stdout: Output::Discard,
        stderr: Output::Discard,
        seed: 0,
    };
    let imports = Imports { wasi: Some(config), ..Imports::default() };
    let limits = qip_memory::wasm::Limits::default().with_max_module_bytes(64 << 20);
    Run { program: Program::Command(Command { module, loaded: None, imports }), budget: None, limits }
}

fn wasi_program(reps: usize, smoke: bool) {
    use qip_memory::run::End;
    use wasmtime_wasi::p1::{self, WasiP1Ctx};
    use wasmtime_wasi::{FsPerms, I32Exit, WasiCtxBuilder};
    let path = format!("{}/{WORDFREQ}", env!("CARGO_MANIFEST_DIR"));
    let module = std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e} (run `make programs` first)"));
    let iterations: u32 = if smoke { 1 } else { 320 };
    let dir = scratch();
    let engine = wasmtime::Engine::default();
    let compiled = wasmtime::Module::new(&engine, &module).unwrap();
    let mut linker: wasmtime::Linker<WasiP1Ctx> = wasmtime::Linker::new(&engine);
    p1::add_to_linker_sync(&mut linker, |ctx| ctx).unwrap();
    let (mut instructions, mut html_bytes) = (0, 0);
    let rounds = Rounds::measure(
        reps,
        &mut [
            &mut || {
                let mut b = WasiCtxBuilder::new();
                b.args(&["rust-wasi.wasm", "--iterations", &iterations.to_string(), "in.txt", "out.txt"]);
                b.preopened_dir(&dir, ".", FsPerms::ReadWrite).unwrap();
                let mut store = wasmtime::Store::new(&engine, b.build_p1());
                let instance = linker.instantiate(&mut store, &compiled).unwrap();
                let start = instance.get_typed_func::<(), ()>(&mut store, "_start").unwrap();
                match start.call(&mut store, ()) {
                    Ok(()) => {}
                    Err(e) => assert_eq!(e.downcast_ref::<I32Exit>().map(|e| e.0), Some(0), "{e:?}"),
                }
            },
            &mut || {
                let f = wordfreq_run(&module, &dir, iterations).execute(&mut NoObserver).unwrap();
                assert_eq!(f.end, End::Exit(0));
                instructions = f.counters.instructions;
            },
            &mut || {
                qip_memory::tools::page_writes::page_table(&mut wordfreq_run(&module, &dir, iterations))
                    .unwrap();
            },
            &mut || {
                let options = Options { budget: 0, ..Options::default() };
                qip_memory::tools::thermal::heat_map(&mut wordfreq_run(&module, &dir, iterations), options)
                    .unwrap();
            },
            &mut || {
                let options = ReportOptions { budget: 0, first_page: 0 };
                let r = qip_memory::tools::report::report_of(
                    &mut wordfreq_run(&module, &dir, iterations),
                    options,
                )
                .unwrap();
                html_bytes = r.to_html().len();
            },
        ],
    );
    let _ = std::fs::remove_dir_all(&dir);
    let ms = |i: usize| rounds.median(i).as_secs_f64() * 1e3;
    println!("WASI command wordfreq --iterations {iterations}: {instructions} instructions");
    println!("  wasmtime (Cranelift, no instrumentation) {:9.2} ms", ms(0));
    for (i, label) in [(1, "count (plain run)"), (2, "page table"), (3, "heat map"), (4, "report (HTML)")] {
        println!(
            "  {label:<40} {:9.2} ms   {:7.1}x wasmtime   peak {:6.1} MiB",
            ms(i),
            rounds.ratio(i, 0),
            rounds.peaks[i] as f64 / 1048576.0
        );
    }
    println!(
        "  report / count                           {:9.2}x   ({html_bytes} bytes of HTML)",
        rounds.ratio(4, 1)
    );
    println!("  page table / count                       {:9.2}x", rounds.ratio(2, 1));
}
