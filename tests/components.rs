//! The built Content component `application/wasm/qip-interpret-memory-page-writes-csv.wasm`
//! against the real targets `tests/targets/*.wasm`:
//!
//! * the artifact's shape, read with wasmparser (docs/content.md);
//! * its output under wasmtime byte-identical to `qip-memory page-writes` and `qip-memory run`
//!   (the README's CLI reference);
//! * the host-rewritten boundary slot and the `instruction_budget` uniform (clamping,
//!   reset after every render, docs/request.md);
//! * the CSV read back with the `csv` crate (docs/page-table.md).
//!
//! `make test` builds the artifacts first; a missing one is built here with `make`.

mod common;

use std::path::Path;
use std::process::Command;

use common::content::{Component, artifact, body, check_common, read};

const COMPONENT: &str = "application/wasm/qip-interpret-memory-page-writes-csv.wasm";
const THERMAL: &str = "application/wasm/qip-interpret-memory-thermal-ktx2.wasm";
const REPORT: &str = "application/wasm/qip-interpret-memory-report-html.wasm";
const QR: &str = "tests/targets/url-to-qr-svg.wasm";
const MARKDOWN: &str = "tests/targets/markdown-to-html.wasm";

const ZERO_UUID: &str = "00000000-0000-0000-0000-000000000000";
const SLOT: &str = "multipart/form-data;boundary=uuid-00000000-0000-0000-0000-000000000000";
const HEADER: [&str; 9] = [
    "page",
    "region",
    "initialized_bytes",
    "reads",
    "bytes_read",
    "writes",
    "bytes_written",
    "distinct_bytes_written",
    "rewrite_ratio",
];

// ------------------------------------------------------------------ requests

/// The request `qip-memory page-writes TARGET --input INPUT` sends: `-F component=@TARGET
/// -F input=INPUT`.
fn request(uuid: &str, target: &str, input: &str) -> Vec<u8> {
    let module = read(target);
    body(uuid, &[("component", Some(CLI_FILENAME), &module), ("input", None, input.as_bytes())])
}

/// The file name the CLI's tool subcommands give every target in their request.
const CLI_FILENAME: &str = "target.wasm";

/// Where the component part's body starts and ends in a [`request`].
fn component_part(target: &str) -> std::ops::Range<usize> {
    component_part_named(target, CLI_FILENAME)
}

/// Where the component part's body starts and ends when `target` is sent as `filename`.
fn component_part_named(target: &str, filename: &str) -> std::ops::Range<usize> {
    let start = format!(
        "--uuid-{ZERO_UUID}\r\nContent-Disposition: form-data; name=\"component\"; filename=\"{filename}\"\r\n\
         Content-Type: application/octet-stream\r\n\r\n"
    )
    .len();
    start..start + read(target).len()
}

// ------------------------------------------------------------------ the component on wasmtime

/// What a render returned, decoded with the component's 10 failure modes.
#[derive(Debug, PartialEq, Eq)]
enum Rendered {
    Csv(String),
    Rejected { offset: u32, mode: u32 },
}

/// One instance of the component, reused across renders like a browser host would.
struct Tool(Component);

impl Tool {
    fn new() -> Tool {
        Tool(Component::new(COMPONENT))
    }

    /// `uniform_set_instruction_budget(v)`: the applied value (unsigned).
    fn budget(&mut self, v: u32) -> u32 {
        self.0.uniform("instruction_budget", v as i32) as u32
    }

    fn set_uuid(&mut self, uuid: &str) {
        self.0.set_uuid(uuid);
    }

    fn slot(&self) -> Vec<u8> {
        self.0.slot()
    }

    fn render(&mut self, request: &[u8]) -> Rendered {
        match self.0.render(request) {
            Ok(bytes) => Rendered::Csv(String::from_utf8(bytes).expect("output_utf8_cap promises UTF-8")),
            Err((offset, mode)) => Rendered::Rejected { offset, mode },
        }
    }
}

/// Renders `request` on a fresh instance with `budget` set first.
fn component_run(request: &[u8], budget: u32) -> Rendered {
    let mut tool = Tool::new();
    assert_eq!(tool.budget(budget), budget);
    tool.render(request)
}

// ------------------------------------------------------------------ the CLI

fn qip_memory(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_qip-memory"))
        .env("XDG_CACHE_HOME", concat!(env!("CARGO_TARGET_TMPDIR"), "/cache"))
        .args(args)
        .output()
        .unwrap()
}

/// `qip-memory page-writes` for the same request, decoded like [`Rendered`] (the CSV without
/// the newline the CLI adds).
fn cli_run(target: &str, input: &str, budget: u32) -> Rendered {
    let path = artifact(target);
    let budget = budget.to_string();
    let o = qip_memory(&[
        "page-writes",
        path.to_str().unwrap(),
        "--input",
        input,
        "--instruction-budget",
        &budget,
    ]);
    let (stdout, stderr) = (String::from_utf8(o.stdout).unwrap(), String::from_utf8(o.stderr).unwrap());
    if o.status.success() {
        assert!(stderr.is_empty(), "{stderr}");
        let csv = stdout.strip_suffix('\n').expect("one newline after the CSV");
        return Rendered::Csv(csv.to_owned());
    }
    assert_eq!(o.status.code(), Some(1));
    assert!(stdout.is_empty());
    let line = stderr.strip_suffix('\n').unwrap();
    assert!(!line.contains('\n'), "one line: {stderr}");
    // `qip-memory: PATH: CAUSE (request offset N, mode M)`.
    assert!(line.starts_with(&format!("qip-memory: {}: ", path.display())), "{line}");
    let (_, at) = line.rsplit_once(" (request offset ").expect(line);
    let (offset, mode) = at.strip_suffix(')').and_then(|a| a.split_once(", mode ")).expect(line);
    Rendered::Rejected { offset: offset.parse().unwrap(), mode: mode.parse().unwrap() }
}

const BIG_BUDGET: u32 = 10_000_000;

/// Inputs per target: successes and target rejections (mode 6).
const CASES: &[(&str, &str)] = &[
    (QR, "https://example.com"),
    (QR, "https://example.org/a/longer/path?q=1&r=2"),
    (QR, "# comment only\n"),
    (QR, "https://example.com\nhttps://example.org\n"),
    (MARKDOWN, "# Title\n\nSome *emphasis*, `code` and a [link](https://example.com).\n"),
    (MARKDOWN, "- one\n- two\n\n> quote\n"),
    (MARKDOWN, ""),
];

#[test]
fn cli_output_is_byte_identical_to_the_component() {
    for &(target, input) in CASES {
        let expected = component_run(&request(ZERO_UUID, target, input), BIG_BUDGET);
        assert_eq!(cli_run(target, input, BIG_BUDGET), expected, "{target} {input:?}");
    }
    // The QR target finds no URL in a comment-only input and rejects at its end (offset 15,
    // the input's length): mode 6 at the input part's start + 15.
    let req = request(ZERO_UUID, QR, "# comment only\n");
    let input_start = req.len() - format!("# comment only\n\r\n--uuid-{ZERO_UUID}--\r\n").len();
    assert_eq!(
        component_run(&req, BIG_BUDGET),
        Rendered::Rejected { offset: (input_start + 15) as u32, mode: 6 }
    );
    // A second URL line: the target's offset is 20, the second URL's first byte.
    let input = "https://example.com\nhttps://example.org\n";
    let req = request(ZERO_UUID, QR, input);
    let input_start = req.len() - format!("{input}\r\n--uuid-{ZERO_UUID}--\r\n").len();
    assert_eq!(
        component_run(&req, BIG_BUDGET),
        Rendered::Rejected { offset: (input_start + 20) as u32, mode: 6 }
    );
}

#[test]
fn run_host_matches_the_component() {
    // `qip-memory run` (the CLI's wasmtime host) on the demo's request: the component's CSV
    // plus the newline `qip run` adds to UTF-8 output.
    let target = artifact(QR);
    let Rendered::Csv(csv) = component_run(&request(ZERO_UUID, QR, "https://example.com"), BIG_BUDGET) else {
        panic!("the demo request succeeds")
    };
    let component = artifact(COMPONENT);
    let o = qip_memory(&[
        "run",
        "-F",
        &format!("component=@{}", target.display()),
        "-F",
        "input=https://example.com",
        component.to_str().unwrap(),
        "-u",
        "instruction_budget=10000000",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(String::from_utf8(o.stdout).unwrap(), format!("{csv}\n"));
    // Without the budget uniform the default 1,000,000 runs out: one line with the offset,
    // the mode and the mode's sentence; exit 1.
    let o = qip_memory(&[
        "run",
        "-F",
        &format!("component=@{}", target.display()),
        "-F",
        "input=https://example.com",
        component.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(1));
    let e = String::from_utf8(o.stderr).unwrap();
    let prefix = format!("qip-memory: {} rejected input at offset ", component.display());
    let rest = e.strip_prefix(&prefix).expect(&e);
    let (offset, rest) = rest.split_once(' ').unwrap();
    // `-F component=@PATH` sends the file's own name.
    let filename = Path::new(QR).file_name().unwrap().to_str().unwrap();
    assert!(component_part_named(QR, filename).contains(&offset.parse::<usize>().unwrap()), "{e}");
    assert_eq!(
        rest,
        "(mode 5): instruction budget exhausted; the offset points at the component part start + \
         offset of the next instruction\n"
    );
}

/// The components build the execution loop once, with the precise-budget mode as a runtime
/// flag (feature `one-loop`); the native CLI has two copies. Both must stop at the same
/// instruction: the component's request offset minus its component part's start equals the
/// module offset the CLI names, for budgets that end inside a fuel block, at its first
/// instruction, and deep in the run.
#[test]
fn budget_exhaustion_stops_where_the_native_loop_stops() {
    let part = component_part(QR);
    let target = artifact(QR);
    let req = request(ZERO_UUID, QR, "https://example.com");
    let mut tool = Tool::new();
    let mut seen = std::collections::BTreeSet::new();
    for budget in [1u32, 2, 3, 17, 1_000, 12_345, 99_999, 1_000_000, 4_000_001] {
        assert_eq!(tool.budget(budget), budget);
        let Rendered::Rejected { offset, mode: 5 } = tool.render(&req) else {
            panic!("budget {budget}: mode 5")
        };
        let module_offset = offset as usize - part.start;
        let o = qip_memory(&[
            "page-writes",
            target.to_str().unwrap(),
            "--input",
            "https://example.com",
            "--instruction-budget",
            &budget.to_string(),
        ]);
        assert_eq!(o.status.code(), Some(1));
        let e = String::from_utf8(o.stderr).unwrap();
        let cli_offset = e
            .split_once("(next instruction at module offset 0x")
            .and_then(|(_, r)| r.split_once(')'))
            .map(|(n, _)| usize::from_str_radix(n, 16).unwrap())
            .expect(&e);
        assert_eq!(module_offset, cli_offset, "budget {budget}: {e}");
        seen.insert(module_offset);
    }
    // The budgets stop at different places, so the comparison is not of one constant.
    assert!(seen.len() >= 6, "{seen:?}");
}

// ------------------------------------------------------------------ the artifact's shape

/// Every host compiles a Content component again on every run, so its size is start-up time
/// (docs/components.md, "Sizes"): the page table and heat map components are held to 250,000
/// bytes and the heap analyzer to 200,000, the start-up issue's bounds. The report's code is
/// what its hosts compile: its code section is held to 220,000 bytes (issue 45), and the whole
/// file, whose data is mostly the page template, to 400,000. Issue 47's proposals, left out of
/// the component (`only-2-0`), still cost it 2,831 bytes of shared code: 222,000 until that is
/// met (docs/components.md, "Sizes").
#[test]
fn component_sizes() {
    for (rel, bound) in [
        ("application/wasm/qip-interpret-memory-page-writes-csv.wasm", 250_000),
        ("application/wasm/qip-interpret-memory-thermal-ktx2.wasm", 250_000),
        ("application/wasm/qip-interpret-memory-report-html.wasm", 400_000),
        ("application/wasm/assemblyscript-heap-analyzer-json.wasm", 200_000),
    ] {
        let size = read(rel).len();
        assert!(size <= bound, "{rel}: {size} bytes, more than {bound}");
    }
    let report = read("application/wasm/qip-interpret-memory-report-html.wasm");
    let code: usize = wasmparser::Parser::new(0)
        .parse_all(&report)
        .filter_map(|p| match p.unwrap() {
            wasmparser::Payload::CodeSectionStart { unchecked_range: r, .. } => {
                Some((r.end - r.start) as usize)
            }
            _ => None,
        })
        .sum();
    assert!(code <= 222_000, "the report's code section: {code} bytes, more than 222000");
}

#[test]
fn component_artifact_shape() {
    let s = check_common(&read(COMPONENT));
    // Bytes input of 1 MiB + 8 MiB + 32 KiB = 9,469,952 bytes; UTF-8 output.
    assert_eq!(s.getter("input_bytes_cap"), Some(9_469_952));
    assert_eq!(s.getter("input_utf8_cap"), None);
    assert!(s.getter("output_utf8_cap").is_some());
    assert_eq!(s.getter("output_bytes_cap"), None);
    assert_eq!(s.getter("failure_modes_per_input_offset"), Some(10));
    // Content types: the 70-byte multipart slot in, exactly `text/csv` out, both inside one
    // active data segment.
    let (ptr, size) =
        (s.getter("input_content_type_ptr").unwrap(), s.getter("input_content_type_size").unwrap());
    assert_eq!(size, 70);
    assert_eq!(s.data_bytes(ptr, size), Some(SLOT.as_bytes()));
    let (ptr, size) =
        (s.getter("output_content_type_ptr").unwrap(), s.getter("output_content_type_size").unwrap());
    assert_eq!(s.data_bytes(ptr, size), Some(&b"text/csv"[..]));
    // The own uniform: uniform_set_instruction_budget(i32) -> i32.
    use wasmparser::ValType::I32;
    let setter = s.func("uniform_set_instruction_budget").expect("the budget uniform");
    assert_eq!(s.signature(setter), &(vec![I32], vec![I32]));
    let uniforms: Vec<&str> =
        s.exports.iter().filter_map(|(n, _, _)| n.strip_prefix("uniform_set_")).collect();
    assert_eq!(uniforms, ["instruction_budget"]);
}

#[test]
fn target_artifact_shapes() {
    for target in [QR, MARKDOWN] {
        let s = check_common(&read(target));
        assert_eq!(s.getter("failure_modes_per_input_offset"), Some(1), "{target}");
        assert!(s.getter("input_utf8_cap").is_some(), "{target}");
    }
}

// ------------------------------------------------------------------ slot and budget

#[test]
fn host_rewritten_boundary_is_honoured() {
    let uuid = "3f2b8c1a-9d4e-4b7a-8c6d-5e4f3a2b1c0d";
    let input = "# Slot\n\ntext\n";
    let Rendered::Csv(expected) = component_run(&request(ZERO_UUID, MARKDOWN, input), BIG_BUDGET) else {
        panic!("the default request succeeds")
    };
    let mut tool = Tool::new();
    assert_eq!(tool.slot(), SLOT.as_bytes());
    tool.set_uuid(uuid);
    // A body with the new boundary is accepted, and the page table is the same (the request's
    // layout does not reach the target's memory).
    assert_eq!(tool.render(&request(uuid, MARKDOWN, input)), Rendered::Csv(expected.clone()));
    // The old boundary: the body does not start with `--uuid-3f2b…`: mode 0 at offset 0.
    assert_eq!(tool.render(&request(ZERO_UUID, MARKDOWN, input)), Rendered::Rejected { offset: 0, mode: 0 });
    // The component never writes the slot.
    assert_eq!(tool.slot(), format!("multipart/form-data;boundary=uuid-{uuid}").as_bytes());
    // Put back, the default works again on the same instance.
    tool.set_uuid(ZERO_UUID);
    assert_eq!(tool.render(&request(ZERO_UUID, MARKDOWN, input)), Rendered::Csv(expected));
    // An uppercase UUID is not canonical: the slot is refused (mode 0, offset 0).
    tool.set_uuid("3F2B8C1A-9D4E-4B7A-8C6D-5E4F3A2B1C0D");
    assert_eq!(
        tool.render(&request("3F2B8C1A-9D4E-4B7A-8C6D-5E4F3A2B1C0D", MARKDOWN, input)),
        Rendered::Rejected { offset: 0, mode: 0 }
    );
}

#[test]
fn instruction_budget_clamps_and_resets() {
    let mut tool = Tool::new();
    // Clamped to 1..=1,000,000,000; the i32 is unsigned (0xffff_ffff is 4,294,967,295).
    assert_eq!(tool.budget(0), 1);
    assert_eq!(tool.budget(1), 1);
    assert_eq!(tool.budget(1_000_000_000), 1_000_000_000);
    assert_eq!(tool.budget(2_000_000_000), 1_000_000_000);
    assert_eq!(tool.budget(u32::MAX), 1_000_000_000);
    assert_eq!(tool.budget(10_000_000), 10_000_000);

    // The QR run takes more than the default 1,000,000 instructions (about 8.3 million).
    let req = request(ZERO_UUID, QR, "https://example.com");
    let part = component_part(QR);
    let exhausted = |r: Rendered| match r {
        Rendered::Rejected { offset, mode: 5 } => assert!(part.contains(&(offset as usize)), "{offset}"),
        other => panic!("expected mode 5, got {other:?}"),
    };
    let mut tool = Tool::new();
    assert_eq!(tool.budget(BIG_BUDGET), BIG_BUDGET);
    assert!(matches!(tool.render(&req), Rendered::Csv(_)));
    // Reset after a success: the next render has the default budget again.
    exhausted(tool.render(&req));
    // Reset after a rejection: a large budget spent on a malformed request (mode 0 at 0) ...
    assert_eq!(tool.budget(BIG_BUDGET), BIG_BUDGET);
    assert_eq!(tool.render(b"not multipart"), Rendered::Rejected { offset: 0, mode: 0 });
    // ... is gone for the next render.
    exhausted(tool.render(&req));
    // 0 means 1 instruction, not "unlimited".
    tool.budget(0);
    exhausted(tool.render(&req));
    assert_eq!(tool.budget(BIG_BUDGET), BIG_BUDGET);
    assert!(matches!(tool.render(&req), Rendered::Csv(_)));
}

// ------------------------------------------------------------------ the CSV read back

/// `a / b` rounded half away from zero to two decimals, as text.
fn ratio(a: u64, b: u64) -> String {
    let hundredths = (200 * a + b) / (2 * b);
    format!("{}.{:02}", hundredths / 100, hundredths % 100)
}

#[test]
fn csv_reads_back_consistently() {
    for &(target, input) in CASES {
        let Rendered::Csv(csv) = component_run(&request(ZERO_UUID, target, input), BIG_BUDGET) else {
            continue;
        };
        assert!(!csv.ends_with('\n') && !csv.contains('\r'), "LF line ends, no trailing blank line");
        let mut reader = csv::ReaderBuilder::new().from_reader(csv.as_bytes());
        assert_eq!(reader.headers().unwrap().iter().collect::<Vec<_>>(), HEADER);
        let mut last_page = None;
        let mut regions = Vec::new();
        for row in reader.records() {
            let row = row.unwrap();
            assert_eq!(row.len(), 9);
            let n = |i: usize| -> u64 { row[i].parse().unwrap_or_else(|_| panic!("{target}: {row:?}")) };
            let (page, init, reads, bytes_read, writes, written, distinct) =
                (n(0), n(2), n(3), n(4), n(5), n(6), n(7));
            assert!(last_page < Some(page), "ascending pages");
            last_page = Some(page);
            assert!(init > 0 || reads > 0 || writes > 0, "only pages with something to report");
            assert!(init <= 65536 && distinct <= 65536);
            assert!(distinct <= written, "{row:?}");
            assert_eq!(reads == 0, bytes_read == 0, "{row:?}");
            assert!(bytes_read >= reads, "a read touches at least one byte of the page");
            assert_eq!(writes == 0, written == 0, "{row:?}");
            assert!(written >= writes);
            assert_eq!(distinct == 0, written == 0);
            let expected_ratio = if distinct == 0 { String::new() } else { ratio(written, distinct) };
            assert_eq!(&row[8], expected_ratio, "{row:?}");
            // Labels in the order data, input, stack, output, or `other`.
            let labels: Vec<&str> = row[1].split('+').collect();
            let order = ["data", "input", "stack", "output"];
            if labels != ["other"] {
                let idx: Vec<usize> =
                    labels.iter().map(|l| order.iter().position(|o| o == l).unwrap()).collect();
                assert!(idx.windows(2).all(|w| w[0] < w[1]), "{row:?}");
            }
            regions.push((page, row[1].to_owned(), init));
        }
        // Both targets: the stack below 1 MiB (pages 0–15), data from 1 MiB (page 16), an input
        // region holding the input bytes, and an output.
        let has = |label: &str| regions.iter().any(|(_, r, _)| r.split('+').any(|l| l == label));
        assert!(has("stack") && has("data"), "{target}: {regions:?}");
        // An empty Markdown input gives an empty HTML output: no output range.
        assert_eq!(has("output"), !input.is_empty(), "{target}: {regions:?}");
        assert!(regions.iter().filter(|(p, r, _)| r.contains("stack") && *p >= 16).count() == 0);
        assert!(regions.iter().any(|(p, r, _)| r.starts_with("data") && *p == 16), "{regions:?}");
        if !input.is_empty() {
            let init: u64 = regions.iter().filter(|(_, r, _)| r.contains("input")).map(|(_, _, i)| i).sum();
            assert!(init >= input.len() as u64, "{target}: input bytes count as initialized");
        }
    }
}

/// A target uniform reaches the target through every interpreting component (page table,
/// heat map, report). From the QR target's contract (tests/targets/url-to-qr-svg): level H
/// (3) holds at most about 1,273 bytes, so a 1,300-byte URL is rejected at H with the URL's
/// first byte as offset (mode 6 at the input part's body start); at M, the default, the same
/// request gets past that check and runs out of the default budget drawing the code (mode 5).
/// Setting M explicitly on a short URL changes the page table by exactly the setter's one
/// `i32.store` of the level: one write and four bytes written more on the level's page,
/// everything else equal.
#[test]
fn target_uniforms_reach_the_target() {
    let module = read(QR);
    let request = |url: &str, level: Option<&str>| {
        let mut fields: Vec<common::content::Field<'_>> =
            vec![("component", Some(CLI_FILENAME), &module), ("input", None, url.as_bytes())];
        if let Some(level) = level {
            fields.push(("uniforms[error_correction]", None, level.as_bytes()));
        }
        body(ZERO_UUID, &fields)
    };
    let long = format!("https://example.com/{}", "a".repeat(1300 - 20));
    let input_body = component_part(QR).end
        + "\r\n--uuid-".len()
        + ZERO_UUID.len()
        + "\r\nContent-Disposition: form-data; name=\"input\"\r\n\r\n".len();
    for component in [COMPONENT, THERMAL, REPORT] {
        let mut c = Component::new(component);
        assert_eq!(c.render(&request(&long, Some("3"))), Err((input_body as u32, 6)), "{component}");
        assert_eq!(c.render(&request(&long, None)).map_err(|(_, mode)| mode), Err(5), "{component}");
        assert_eq!(c.uniform("instruction_budget", BIG_BUDGET as i32), BIG_BUDGET as i32);
        let r = c.render(&request("https://example.com", Some("1")));
        assert!(r.is_ok(), "{component}: {:?}", r.err());
    }

    let short = "https://example.com";
    let (Rendered::Csv(set), Rendered::Csv(unset)) = (
        component_run(&request(short, Some("1")), BIG_BUDGET),
        component_run(&request(short, None), BIG_BUDGET),
    ) else {
        panic!("both render")
    };
    let rows = |csv: &str| -> Vec<Vec<String>> {
        csv.lines().skip(1).map(|l| l.split(',').map(str::to_owned).collect()).collect()
    };
    let (set, unset) = (rows(&set), rows(&unset));
    assert_eq!(set.len(), unset.len());
    let differing: Vec<_> = set.iter().zip(&unset).filter(|(a, b)| a != b).collect();
    assert_eq!(differing.len(), 1, "{differing:?}");
    let (a, b) = differing[0];
    let n = |row: &[String], i: usize| -> u64 { row[i].parse().unwrap() };
    assert_eq!(a[..5], b[..5], "page, region, initialized bytes and reads");
    assert_eq!(n(a, 5), n(b, 5) + 1, "writes: {a:?} {b:?}");
    assert_eq!(n(a, 6), n(b, 6) + 4, "bytes_written: {a:?} {b:?}");
    assert_eq!(a[7], b[7], "render writes the level back to 1 itself: no new distinct byte");
    assert_eq!(a[8], ratio(n(a, 6), n(a, 7)));
}

#[test]
fn ratio_rounds_half_away_from_zero() {
    assert_eq!(ratio(1, 1), "1.00");
    assert_eq!(ratio(2, 3), "0.67");
    assert_eq!(ratio(1, 8), "0.13"); // 0.125 rounds up
    assert_eq!(ratio(3461, 4), "865.25");
    assert_eq!(ratio(5, 3), "1.67");
}

/// The Content components build the interpreter of WebAssembly 2.0 alone (feature `only-2-0`,
/// docs/components.md): a target using a proposal the CLI runs (tail calls, extended constants,
/// exceptions) is refused with mode 1 at the component part's start plus the construct's offset, which is
/// worked out from the encoding (as in tests/validate.rs). The CLI runs both modules.
#[test]
fn components_refuse_the_proposals_they_leave_out() {
    // Type section 8..=0xd, function 0xe..=0x11, code: id 0x12, size 0x13, count 0x14, body
    // size 0x15, locals 0x16, `return_call 0` at 0x17.
    let tail = wat::parse_str("(module (func return_call 0))").unwrap();
    // Global section: count 0xa, type 0xb, mutability 0xc, two constants, `i32.add` at 0x11.
    let extended = wat::parse_str("(module (global i32 (i32.add (i32.const 1) (i32.const 2))))").unwrap();
    // Type section 8..=0xd, then the tag section's id 13 at 0xe.
    let tag = wat::parse_str("(module (tag))").unwrap();
    for (module, offset) in [(&tail, 0x17), (&extended, 0x11), (&tag, 0xe)] {
        let request = body(ZERO_UUID, &[("component", Some(CLI_FILENAME), module), ("input", None, b"")]);
        let start = request.windows(module.len()).position(|w| w == &module[..]).unwrap() as u32;
        for component in [COMPONENT, THERMAL, REPORT] {
            let mut c = Component::new(component);
            assert_eq!(c.render(&request), Err((start + offset, 1)), "{component}");
        }
    }
}

/// The components are built without threads (feature `only-2-0`, docs/components.md): a target
/// with a shared memory is refused as outside what they run (mode 1) at its memory's limits
/// flags, the byte after the memory section's count; the CLI, which runs threads, runs it (the
/// CSV counted by hand in tests/page_writes.rs).
#[test]
fn threads_are_refused_by_the_component_and_run_by_the_cli() {
    let module = wat::parse_str(common::ATOMICS_TARGET).unwrap();
    let memory = wasmparser::Parser::new(0)
        .parse_all(&module)
        .find_map(|p| match p.unwrap() {
            wasmparser::Payload::MemorySection(r) => Some(r.range().start),
            _ => None,
        })
        .expect("a memory section");
    let req = body(ZERO_UUID, &[("component", Some(CLI_FILENAME), &module), ("input", None, b"ab")]);
    let part = req.windows(4).position(|w| w == b"\0asm").unwrap();
    let flags = (part as u64 + memory as u64 + 1) as u32;
    assert_eq!(component_run(&req, BIG_BUDGET), Rendered::Rejected { offset: flags, mode: 1 });
    let path = Path::new(env!("CARGO_TARGET_TMPDIR")).join("atomics.wasm");
    std::fs::write(&path, &module).unwrap();
    let o = qip_memory(&["page-writes", path.to_str().unwrap(), "--input", "ab"]);
    assert_eq!(
        String::from_utf8(o.stdout).unwrap(),
        "page,region,initialized_bytes,reads,bytes_read,writes,bytes_written,distinct_bytes_written,rewrite_ratio\n\
         1,input+output,2,5,20,4,16,4,4.00\n"
    );
}
