//! The Content components under wasmtime against the same work done natively, in one run:
//! module size, compile time (default engine, no cache), render time for the QR demo request
//! and for a Markdown request of at least 50 M instructions, the cost per interpreted
//! instruction (the slope between the two requests, so that fixed costs drop out), the native
//! library on the same requests, and the ratios; then `qip-memory run` of the page-writes
//! component on a tiny target, whole process, with a cold and a warm compiled-module cache.
//!
//! ```text
//! make components targets && cargo bench --bench components    # BENCH_REPS=N (default 5)
//! ```
//!
//! Without `--bench` (as `cargo test --all-targets` runs it) every measurement runs once on
//! small inputs, as a smoke test.

#[path = "common/markdown.rs"]
mod markdown;
use markdown::markdown;

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use qip_memory::content::form::{DEFAULT_BOUNDARY, DEFAULT_CONTENT_TYPE, FieldSource, build_body};
use qip_memory::tools::page_writes::page_writes;
use qip_memory::tools::thermal::{Options, thermal};

#[path = "../tests/common/content.rs"]
mod content;

/// Median wall time of `reps` calls of `f`.
fn median(reps: usize, mut f: impl FnMut()) -> Duration {
    let mut times: Vec<Duration> = (0..reps)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed()
        })
        .collect();
    times.sort();
    times[reps / 2]
}

/// The medians of `f` and `g` timed `reps` times each, alternately, so that both see the same
/// drift of a shared machine's speed and their ratio stays meaningful.
fn median_pair(reps: usize, mut f: impl FnMut(), mut g: impl FnMut()) -> (Duration, Duration) {
    let (mut a, mut b) = (Vec::with_capacity(reps), Vec::with_capacity(reps));
    for _ in 0..reps {
        a.push(median(1, &mut f));
        b.push(median(1, &mut g));
    }
    a.sort();
    b.sort();
    (a[reps / 2], b[reps / 2])
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// The request `qip run -F component=@TARGET -F input=TEXT -u instruction_budget=N` sends.
fn request(target: &[u8], input: &[u8]) -> Vec<u8> {
    let fields = vec![
        (
            "component".to_owned(),
            FieldSource::File { bytes: target.to_vec(), filename: "target.wasm".into() },
        ),
        ("input".to_owned(), FieldSource::Text(input.to_vec())),
    ];
    build_body(&fields, DEFAULT_BOUNDARY).unwrap()
}

/// One measured request: the request body, the budget, its instruction count.
struct Case {
    body: Vec<u8>,
    budget: u32,
    instructions: u64,
}

/// The interpreter tools: the native call for a request.
type Native = fn(&[u8], u32);

fn native_page_writes(req: &[u8], budget: u32) {
    page_writes(req, DEFAULT_CONTENT_TYPE.as_bytes(), budget).unwrap();
}

fn native_thermal(req: &[u8], budget: u32) {
    thermal(req, DEFAULT_CONTENT_TYPE.as_bytes(), Options { budget, ..Options::default() }).unwrap();
}

fn native_report(req: &[u8], budget: u32) {
    let options = qip_memory::tools::report::Options { budget, first_page: 0 };
    qip_memory::tools::report::report(req, DEFAULT_CONTENT_TYPE.as_bytes(), options).unwrap().to_html();
}

fn main() {
    let smoke = !std::env::args().any(|a| a == "--bench");
    let reps: usize = if smoke {
        1
    } else {
        std::env::var("BENCH_REPS").ok().and_then(|v| v.parse().ok()).unwrap_or(5).max(1)
    };
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let qr = std::fs::read(root.join("tests/targets/url-to-qr-svg.wasm")).expect("make targets");
    let md_target = std::fs::read(root.join("tests/targets/markdown-to-html.wasm")).expect("make targets");
    let doc = markdown(if smoke { 3 } else { 900 });
    let mut cases = vec![
        Case { body: request(&qr, b"https://example.com"), budget: 10_000_000, instructions: 0 },
        Case { body: request(&md_target, doc.as_bytes()), budget: 1_000_000_000, instructions: 0 },
    ];
    for c in &mut cases {
        c.instructions =
            page_writes(&c.body, DEFAULT_CONTENT_TYPE.as_bytes(), c.budget).unwrap().counters.instructions;
    }
    println!(
        "components benchmark: wasmtime 48.0.8 (default engine, Cranelift), median of {reps}, component and native runs alternating; requests: QR demo \
         {} instructions, Markdown ({} bytes) {} instructions",
        cases[0].instructions,
        doc.len(),
        cases[1].instructions
    );
    println!(
        "{:<44} {:>9} {:>10} {:>10} {:>10} {:>8} | {:>10} {:>10} {:>8} | {:>6}",
        "component",
        "bytes",
        "compile",
        "QR",
        "Markdown",
        "ns/ins",
        "native QR",
        "native MD",
        "ns/ins",
        "ratio"
    );
    let tools: [(&str, Native); 3] = [
        ("application/wasm/qip-interpret-memory-page-writes-csv.wasm", native_page_writes),
        ("application/wasm/qip-interpret-memory-thermal-ktx2.wasm", native_thermal),
        ("application/wasm/qip-interpret-memory-report-html.wasm", native_report),
    ];
    for (rel, native) in tools {
        let bytes = content::read(rel);
        let engine = wasmtime::Engine::default();
        let compile = median(reps, || {
            wasmtime::Module::new(&engine, &bytes).unwrap();
        });
        let mut component = content::Component::new(rel);
        let mut wasm = Vec::new();
        let mut host = Vec::new();
        for c in &cases {
            component.uniform("instruction_budget", c.budget as i32);
            component.render(&c.body).expect("the component renders");
            let (w, h) = median_pair(
                reps,
                || {
                    component.uniform("instruction_budget", c.budget as i32);
                    component.render(&c.body).unwrap();
                },
                || native(&c.body, c.budget),
            );
            wasm.push(w);
            host.push(h);
        }
        // Smoke runs use a small document, which may run fewer instructions than the QR code.
        let span = cases[1].instructions as f64 - cases[0].instructions as f64;
        let slope = |t: &[Duration]| (t[1].as_secs_f64() - t[0].as_secs_f64()) / span * 1e9;
        let (ws, hs) = (slope(&wasm), slope(&host));
        println!(
            "{:<44} {:>9} {:>7.1} ms {:>7.1} ms {:>7.1} ms {:>8.2} | {:>7.1} ms {:>7.1} ms {:>8.2} | {:>5.2}x",
            rel.trim_start_matches("application/wasm/"),
            bytes.len(),
            ms(compile),
            ms(wasm[0]),
            ms(wasm[1]),
            ws,
            ms(host[0]),
            ms(host[1]),
            hs,
            ws / hs
        );
    }
    // The heap analyzer: size and compile time, and one analysis of the fixture dump.
    let rel = "application/wasm/assemblyscript-heap-analyzer-json.wasm";
    let bytes = content::read(rel);
    let engine = wasmtime::Engine::default();
    let compile = median(reps, || {
        wasmtime::Module::new(&engine, &bytes).unwrap();
    });
    let fixture = root.join("tests/assemblyscript/build");
    match (
        std::fs::read(fixture.join("dwarf_fixture.wasm")),
        std::fs::read(fixture.join("dwarf_fixture.1.dump")),
    ) {
        (Ok(wasm_file), Ok(dump)) => {
            let req = qip_memory::tools::heap::analyze_request(&wasm_file, &dump).unwrap();
            let mut component = content::Component::new(rel);
            let wasm = median(reps, || {
                component.render(&req).unwrap();
            });
            let host = median(reps, || {
                qip_memory::tools::heap::heap_json(&req, DEFAULT_CONTENT_TYPE.as_bytes(), 0, 0).unwrap();
            });
            println!(
                "{:<44} {:>9} {:>7.1} ms   analyze the fixture dump: {:.2} ms, native {:.2} ms ({:.2}x)",
                rel.trim_start_matches("application/wasm/"),
                bytes.len(),
                ms(compile),
                ms(wasm),
                ms(host),
                wasm.as_secs_f64() / host.as_secs_f64()
            );
        }
        _ => println!(
            "{:<44} {:>9} {:>7.1} ms   (no fixture dump: make as-fixtures)",
            rel.trim_start_matches("application/wasm/"),
            bytes.len(),
            ms(compile)
        ),
    }
    end_to_end(reps, root);
    if smoke {
        println!("smoke run only (timing needs `cargo bench --bench components`)");
    }
}

/// `qip-memory run` of the page-writes component on a target of a few hundred instructions,
/// as a user runs it: whole process, cold (`--no-cache`) and with a warm cache.
fn end_to_end(reps: usize, root: &Path) {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("bench-components");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    // 100 one-byte stores in a loop: about 1,000 instructions.
    let tiny = wat::parse_str(
        r#"(module (memory (export "memory") 1 1)
          (func (export "output_bytes_cap") (result i32) i32.const 8)
          (func (export "render") (param i32) (result i64) (local i32)
            (loop
              local.get 1 i32.const 1 i32.store8
              local.get 1 i32.const 1 i32.add local.tee 1
              i32.const 100 i32.lt_u br_if 0)
            i64.const 0))"#,
    )
    .unwrap();
    let target = dir.join("tiny.wasm");
    std::fs::write(&target, tiny).unwrap();
    let component = root.join("application/wasm/qip-interpret-memory-page-writes-csv.wasm");
    let form = format!("component=@{}", target.display());
    let run = |extra: &[&str]| {
        let mut args = vec!["run", "-F", &form, component.to_str().unwrap()];
        args.extend_from_slice(extra);
        let o = Command::new(env!("CARGO_BIN_EXE_qip-memory"))
            .env("XDG_CACHE_HOME", dir.join("cache"))
            .args(&args)
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    };
    let cold = median(reps, || run(&["--no-cache"]));
    run(&[]); // fills the cache
    let warm = median(reps, || run(&[]));
    println!(
        "qip-memory run, page-writes component on a 1,000-instruction target, whole process: \
         cold cache {:.0} ms, warm cache {:.0} ms",
        ms(cold),
        ms(warm)
    );
}
