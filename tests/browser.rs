//! The memory report in a real browser: Debian's chromium, headless, driven over the DevTools
//! protocol by tests/browser/report.mjs (puppeteer-core, pinned in tests/browser). For the QR
//! demo request, a Markdown document and the Rust WASI program of tests/programs,
//! `qip-memory report` writes the HTML; the browser opens it from disk and this test checks
//! what it shows against the report's own data object (whose numbers tests/report.rs proves
//! equal to the CSV, the KTX2 and `thermal`), every expected value derived here from the data,
//! independently of the page's script:
//!
//! * no console errors, no page errors, no request but the file itself;
//! * nothing wider than a 1,280-pixel window, before and after clicking around;
//! * the first screen's sentences: per metric, the function with the largest own share, its
//!   percentage and main caller, and the narrowest function holding half or more;
//! * the flame graph under the instructions metric: its roots are the call tree's, their
//!   values its `instructions_total` and their sum the run's instruction count; every label
//!   part of its node's name; widths proportional to values; the tooltip's numbers; a zoom
//!   and its undoing; a search;
//! * every tile drawn; a page without colour shrunk to one line with its reason (the stack's
//!   says that stack writes are not attributed); the hot-byte labels at every bin size, none
//!   overlapping another;
//! * the hottest-bytes, function and page tables with the expected rows and values (numbers
//!   formatted here with thousands separators);
//! * clicking a function's row highlights exactly the bytes its call paths and their callees
//!   wrote (counted here from the tiles), its hottest byte among them, and filters the hot
//!   bytes to those; clicking the hottest byte's row marks its call path in the flame graph;
//! * hovering the hottest byte shows its exact tallies and writer; tooltips stay inside the
//!   window; leaving hides them;
//! * a screenshot of the first screen under `target/` (`qr-report.png` is the README's).
//!
//! `make test` installs chromium (`make chromium`) and the npm packages first; run alone,
//! the test installs the packages itself and fails with a hint when chromium is missing.

mod common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use common::programs::{RUST, TempDir, fixture, program};
use common::report::{data_of, u};
use serde_json::Value;

fn chromium() -> PathBuf {
    let p = PathBuf::from(std::env::var("CHROMIUM").unwrap_or_else(|_| "/usr/bin/chromium".into()));
    assert!(
        p.exists(),
        "{} is missing: `make chromium` installs Debian's chromium (or set CHROMIUM)",
        p.display()
    );
    p
}

fn driver() -> PathBuf {
    let dir = Path::new("tests/browser");
    if !dir.join("node_modules/puppeteer-core").exists() {
        let s = Command::new("make").arg("browser-deps").status().expect("make");
        assert!(s.success(), "make browser-deps");
    }
    dir.join("report.mjs")
}

/// 1234567 → "1,234,567" (the page uses `toLocaleString("en-US")`).
fn thousands(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// `part` of `whole` as the page writes a share: one decimal, then " %".
fn percent(part: u64, whole: u64) -> String {
    format!("{:.1} %", 100.0 * part as f64 / whole as f64)
}

fn f(v: &Value) -> f64 {
    v.as_f64().unwrap_or_else(|| panic!("not a number: {v}"))
}

/// A run-length encoded column of a tile, expanded (docs/report.md, "Tiles").
fn unrun(column: &Value) -> Vec<Value> {
    let c = column.as_array().unwrap();
    c.chunks(2).flat_map(|p| std::iter::repeat_n(p[0].clone(), u(&p[1]) as usize)).collect()
}

/// The offsets a column of gaps lists.
fn offsets(gaps: &Value) -> Vec<u64> {
    let mut at = 0;
    unrun(gaps)
        .iter()
        .map(|g| {
            at += u(g);
            at
        })
        .collect()
}

/// Every byte the heat map gave work: (address, instructions, writer node).
fn worked_bytes(d: &Value) -> Vec<(u64, u64, Option<u64>)> {
    let mut out = Vec::new();
    for t in d["tiles"].as_array().unwrap() {
        let base = u(&t["page"]) * 65536;
        let (ins, writer) = (unrun(&t["instructions"]), unrun(&t["writer"]));
        for (k, o) in offsets(&t["worked"]).into_iter().enumerate() {
            out.push((base + o, u(&ins[k]), writer[k].as_u64()));
        }
    }
    out
}

/// Per call-tree node: whether it runs function row `row` or is called, directly or not, by a
/// node that does (parents come before their children in the data).
fn under_function(d: &Value, row: u64) -> Vec<bool> {
    let tree = d["call_tree"].as_array().unwrap();
    let mut on: Vec<bool> = Vec::with_capacity(tree.len());
    for n in tree {
        let parent = n["parent"].as_u64().map(|p| on[p as usize]);
        on.push(u(&n["function"]) == row || parent == Some(true));
    }
    on
}

/// The name of call-tree node `n`'s function.
fn node_name(d: &Value, n: u64) -> String {
    let row = u(&d["call_tree"][n as usize]["function"]);
    d["functions"][row as usize]["name"].as_str().unwrap().to_owned()
}

/// The path of node `n`, outermost first.
fn path(d: &Value, n: u64) -> Vec<u64> {
    let mut out = vec![n];
    while let Some(p) = d["call_tree"][*out.last().unwrap() as usize]["parent"].as_u64() {
        out.push(p);
    }
    out.reverse();
    out
}

/// The QR target's or the Markdown target's report of `input`, written by `qip-memory report`.
fn content_report(name: &str, target: &str, input: &str) -> PathBuf {
    let dir = PathBuf::from(concat!(env!("CARGO_TARGET_TMPDIR"), "/browser"));
    std::fs::create_dir_all(&dir).unwrap();
    let html_path = dir.join(format!("{name}.html"));
    let input_path = dir.join(format!("{name}.input"));
    std::fs::write(&input_path, input).unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_qip-memory"))
        .args(["report", target, "--input-file"])
        .arg(&input_path)
        .args(["--instruction-budget", "100000000", "-o"])
        .arg(&html_path)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    html_path
}

/// The call-tree metrics of the page: the key in the data, the field of a function row with
/// its own share.
const METRICS: [(&str, &str); 6] = [
    ("write_instructions", "write_instructions"),
    ("instructions", "self_instructions"),
    ("bytes_written", "bytes_written"),
    ("bytes_read", "bytes_read"),
    ("loads", "loads"),
    ("stores", "stores"),
];

/// Opens the report at `html_path` in chromium and checks what it shows. Returns the data
/// object and the function names of the page's function table.
fn check(name: &str, html_path: &Path) -> (Value, Vec<String>) {
    let html = std::fs::read_to_string(html_path).unwrap();
    let d = data_of(&html);
    let shot = Path::new(env!("CARGO_TARGET_TMPDIR")).parent().unwrap().join(format!("{name}-report.png"));
    let o = Command::new("node")
        .arg(driver())
        .arg(html_path)
        .arg(&shot)
        .env("CHROMIUM", chromium())
        .output()
        .expect("node runs");
    assert!(o.status.success(), "driver failed: {}", String::from_utf8_lossy(&o.stderr));
    let seen: Value = serde_json::from_slice(&o.stdout).expect("the driver's JSON");

    assert_eq!(seen["console_errors"], Value::Array(vec![]), "{name}");
    assert_eq!(seen["page_errors"], Value::Array(vec![]), "{name}");
    let file_url = format!("file://{}", html_path.canonicalize().unwrap().display());
    assert_eq!(seen["requests"], serde_json::json!([file_url]), "{name}: only the file itself");
    for w in seen["scroll_width"].as_array().unwrap() {
        assert!(u(w) <= 1280, "{name}: the page is {w} pixels wide at a 1,280-pixel window");
    }

    check_sentences(name, &d, &seen);
    check_flame(name, &d, &seen);
    check_tiles(name, &d, &seen);
    let names = check_tables(name, &d, &seen);
    check_selection(name, &d, &seen);

    // The time view: reads and writes drawn in their colours; the stack curve drawn only for a
    // stack pointer that moved down (a stack region), and its canvas absent otherwise; the
    // bins with their unit.
    let time = seen["time"].as_array().unwrap();
    assert!(u(&time[0]["reads"]) > 0 && u(&time[0]["writes"]) > 0, "{name}: {}", time[0]);
    if d["regions"]["stack"].is_null() {
        assert_eq!(time.len(), 1, "{name}: no stack curve without a stack");
    } else {
        assert_eq!(time.len(), 2);
        assert!(u(&time[1]["line"]) > 0, "{name}: {}", time[1]);
    }
    let (bins, width) = (u(&d["time"]["bins"]), u(&d["time"]["bin_width"]));
    let plural = |n: u64| if n == 1 { "" } else { "s" };
    let bins = format!(
        "time bins: {} bin{} of {} instruction{} each",
        thousands(bins),
        plural(bins),
        thousands(width),
        plural(width)
    );
    assert!(seen["time_facts"].as_str().unwrap().contains(&bins), "{name}: {}", seen["time_facts"]);

    // Hovering the hottest byte.
    let hot = &d["hottest"][0];
    let tip = &seen["tooltip"];
    assert_eq!(tip["shown"], true, "{name}");
    let text = tip["text"].as_str().unwrap();
    assert!(text.starts_with(&format!("address 0x{:05x} ", u(&hot["address"]))), "{text}");
    let a = u(&hot["address"]);
    assert!(text.contains(&format!("page {}, offset {},", a / 65536, a % 65536)), "{text}");
    let tallies = format!(
        "instructions {}, loop iterations {}, calls {}, accesses {}",
        thousands(u(&hot["instructions"])),
        thousands(u(&hot["loops"])),
        thousands(u(&hot["calls"])),
        thousands(u(&hot["accesses"]))
    );
    assert!(text.contains(&tallies), "{text}\nexpected {tallies}");
    assert!(text.contains(&format!("written by {}", node_name(&d, u(&hot["node"])))), "{text}");
    assert_eq!(seen["tooltip_after_leaving"], "none");
    // Tooltips near the window's right and bottom edges stay inside it.
    for t in seen["edge_tooltips"].as_array().unwrap() {
        assert_eq!(t["shown"], true, "{name}: {t}");
        let (w, h) = (f(&t["window"][0]), f(&t["window"][1]));
        assert!(f(&t["left"]) >= 0.0 && f(&t["top"]) >= 0.0, "{name}: {t}");
        assert!(f(&t["right"]) <= w && f(&t["bottom"]) <= h, "{name}: {t}");
    }

    assert!(shot.exists());
    eprintln!(
        "{name}: {} bytes of HTML, loaded and drawn in {} ms; screenshot {}",
        html.len(),
        u(&seen["load_and_draw_ms"]),
        shot.display()
    );
    (d, names)
}

/// One sentence per metric, in the page's order: the function with the largest own share
/// (the first row of equals), the share, its main caller, and the narrowest function holding
/// at least half.
fn check_sentences(name: &str, d: &Value, seen: &Value) {
    let fns = d["functions"].as_array().unwrap();
    let tree = d["call_tree"].as_array().unwrap();
    let sentences = seen["sentences"].as_array().unwrap();
    assert_eq!(sentences.len(), METRICS.len(), "{name}");
    for (s, (key, own)) in sentences.iter().zip(METRICS) {
        assert_eq!(s["metric"], key);
        let text = s["text"].as_str().unwrap();
        let total: u64 =
            tree.iter().filter(|n| n["parent"].is_null()).map(|n| u(&n[format!("{key}_total")])).sum();
        assert!(text.contains(&format!("({}", thousands(total))), "{name}: {text}");
        if total == 0 {
            assert!(text.ends_with("none in this run."), "{name}: {text}");
            continue;
        }
        let best = fns.iter().map(|f| u(&f[own])).max().unwrap();
        let top = fns.iter().position(|f| u(&f[own]) == best).unwrap();
        assert_eq!(u(&s["self"]), top as u64, "{name} {key}: {text}");
        assert!(text.contains(&format!(" {} itself", percent(best, total))), "{name}: {text}");
        // The caller whose calls gave it most of its inclusive cost (outermost paths only).
        let mut by: BTreeMap<Option<u64>, u64> = BTreeMap::new();
        for (i, n) in tree.iter().enumerate() {
            if u(&n["function"]) != top as u64 {
                continue;
            }
            let mut up = n["parent"].as_u64();
            while let Some(p) = up.filter(|&p| u(&tree[p as usize]["function"]) != top as u64) {
                up = tree[p as usize]["parent"].as_u64();
            }
            if up.is_none() {
                let caller = n["parent"].as_u64().map(|p| u(&tree[p as usize]["function"]));
                *by.entry(caller).or_default() += u(&tree[i][format!("{key}_total")]);
            }
        }
        let most = by.values().copied().max().unwrap();
        let callers: Vec<i64> =
            by.iter().filter(|e| *e.1 == most).map(|e| e.0.map_or(-1, |r| r as i64)).collect();
        let caller = s["caller"].as_i64().unwrap();
        assert!(callers.contains(&caller), "{name}: {text}, callers {callers:?}");
        match caller {
            -1 => assert!(text.contains(", as an entry point"), "{name}: {text}"),
            _ => assert!(text.contains(", called mostly from "), "{name}: {text}"),
        }
        // The narrowest function holding half or more, inclusive.
        let half: Vec<u64> =
            fns.iter().map(|f| u(&f[format!("{key}_total")])).filter(|t| 2 * t >= total).collect();
        let narrowest = half.into_iter().min().unwrap();
        let wide = u(&s["inclusive"]) as usize;
        assert_eq!(u(&fns[wide][format!("{key}_total")]), narrowest, "{name} {key}: {text}");
        assert!(text.contains(&format!("{} with its callees", percent(narrowest, total))), "{name}: {text}");
    }
}

/// The flame graph under the instructions metric.
fn check_flame(name: &str, d: &Value, seen: &Value) {
    let fl = &seen["flame"];
    let tree = d["call_tree"].as_array().unwrap();
    let instructions = u(&d["counters"]["instructions"]);
    assert_eq!(fl["metric"], "instructions");
    // The roots are the call tree's, with their inclusive instructions, adding up to the run's.
    let mut roots: Vec<u64> = fl["roots"].as_array().unwrap().iter().map(|r| u(&r["node"])).collect();
    for r in fl["roots"].as_array().unwrap() {
        assert_eq!(u(&r["value"]), u(&tree[u(&r["node"]) as usize]["instructions_total"]), "{name}: {r}");
    }
    let sum: u64 = fl["roots"].as_array().unwrap().iter().map(|r| u(&r["value"])).sum();
    assert_eq!(sum, instructions, "{name}: the roots' widths add up to the run's instructions");
    assert_eq!((u(&fl["whole"]), u(&fl["rest"])), (instructions, 0), "{name}");
    roots.sort_unstable();
    let expected: Vec<u64> =
        (0..tree.len() as u64).filter(|&i| tree[i as usize]["parent"].is_null()).collect();
    assert_eq!(roots, expected, "{name}");
    // Every frame: its node's value, a width in proportion, a label from its name.
    let width = f(&fl["width"]);
    let frames = fl["frames"].as_array().unwrap();
    assert!(!frames.is_empty(), "{name}");
    for fr in frames {
        let n = u(&fr["node"]);
        assert_eq!(u(&fr["value"]), u(&tree[n as usize]["instructions_total"]), "{name}: {fr}");
        if u(&fr["depth"]) == 1 {
            let w = width * u(&fr["value"]) as f64 / instructions as f64;
            assert!((f(&fr["w"]) - w).abs() < 1e-6, "{name}: {fr}, expected width {w}");
        }
        let label = fr["label"].as_str().unwrap();
        let full = node_name(d, n);
        assert!(full.contains(label.trim_matches('…')), "{name}: label {label:?} of {full:?}");
    }
    // The first root's tooltip.
    let root = u(&fl["roots"][0]["node"]);
    let node = &tree[root as usize];
    let tip = seen["flame_tooltip"]["text"].as_str().unwrap();
    let line = format!(
        "instructions: {} with callees ({} of the run), {} itself",
        thousands(u(&node["instructions_total"])),
        percent(u(&node["instructions_total"]), instructions),
        thousands(u(&node["instructions_self"]))
    );
    assert!(tip.starts_with(&format!("{}\n{line}\n", node_name(d, root))), "{name}: {tip}\nexpected {line}");
    assert!(tip.contains(&format!("entered {} time", thousands(u(&node["entries"])))), "{name}: {tip}");
    // A zoom into a node fills the width with it and selects it; "whole run" undoes both.
    let z = &seen["zoom"];
    assert_eq!((f(&z["x"]), f(&z["w"])), (0.0, f(&z["width"])), "{name}: {z}");
    assert_eq!(z["selection"]["kind"], "node");
    assert_eq!(z["selection"]["id"], z["zoom"]);
    assert_eq!(seen["zoom_out"], serde_json::json!({ "zoom": null, "selection": null }), "{name}");
    // The search marks the call paths whose function's name holds the text.
    let s = &seen["search"];
    let needle = s["needle"].as_str().unwrap().to_lowercase();
    let matches = s["matches"].as_array().unwrap();
    assert!(!needle.is_empty() && !matches.is_empty(), "{name}: {s}");
    for m in matches {
        assert!(node_name(d, u(m)).to_lowercase().contains(&needle), "{name}: {s}");
    }
}

/// The heat map's tiles and the hot-byte labels.
fn check_tiles(name: &str, d: &Value, seen: &Value) {
    let tiles = seen["tiles"].as_array().unwrap();
    let pages: Vec<u64> = d["tiles"].as_array().unwrap().iter().map(|t| u(&t["page"])).collect();
    assert_eq!(tiles.iter().map(|t| u(&t["page"])).collect::<Vec<_>>(), pages);
    let stack = d["regions"]["stack"].as_array().map(|s| (u(&s[0]), u(&s[1])));
    for (t, data) in tiles.iter().zip(d["tiles"].as_array().unwrap()) {
        assert!(u(&t["drawn"]) > 0, "{name}: tile of page {} not drawn", t["page"]);
        // A page shrinks to one line exactly when none of its bytes received instructions.
        let coloured = unrun(&data["instructions"]).iter().any(|v| u(v) > 0);
        assert_eq!(t["shrunk"], !coloured, "{name}: {t}");
        if coloured {
            continue;
        }
        let why = t["why"].as_str().unwrap();
        assert!(why.starts_with("No instructions here: "), "{name}: {why}");
        let base = u(&t["page"]) * 65536;
        if let Some((a, b)) = stack.filter(|(a, b)| *a < base + 65536 && *b > base) {
            let stack = format!("writes to the stack (0x{a:05x}–0x{:05x}) are not attributed", b - 1);
            assert!(why.contains(&stack), "{name}: {why}");
        }
    }
    // One label per hot byte at every bin size, no two overlapping.
    let hot = d["hottest"].as_array().unwrap();
    for (bin, labels) in seen["hot_labels"].as_object().unwrap() {
        let labels = labels.as_array().unwrap();
        let mut ranks: Vec<u64> = labels.iter().map(|l| u(&l["rank"])).collect();
        ranks.sort_unstable();
        assert_eq!(ranks, (1..=hot.len() as u64).collect::<Vec<_>>(), "{name}, {bin} bytes per cell");
        for (i, a) in labels.iter().enumerate() {
            assert!(f(&a["w"]) > 0.0 && f(&a["h"]) > 0.0, "{name}: {a}");
            for b in &labels[i + 1..] {
                let apart = f(&a["x"]) + f(&a["w"]) <= f(&b["x"])
                    || f(&b["x"]) + f(&b["w"]) <= f(&a["x"])
                    || f(&a["y"]) + f(&a["h"]) <= f(&b["y"])
                    || f(&b["y"]) + f(&b["h"]) <= f(&a["y"]);
                assert!(apart, "{name}, {bin} bytes per cell: labels overlap: {a} and {b}");
            }
        }
    }
}

/// The hottest-bytes, function and page tables. Returns the function table's names.
fn check_tables(name: &str, d: &Value, seen: &Value) -> Vec<String> {
    // The hottest bytes: one row per byte, address in hex, exact tallies, writer.
    let rows = seen["hottest"].as_array().unwrap();
    let hot = d["hottest"].as_array().unwrap();
    assert_eq!(rows.len(), hot.len());
    assert_eq!(hot.len(), 16);
    for (i, h) in hot.iter().enumerate() {
        let r = &rows[i];
        assert_eq!(r[0], (i + 1).to_string());
        assert_eq!(r[1], format!("0x{:05x}", u(&h["address"])));
        assert_eq!(r[2], thousands(u(&h["instructions"])));
        assert_eq!(r[3], thousands(u(&h["loops"])));
        assert_eq!(r[4], thousands(u(&h["calls"])));
        assert_eq!(r[5], thousands(u(&h["accesses"])));
        assert_eq!(r[6], node_name(d, u(&h["node"])));
    }

    // Functions: every function that ran, most inclusive write instructions first (ties: more
    // self instructions, then the lower index); per metric its inclusive and self columns.
    let rows = seen["functions"].as_array().unwrap();
    let mut fns: Vec<&Value> = d["functions"].as_array().unwrap().iter().collect();
    fns.sort_by_key(|f| {
        (
            std::cmp::Reverse(u(&f["write_instructions_total"])),
            std::cmp::Reverse(u(&f["self_instructions"])),
            u(&f["index"]),
        )
    });
    assert_eq!(rows.len(), fns.len());
    assert_eq!(seen["functions_head"][0][0], "function");
    assert_eq!(seen["functions_head"][0][1], "called");
    for (f, r) in fns.iter().zip(rows) {
        let r = r.as_array().unwrap();
        assert_eq!(r[0], f["name"]);
        assert_eq!(r[1], thousands(u(&f["entries"])));
        let mut cells = Vec::new();
        for (key, own) in METRICS.iter().chain([&("calls", "calls_self")]) {
            cells.push(thousands(u(&f[format!("{key}_total")])));
            cells.push(thousands(u(&f[*own])));
        }
        assert_eq!(r[2..], cells[..], "{name}: {}", f["name"]);
    }

    // The page table, one row per CSV row.
    assert_eq!(seen["pages"].as_array().unwrap().len(), d["pages"].as_array().unwrap().len());
    check_lines(name, d, seen);
    rows.iter().map(|r| r[0].as_str().unwrap().to_owned()).collect()
}

/// The Source lines table: without line tables a note that says how to get them and no
/// table; with them one row per site that ran (at most 400, most instructions first), each
/// equal to a row of the data, and the note's count of lines and of unlined instructions.
fn check_lines(name: &str, d: &Value, seen: &Value) {
    let note = seen["lines_note"].as_str().unwrap();
    let Some(lines) = d["lines"].as_object() else {
        assert_eq!(seen["lines"], Value::Null, "{name}: no table without line tables");
        assert!(note.contains("debug = \"line-tables-only\"") && note.contains("-g"), "{name}: {note}");
        return;
    };
    let files = lines["files"].as_array().unwrap();
    let expected: Vec<Vec<String>> = lines["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            let f = u(&r["function"]);
            let fname = d["names"][f.to_string()].as_str().map_or(format!("func[{f}]"), str::to_owned);
            let mut row =
                vec![format!("{}:{}", files[u(&r["file"]) as usize].as_str().unwrap(), u(&r["line"])), fname];
            for k in ["instructions", "loads", "stores", "bytes_read", "bytes_written"] {
                row.push(thousands(u(&r[k])));
            }
            row
        })
        .collect();
    assert_eq!(seen["lines_head"][0][0], "file:line", "{name}");
    let shown: Vec<Vec<String>> = serde_json::from_value(seen["lines"].clone()).unwrap();
    assert_eq!(shown.len(), expected.len().min(400), "{name}");
    let number = |s: &str| s.replace(',', "").parse::<u64>().unwrap();
    for w in shown.windows(2) {
        assert!(number(&w[0][2]) >= number(&w[1][2]), "{name}: most instructions first");
    }
    for r in &shown {
        // A long path is shown with its start elided; the cell's whole text is its title.
        let found = expected.iter().any(|e| {
            e[1..] == r[1..] && (e[0] == r[0] || r[0].starts_with('…') && e[0].ends_with(&r[0][3..]))
        });
        assert!(found, "{name}: {r:?} is not a row of the data");
    }
    assert!(note.contains(&format!("{} lines ran", thousands(expected.len() as u64))), "{name}: {note}");
    assert!(
        note.contains(&format!("{} instructions", thousands(u(&lines["unlined"]["instructions"])))),
        "{name}: {note}"
    );
}

/// Clicking functions' rows and the hottest byte's.
fn check_selection(name: &str, d: &Value, seen: &Value) {
    let bytes = worked_bytes(d);
    let fns = d["functions"].as_array().unwrap();
    for key in ["select_top", "select_self"] {
        let s = &seen[key];
        let row = u(&s["row"]);
        assert_eq!(
            s["selection"],
            serde_json::json!({ "kind": "function", "id": row, "callees": true }),
            "{name}"
        );
        assert_eq!(s["selected_rows"], serde_json::json!([row]), "{name}");
        // Highlighted: exactly the bytes whose writer is one of its paths or below one.
        let on = under_function(d, row);
        let lit: Vec<&(u64, u64, Option<u64>)> =
            bytes.iter().filter(|b| b.2.is_some_and(|n| on[n as usize])).collect();
        assert_eq!(u(&s["count"]), lit.len() as u64, "{name}: {key} of {}", fns[row as usize]["name"]);
        assert!(!lit.is_empty(), "{name}: {key} wrote nothing");
        let ranges: Vec<(u64, u64)> =
            s["ranges"].as_array().unwrap().iter().map(|r| (u(&r[0]), u(&r[1]))).collect();
        let covered: u64 = ranges.iter().map(|(a, b)| b - a).sum();
        assert_eq!(covered, lit.len() as u64, "{name}: {key}");
        // Its hottest byte (most instructions, the lower address of equals) is among them,
        // and the hot-byte list is its bytes only, the hottest first.
        let hottest = lit.iter().max_by_key(|b| (b.1, std::cmp::Reverse(b.0))).unwrap();
        assert!(ranges.iter().any(|&(a, b)| (a..b).contains(&hottest.0)), "{name}: {key}: {hottest:?}");
        assert_eq!(u(&s["hot"][0]["address"]), hottest.0, "{name}: {key}");
        for h in s["hot"].as_array().unwrap() {
            assert!(on[u(&h["node"]) as usize], "{name}: {key}: {h}");
        }
        // Its frames in the flame graph are its own paths.
        for n in s["flame_selected"].as_array().unwrap() {
            assert_eq!(u(&d["call_tree"][u(n) as usize]["function"]), row, "{name}: {key}");
        }
    }
    // The first row is the function with the most inclusive write instructions.
    let top = u(&seen["select_top"]["row"]) as usize;
    let most = fns.iter().map(|f| u(&f["write_instructions_total"])).max().unwrap();
    assert_eq!(u(&fns[top]["write_instructions_total"]), most, "{name}");
    // The filtered hot-byte table shows the selection's bytes.
    let rows = seen["select_self"]["hottest"].as_array().unwrap();
    assert_eq!(rows.len(), seen["select_self"]["hot"].as_array().unwrap().len());
    assert_eq!(rows[0][1], format!("0x{:05x}", u(&seen["select_self"]["hot"][0]["address"])));
    assert_eq!(seen["after_clearing"], Value::Null, "{name}: a second click clears");

    // Picking the hottest byte marks its row, its label and its call path, every frame of it.
    let hot = &d["hottest"][0];
    let p = &seen["pick"];
    assert_eq!(u(&p["picked"]), u(&hot["address"]), "{name}");
    assert_eq!(p["picked_rows"], serde_json::json!([hot["address"]]));
    assert_eq!(p["picked_labels"], serde_json::json!([hot["address"]]));
    let mut marked: Vec<u64> = p["path"].as_array().unwrap().iter().map(u).collect();
    marked.sort_unstable();
    let mut expected = path(d, u(&hot["node"]));
    expected.sort_unstable();
    assert_eq!(marked, expected, "{name}");
    let text = p["text"].as_str().unwrap();
    assert!(text.contains(&format!("written by {} ", node_name(d, u(&hot["node"])))), "{name}: {text}");
}

#[test]
fn qr_report_in_chromium() {
    let html = content_report("qr", "tests/targets/url-to-qr-svg.wasm", "https://example.com");
    let (d, names) = check("qr", &html);
    assert!(names.iter().any(|n| n == "render"));
    // The stack's page has no colour: it shrinks to its line.
    assert!(d["regions"]["stack"].is_array());
}

#[test]
fn markdown_report_in_chromium() {
    let doc = "# Title\n\nSome *emphasis*, `code` and a [link](https://example.com).\n\n".repeat(40);
    let html = content_report("markdown", "tests/targets/markdown-to-html.wasm", &doc);
    let (_, names) = check("markdown", &html);
    assert!(names.iter().any(|n| n == "render"));
}

/// The Rust WASI program of tests/programs on its fixture, as README's example runs it.
#[test]
fn rust_program_report_in_chromium() {
    let dir = TempDir::with("browser", &[("harbour.txt", &fixture())]);
    let html = Path::new(env!("CARGO_TARGET_TMPDIR")).join("browser/rust-wasi.html");
    std::fs::create_dir_all(html.parent().unwrap()).unwrap();
    let mut preopen = dir.0.clone().into_os_string();
    preopen.push("::.");
    let o = Command::new(env!("CARGO_BIN_EXE_qip-memory"))
        .arg("report")
        .arg(program(RUST))
        .arg("--dir")
        .arg(preopen)
        .arg("-o")
        .arg(&html)
        .args(["--", "harbour.txt", "out.txt"])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let (d, names) = check("rust-wasi", &html);
    assert_eq!(d["program"]["kind"], "command");
    assert!(names.iter().any(|n| n == "wordfreq::main"), "{names:?}");
    // Built with line tables (tests/programs/rust-wasi/Cargo.toml): main's lines are rows.
    let files = d["lines"]["files"].as_array().expect("the Rust program's line tables");
    assert!(files.iter().any(|f| f.as_str().unwrap().ends_with("src/main.rs")), "{files:?}");
}

/// A target whose function names would end or re-enter the data's script element if they
/// were embedded raw: `<!--<script>` switches the HTML tokenizer into the script-data
/// escaped states, in which the element's own `</script>` no longer ends it, and
/// `</script><b>x` would end it early. Render writes bytes 0–63 through both functions.
const MARKUP_TARGET: &str = r#"(module
  (memory (export "memory") 2 2)
  (func (export "input_ptr") (result i32) i32.const 65536)
  (func (export "input_utf8_cap") (result i32) i32.const 256)
  (func (export "output_bytes_cap") (result i32) i32.const 64)
  (func $<!--<script> (param $i i32)
    local.get $i local.get $i i32.store8)
  (func $</script><b>x (param $i i32)
    local.get $i i32.const 32 i32.add local.get $i i32.load8_u i32.store8)
  (func (export "render") (param $len i32) (result i64) (local $i i32)
    loop $l
      local.get $i call $<!--<script>
      local.get $i call $</script><b>x
      local.get $i i32.const 1 i32.add local.tee $i i32.const 32 i32.lt_u br_if $l
    end
    i64.const 0))"#;

#[test]
fn markup_in_function_names_stays_text() {
    let dir = PathBuf::from(concat!(env!("CARGO_TARGET_TMPDIR"), "/browser"));
    std::fs::create_dir_all(&dir).unwrap();
    let target = dir.join("markup.wasm");
    std::fs::write(&target, wat::parse_str(MARKUP_TARGET).unwrap()).unwrap();
    // `check` compares the page's function table, row by row, with the data's names.
    let html = content_report("markup", target.to_str().unwrap(), "hi");
    let (_, names) = check("markup", &html);
    for name in ["<!--<script>", "</script><b>x", "render"] {
        assert!(names.iter().any(|n| n == name), "{name} in {names:?}");
    }
}

#[test]
fn thousands_separators() {
    assert_eq!(thousands(0), "0");
    assert_eq!(thousands(999), "999");
    assert_eq!(thousands(1000), "1,000");
    assert_eq!(thousands(3286868), "3,286,868");
    assert_eq!(percent(1, 3), "33.3 %");
}
