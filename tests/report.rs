//! The memory report (`qip_memory::tools::report`, `qip-memory report`, docs/report.md):
//!
//! * attribution counted by hand on a WAT target (who wrote each hot byte, with its stack;
//!   per-function self and write instructions);
//! * on the real targets, every number of the embedded data object equal to what the other
//!   tools say for the same request: the page-writes CSV (read back with the `csv` crate), the
//!   heat map's KTX2 pixels and its `thermal --stats` figures, the counters;
//! * the HTML self-contained, its data readable by a JSON parser.

mod common;

use std::process::Command;

use common::report::{data_of, u};
use common::{ATOMICS_TARGET, request};
use qip_memory::content::form::DEFAULT_CONTENT_TYPE;
use qip_memory::tools::page_writes::page_writes;
use qip_memory::tools::report::{Options, report};
use qip_memory::tools::thermal::{self, thermal};
use serde_json::Value;

const SLOT: &[u8] = DEFAULT_CONTENT_TYPE.as_bytes();

/// The heat-map test target of tests/thermal.rs with its `memory.fill` moved into `$fill`:
/// render's writes are the loop's three `i32.store8` (bytes 65,536–65,538) and the
/// `memory.copy` to 65,542; `$fill` writes 65,539.
///
/// Work per write (instructions counted as the interpreter does, `end` included):
///  * 65,536: I = 11 (as in tests/thermal.rs); 65,537 and 65,538: I = 12 each;
///  * 65,539 ($fill): the 10 instructions after the third store8 (call $noop, its end, 7 loop
///    ops, the loop's end), `call $fill` (1), its 3 constants and `memory.fill` (4): I = 15;
///  * 65,542 (render's copy): $fill's `end` (1), 3 constants and `memory.copy` (4): I = 5.
///
/// Functions: $noop 3 entries of 1 instruction; $fill 1 entry of 5 (3 constants, fill, end);
/// the run 70 instructions (tests/thermal.rs's 68, plus the call and $fill's end), so render's
/// own 62.
const TARGET: &str = r#"(module
  (memory (export "memory") 5 5)
  (global $sp (mut i32) (i32.const 65536))
  (data (i32.const 131072) "DATA")
  (func (export "input_ptr") (result i32) i32.const 196608)
  (func (export "input_utf8_cap") (result i32) i32.const 256)
  (func (export "output_bytes_cap") (result i32) i32.const 64)
  (func $noop)
  (func $fill
    i32.const 65539 i32.const 120 i32.const 3 memory.fill)
  (func (export "render") (param $len i32) (result i64) (local $i i32)
    global.get $sp i32.const 16 i32.sub global.set $sp
    global.get $sp i32.const 99 i32.store
    loop $l
      local.get $i local.get $i i32.store8 offset=65536
      call $noop
      local.get $i i32.const 1 i32.add local.tee $i i32.const 3 i32.lt_u br_if $l
    end
    call $fill
    i32.const 65542 i32.const 131072 i32.const 2 memory.copy
    i32.const 196608 i32.load8_u drop
    i32.const 65536 i32.load8_u drop
    i32.const 65536 i32.load8_u drop
    global.get $sp i32.const 16 i32.add global.set $sp
    i64.const 0x0001000000000007))"#;

fn opts(budget: u32) -> Options {
    Options { budget, first_page: 0 }
}

/// The function names on the path of call-tree node `n` of data object `d`, outermost first
/// (`parent` links up to a root; `function` indexes `functions`).
fn path(d: &Value, n: u64) -> Vec<String> {
    let mut out = Vec::new();
    let mut at = Value::from(n);
    while let Some(i) = at.as_u64() {
        let node = &d["call_tree"][i as usize];
        out.push(d["functions"][u(&node["function"]) as usize]["name"].as_str().unwrap().to_owned());
        at = node["parent"].clone();
    }
    out.reverse();
    out
}

/// A run-length encoded column `[value, count, …]` of the data object, expanded.
fn unrun(column: &Value) -> Vec<Value> {
    let c = column.as_array().unwrap();
    assert_eq!(c.len() % 2, 0, "a runs column has pairs");
    c.chunks(2).flat_map(|p| std::iter::repeat_n(p[0].clone(), u(&p[1]) as usize)).collect()
}

#[test]
fn attribution_counted_by_hand() {
    let module = wat::parse_str(TARGET).unwrap();
    let r = report(&request(&module, Some(b"abc"), &[]), SLOT, opts(1000)).unwrap();
    assert_eq!(r.counters.instructions, 70);
    let d = r.data();
    let stack = |id: &Value| -> Vec<String> { path(&d, u(id)) };
    // The hottest bytes, with the stack of the write that gave them their work.
    let hot: Vec<(u64, u64, u64, u64, Vec<String>)> = d["hottest"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| (u(&h["address"]), u(&h["instructions"]), u(&h["loops"]), u(&h["calls"]), stack(&h["node"])))
        .collect();
    let render = || vec!["render".to_owned()];
    assert_eq!(
        hot,
        [
            (65539, 15, 0, 2, vec!["render".to_owned(), "fill".to_owned()]),
            (65537, 12, 1, 1, render()),
            (65538, 12, 1, 1, render()),
            (65536, 11, 0, 0, render()),
            (65542, 5, 0, 0, render()),
        ]
    );
    // Functions, most self instructions first.
    let rows: Vec<(String, u64, u64, u64, u64, u64)> = r
        .functions
        .iter()
        .map(|f| {
            (
                f.name.clone(),
                f.costs.entries,
                f.costs.self_instructions,
                f.self_costs.write_instructions,
                f.costs.stores,
                f.costs.bytes_written,
            )
        })
        .collect();
    assert_eq!(
        rows,
        [
            // render: stack store (4 bytes), 3 store8, the copy (2 bytes).
            ("render".to_owned(), 1, 62, 11 + 12 + 12 + 5, 5, 4 + 3 + 2),
            ("fill".to_owned(), 1, 5, 15, 1, 3),
            ("noop".to_owned(), 3, 3, 0, 0, 0),
        ]
    );
    assert_eq!(u(&d["totals"]["instructions"]), 55);

    // Page 1's tile, run-length encoded (docs/report.md, "Tiles"). Touched: bytes 0–7 (the
    // three store8, the fill of 3–5, the copy to 6–7), so gaps 0, then seven 1s. Accesses:
    // byte 0 three times (store8, two load8_u), the others once. Work: bytes 0, 1, 2, 3 and 6
    // (gaps 0, 1, 1, 1, 3) with 11, 12, 12, 15 and 5 instructions.
    let tile = d["tiles"].as_array().unwrap().iter().find(|t| u(&t["page"]) == 1).expect("page 1 is a tile");
    let ints = |k: &str| tile[k].as_array().unwrap().iter().map(u).collect::<Vec<u64>>();
    assert_eq!(ints("touched"), [0, 1, 1, 7]);
    assert_eq!(ints("accesses"), [3, 1, 1, 7]);
    assert_eq!(ints("worked"), [0, 1, 1, 3, 3, 1]);
    assert_eq!(ints("instructions"), [11, 1, 12, 2, 15, 1, 5, 1]);
}

/// A run that writes every byte of 32 pages (2 MiB, one `i32.store8` per byte, then reads
/// every fourth word back): 32 tiles whose every byte was touched and given work. Listed byte
/// by byte, its columns took about 40 MB of HTML; the run-length columns keep the report
/// within the 16 MB the issue sets (the report component's output holds 16 MiB).
#[test]
fn a_32_tile_report_fits_in_16_mb() {
    let module = wat::parse_str(
        r#"(module
          (memory (export "memory") 40 40)
          (func (export "input_ptr") (result i32) i32.const 0x260000)
          (func (export "input_utf8_cap") (result i32) i32.const 256)
          (func (export "output_bytes_cap") (result i32) i32.const 64)
          (func (export "render") (param $len i32) (result i64) (local $p i32)
            i32.const 0x200000 local.set $p
            loop $w
              local.get $p i32.const 1 i32.sub local.tee $p local.get $p i32.store8
              local.get $p br_if $w
            end
            loop $r
              local.get $p i32.load drop
              local.get $p i32.const 16 i32.add local.tee $p i32.const 0x200000 i32.lt_u br_if $r
            end
            i64.const 0))"#,
    )
    .unwrap();
    let r = report(&request(&module, None, &[]), SLOT, opts(100_000_000)).unwrap();
    assert_eq!(r.heat_map.len(), 32);
    let html = r.to_html();
    eprintln!("32 tiles: {} bytes of HTML", html.len());
    assert!(html.len() <= 16_000_000, "{} bytes", html.len());
    // Every byte of every tile is listed as touched and worked.
    let d = data_of(&html);
    for t in d["tiles"].as_array().unwrap() {
        assert_eq!(unrun(&t["touched"]).len(), 65536, "page {}", t["page"]);
        assert_eq!(unrun(&t["worked"]).len(), 65536, "page {}", t["page"]);
    }
}

/// The time axis of [`TARGET`], instruction by instruction: `global.set` of the stack pointer
/// at 4 (65,520) and 68 (65,536); the stack store at 7 (page 0); the loop's store8 at 11, 23,
/// 35 (page 1); `$fill`'s fill at 50; the copy at 55 (reads page 2, writes page 1); loads at
/// 57 (page 3, the input), 60 and 63 (page 1). 70 instructions: 70 bins of one instruction.
#[test]
fn time_axis_counted_by_hand() {
    let module = wat::parse_str(TARGET).unwrap();
    let r = report(&request(&module, Some(b"abc"), &[]), SLOT, opts(1000)).unwrap();
    let d = r.data();
    let t = &d["time"];
    assert_eq!((u(&t["bin_width"]), u(&t["bins"])), (1, 70));
    let pages: Vec<(u64, u64, u64)> = t["pages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| (u(&p["page"]), u(&p["first"]), u(&p["last"])))
        .collect();
    assert_eq!(pages, [(0, 7, 7), (1, 11, 63), (2, 55, 55), (3, 57, 57)]);
    let events = |page: usize, key: &str| -> Vec<usize> {
        let v = t["pages"][page][key].as_array().unwrap();
        assert_eq!(v.len(), 70);
        v.iter()
            .enumerate()
            .filter(|(_, n)| u(n) > 0)
            .map(|(i, n)| {
                assert_eq!(u(n), 1);
                i
            })
            .collect()
    };
    assert_eq!(events(1, "writes"), [11, 23, 35, 50, 55]);
    assert_eq!(events(1, "reads"), [60, 63]);
    assert_eq!(events(2, "reads"), [55]);
    assert_eq!(events(0, "writes"), [7]);
    let stack: Vec<(usize, u64)> = t["stack"]
        .as_array()
        .unwrap()
        .iter()
        .enumerate()
        .filter(|(_, v)| !v.is_null())
        .map(|(i, v)| (i, u(v)))
        .collect();
    assert_eq!(stack, [(4, 65520), (68, 65536)]);
    assert_eq!((u(&t["lowest_stack"]), u(&t["highest_written"])), (65520, 65543));
}

/// The report of `target` with `input`, and what the other tools say for the same request.
fn compare_with_the_other_tools(target: &str, input: &str) -> usize {
    let module = std::fs::read(target).unwrap();
    let req = request(&module, Some(input.as_bytes()), &[]);
    let budget = 100_000_000;
    let r = report(&req, SLOT, opts(budget)).unwrap();
    let html = r.to_html();
    let d = data_of(&html);

    // Counters and pages equal the page-writes tool's, read back from its CSV.
    let pw = page_writes(&req, SLOT, budget).unwrap();
    for (k, v) in pw.counters.fields() {
        assert_eq!(u(&d["counters"][k]), v, "{k}");
    }
    let mut csv = csv::Reader::from_reader(pw.csv.as_bytes());
    let headers: Vec<String> = csv.headers().unwrap().iter().map(str::to_owned).collect();
    let rows: Vec<csv::StringRecord> = csv.records().map(Result::unwrap).collect();
    let pages = d["pages"].as_array().unwrap();
    assert_eq!(pages.len(), rows.len());
    for (row, page) in rows.iter().zip(pages) {
        for (h, field) in headers.iter().zip(row.iter()) {
            let v = &page[h.as_str()];
            let shown = match v {
                Value::String(s) => s.clone(),
                Value::Null => String::new(),
                v => v.to_string(),
            };
            assert_eq!(shown, field, "page {} column {h}", row.get(0).unwrap());
        }
    }

    // Tiles, totals and hottest bytes equal the heat map's (normalize=0: the KTX2 levels are
    // zero exactly where the tallies are).
    let th = thermal(&req, SLOT, thermal::Options { budget, normalize: false, first_page: 0 }).unwrap();
    let tiles = d["tiles"].as_array().unwrap();
    assert_eq!(tiles.iter().map(|t| u(&t["page"])).collect::<Vec<_>>(), th.pages);
    assert_eq!(
        (u(&d["totals"]["instructions"]), u(&d["totals"]["loops"]), u(&d["totals"]["calls"])),
        th.totals
    );
    for (i, h) in th.hottest.iter().enumerate() {
        let j = &d["hottest"][i];
        assert_eq!(
            (u(&j["address"]), u(&j["instructions"]), u(&j["loops"]), u(&j["calls"]), u(&j["accesses"])),
            (h.addr, h.instructions, h.loops as u64, h.calls as u64, h.accesses as u64)
        );
    }
    let px = th.pixels();
    for (t, tile) in tiles.iter().enumerate() {
        let mut listed = vec![None; 65536];
        let col = |k: &str| unrun(&tile[k]).iter().map(u).collect::<Vec<u64>>();
        let at = |k: &str| {
            let mut o = 0;
            col(k)
                .into_iter()
                .map(|g| {
                    o += g;
                    o as usize
                })
                .collect::<Vec<usize>>()
        };
        let (touched, acc, worked) = (at("touched"), col("accesses"), at("worked"));
        let (ins, loops, calls) = (col("instructions"), col("loops"), col("calls"));
        assert_eq!(
            (acc.len(), ins.len(), loops.len(), calls.len()),
            (touched.len(), worked.len(), worked.len(), worked.len())
        );
        for (k, &b) in touched.iter().enumerate() {
            listed[b] = Some((0, 0, 0, acc[k]));
        }
        for (k, &b) in worked.iter().enumerate() {
            let a = listed[b].map_or(0, |l| l.3);
            listed[b] = Some((ins[k], loops[k], calls[k], a));
        }
        for b in 0..65536 {
            let p = &px[4 * (t * 65536 + b)..4 * (t * 65536 + b) + 4];
            let (i, l, c, a) = listed[b].unwrap_or((0, 0, 0, 0));
            assert_eq!(p[3] >= 64, a > 0, "tile {t} byte {b}: alpha {} accesses {a}", p[3]);
            assert_eq!((p[0] > 0, p[1] > 0, p[2] > 0), (i > 0, l > 0, c > 0), "tile {t} byte {b}");
        }
    }

    // Functions: their self instructions add up to the run, their write instructions to the
    // heat map's; every hot byte with work has a writer whose innermost frame is a function
    // that ran.
    let fns = d["functions"].as_array().unwrap();
    assert_eq!(fns.iter().map(|f| u(&f["self_instructions"])).sum::<u64>(), pw.counters.instructions);
    assert_eq!(fns.iter().map(|f| u(&f["write_instructions"])).sum::<u64>(), th.totals.0);
    for h in d["hottest"].as_array().unwrap() {
        let node = &d["call_tree"][u(&h["node"]) as usize];
        assert!(u(&node["function"]) < fns.len() as u64);
    }
    // The time axis: per page, read and write events over the bins add up to the page
    // table's reads and writes; every touched page has a row.
    let t = &d["time"];
    let bins = u(&t["bins"]) as usize;
    assert!(bins <= 1024);
    assert!(u(&t["bin_width"]) * bins as u64 >= pw.counters.instructions);
    let times = t["pages"].as_array().unwrap();
    assert_eq!(times.len(), pages.len());
    for (p, row) in times.iter().zip(pages) {
        assert_eq!(p["page"], row["page"]);
        let sum = |k: &str| p[k].as_array().unwrap().iter().map(u).sum::<u64>();
        assert_eq!(
            (sum("reads"), sum("writes")),
            (u(&row["reads"]), u(&row["writes"])),
            "page {}",
            row["page"]
        );
        assert!(u(&p["first"]) <= u(&p["last"]) && u(&p["last"]) <= pw.counters.instructions);
    }
    html.len()
}

#[test]
fn qr_report_equals_the_other_tools() {
    let len = compare_with_the_other_tools("tests/targets/url-to-qr-svg.wasm", "https://example.com");
    assert!(len <= 4_000_000, "{len} bytes");
}

#[test]
fn markdown_report_equals_the_other_tools() {
    compare_with_the_other_tools(
        "tests/targets/markdown-to-html.wasm",
        "# Title\n\nSome *emphasis*, `code` and a [link](https://example.com).\n\n- one\n- two\n",
    );
}

#[test]
fn names_of_a_rust_target_are_demangled() {
    let module = std::fs::read("tests/targets/url-to-qr-svg.wasm").unwrap();
    let r = report(&request(&module, Some(b"https://example.com"), &[]), SLOT, opts(100_000_000)).unwrap();
    let names: Vec<&str> = r.functions.iter().map(|f| f.name.as_str()).collect();
    assert!(names.contains(&"render"), "{names:?}");
    assert!(names.contains(&"qrcode::canvas::Canvas::get"), "{names:?}");
    assert!(names.iter().all(|n| !n.starts_with("_ZN") && !n.contains("17h")), "{names:?}");
}

#[test]
fn the_html_is_self_contained() {
    let module = wat::parse_str(TARGET).unwrap();
    let html = report(&request(&module, Some(b"</script><b>"), &[]), SLOT, opts(1000)).unwrap().to_html();
    // One data element, one script; nothing loaded from elsewhere.
    assert_eq!(html.matches("<script").count(), 2);
    for bad in ["<link", " src=", "http://", "https://", "@import", "url("] {
        assert!(!html.contains(bad), "{bad}");
    }
    // The data parses.
    let d = data_of(&html);
    assert_eq!(u(&d["counters"]["instructions"]), 70);
}

#[test]
fn cli_report_writes_the_same_html() {
    let dir = concat!(env!("CARGO_TARGET_TMPDIR"), "/report");
    std::fs::create_dir_all(dir).unwrap();
    let out = format!("{dir}/qr.html");
    let o = Command::new(env!("CARGO_BIN_EXE_qip-memory"))
        .args(["report", "tests/targets/url-to-qr-svg.wasm", "--input", "https://example.com"])
        .args(["--instruction-budget", "10000000", "-o", &out])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let html = std::fs::read_to_string(&out).unwrap();
    let module = std::fs::read("tests/targets/url-to-qr-svg.wasm").unwrap();
    let lib = report(&request(&module, Some(b"https://example.com"), &[]), SLOT, opts(10_000_000)).unwrap();
    // The CLI's request names the file differently, which moves no number of the report.
    assert_eq!(data_of(&html), lib.data());
    let e = String::from_utf8(o.stderr).unwrap();
    assert!(e.starts_with(&format!("wrote {out} (")), "{e}");
    // The default budget (1,000,000) is too small: a rejection, exit 1, no file.
    let out2 = format!("{dir}/rejected.html");
    let o = Command::new(env!("CARGO_BIN_EXE_qip-memory"))
        .args(["report", "tests/targets/url-to-qr-svg.wasm", "--input", "https://example.com", "-o", &out2])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8(o.stderr).unwrap().ends_with(", mode 5)\n"));
    assert!(!std::path::Path::new(&out2).exists());
}

/// The report of [`ATOMICS_TARGET`] (tests/common), by hand as in tests/thermal.rs: render's
/// 32 instructions are its own; its writes are the store and the three read-modify-writes of
/// 4 bytes each (the failed compare-exchange included), 16 bytes; byte 65,600 has the work of
/// all four (3 + 3 + 5 + 5 = 16) and 9 accesses.
#[test]
fn atomics_in_the_report() {
    let module = wat::parse_str(ATOMICS_TARGET).unwrap();
    let r = report(&request(&module, Some(b"ab"), &[]), SLOT, opts(1000)).unwrap();
    let d = r.data();
    assert_eq!(
        (
            u(&d["counters"]["instructions"]),
            u(&d["counters"]["memory_reads"]),
            u(&d["counters"]["memory_writes"])
        ),
        (32, 5, 4)
    );
    let rows: Vec<(String, u64, u64, u64, u64)> = r
        .functions
        .iter()
        .map(|f| {
            let c = &f.costs;
            (f.name.clone(), c.self_instructions, f.self_costs.write_instructions, c.stores, c.bytes_written)
        })
        .collect();
    assert_eq!(rows, [("render".to_owned(), 32, 16, 4, 16)]);
    let h = &d["hottest"][0];
    assert_eq!((u(&h["address"]), u(&h["instructions"]), u(&h["accesses"])), (65600, 16, 9));
}
