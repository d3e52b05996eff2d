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

/// Median wall time of `reps` calls of `f`, and the peak bytes allocated during one call.
fn measure(reps: usize, mut f: impl FnMut()) -> (Duration, usize) {
    let base = ALLOCATOR.current_usage();
    ALLOCATOR.reset_peak_usage();
    f();
    let peak = ALLOCATOR.peak_usage() - base;
    let mut times: Vec<Duration> = (0..reps)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed()
        })
        .collect();
    times.sort();
    (times[reps / 2], peak)
}

fn target(name: &str) -> Vec<u8> {
    let path = format!("{}/tests/targets/{name}.wasm", env!("CARGO_MANIFEST_DIR"));
    std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e} (run `make targets` first)"))
}

/// A Markdown document of about `n` sections with headings, lists, emphasis, links and code.
fn markdown(n: usize) -> String {
    let mut s = String::new();
    for i in 0..n {
        s += &format!(
            "## Section {i}\n\nSome *emphasis*, **strong** text, `code {i}` and a [link](https://example.com/{i}).\n\n\
             - item one\n- item two with _more_ words\n\n> a quote {i}\n\n```\nfn f() {{ {i} }}\n```\n\n"
        );
    }
    s
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
    println!("tools benchmark: heat map vs page table on the same requests; median of {reps} runs");
    for (label, name, input, budget) in cases {
        let module = target(name);
        let fields = vec![
            ("component".to_owned(), FieldSource::Raw(module.clone())),
            ("input".to_owned(), FieldSource::Text(input.to_vec())),
        ];
        let req = build_body(&fields, DEFAULT_BOUNDARY).unwrap();
        let limits = target_limits();
        let (plain, _) = measure(reps, || {
            run(&module, input, &[] as &[TargetUniform<'_>], budget as u64, &limits, &mut NoObserver)
                .unwrap();
        });
        let mut instructions = 0;
        let (pages, pages_peak) = measure(reps, || {
            instructions = page_writes(&req, slot, budget).unwrap().counters.instructions;
        });
        let mut tiles = 0;
        let (heat, heat_peak) = measure(reps, || {
            let t = thermal(&req, slot, Options { budget, ..Options::default() }).unwrap();
            tiles = t.pages.len();
            assert_eq!(t.runs, 1, "one run suffices for these targets");
        });
        let mut html_bytes = 0;
        let (rep, rep_peak) = measure(reps, || {
            let r = report(&req, slot, ReportOptions { budget, first_page: 0 }).unwrap();
            html_bytes = r.to_html().len();
        });
        let ms = |d: Duration| d.as_secs_f64() * 1e3;
        println!("{label}: {instructions} instructions, {tiles} tiles");
        println!("  plain run (no observer)  {:9.2} ms", ms(plain));
        println!(
            "  page table               {:9.2} ms   peak {:6.1} MiB",
            ms(pages),
            pages_peak as f64 / 1048576.0
        );
        println!(
            "  heat map                 {:9.2} ms   peak {:6.1} MiB",
            ms(heat),
            heat_peak as f64 / 1048576.0
        );
        println!("  heat map / page table    {:9.2}x", heat.as_secs_f64() / pages.as_secs_f64());
        println!(
            "  report (HTML)            {:9.2} ms   peak {:6.1} MiB   {html_bytes} bytes of HTML",
            ms(rep),
            rep_peak as f64 / 1048576.0
        );
        println!("  report / page table      {:9.2}x", rep.as_secs_f64() / pages.as_secs_f64());
    }
    if smoke {
        println!("smoke run only (timing needs `cargo bench --bench tools`)");
    }
}
