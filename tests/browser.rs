//! The memory report in a real browser: Debian's chromium, headless, driven over the DevTools
//! protocol by tests/browser/report.mjs (puppeteer-core, pinned in tests/browser). For the QR
//! demo request and a Markdown document, `qip-memory report` writes the HTML; the browser
//! opens it from disk and this test checks what it shows against the report's own data
//! object (whose numbers tests/report.rs proves equal to the CSV, the KTX2 and `thermal`):
//!
//! * no console errors, no page errors, no request but the file itself;
//! * every tile canvas drawn (pixels other than the tile background);
//! * the hottest-bytes table, the function table and the page table with the expected rows,
//!   names and values (numbers formatted here with thousands separators, independently of
//!   the page's script);
//! * hovering the hottest byte shows its exact tallies and the function that wrote it;
//!   leaving hides the tooltip;
//! * a screenshot under `target/`.
//!
//! `make test` installs chromium (`make chromium`) and the npm packages first; run alone,
//! the test installs the packages itself and fails with a hint when chromium is missing.

use std::path::{Path, PathBuf};
use std::process::Command;

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

fn u(v: &Value) -> u64 {
    v.as_u64().unwrap_or_else(|| panic!("not a number: {v}"))
}

fn data_of(html: &str) -> Value {
    let start = r#"<script type="application/json" id="qip-memory-data">"#;
    let (_, rest) = html.split_once(start).expect("the data element");
    serde_json::from_str(rest.split_once("</script>").unwrap().0).unwrap()
}

/// Writes the report of `target` on `input`, opens it in chromium and checks what it shows.
/// Returns the function names the page's function table shows.
fn check(name: &str, target: &str, input: &str) -> Vec<String> {
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
    let html = std::fs::read_to_string(&html_path).unwrap();
    let d = data_of(&html);

    let shot = Path::new(env!("CARGO_TARGET_TMPDIR")).parent().unwrap().join(format!("{name}-report.png"));
    let o = Command::new("node")
        .arg(driver())
        .arg(&html_path)
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

    // Every tile drawn, in the data's order.
    let tiles = seen["tiles"].as_array().unwrap();
    let pages: Vec<u64> = d["tiles"].as_array().unwrap().iter().map(|t| u(&t["page"])).collect();
    assert_eq!(tiles.iter().map(|t| u(&t["page"])).collect::<Vec<_>>(), pages);
    for t in tiles {
        assert!(u(&t["drawn"]) > 0, "{name}: tile of page {} not drawn", t["page"]);
    }

    // The time view: reads and writes drawn in their colours; the stack curve drawn only for a
    // stack pointer that moved down (a stack region), and its canvas absent otherwise.
    let time = seen["time"].as_array().unwrap();
    assert!(u(&time[0]["reads"]) > 0 && u(&time[0]["writes"]) > 0, "{name}: {}", time[0]);
    if d["regions"]["stack"].is_null() {
        assert_eq!(time.len(), 1, "{name}: no stack curve without a stack");
    } else {
        assert_eq!(time.len(), 2);
        assert!(u(&time[1]["line"]) > 0, "{name}: {}", time[1]);
    }

    // The innermost frame of a call-tree node is its own function (an index into `functions`).
    let innermost = |node: &Value| {
        let f = &d["call_tree"][u(node) as usize]["function"];
        d["functions"][u(f) as usize]["name"].as_str().unwrap().to_owned()
    };

    // The hottest bytes: header plus one row per byte, address in hex, exact tallies, writer.
    let rows = seen["hottest"].as_array().unwrap();
    let hot = d["hottest"].as_array().unwrap();
    assert_eq!(rows.len(), hot.len() + 1);
    assert_eq!(hot.len(), 16);
    for (i, h) in hot.iter().enumerate() {
        let r = &rows[i + 1];
        assert_eq!(r[0], (i + 1).to_string());
        assert_eq!(r[1], format!("0x{:05x}", u(&h["address"])));
        assert_eq!(r[2], thousands(u(&h["instructions"])));
        assert_eq!(r[3], thousands(u(&h["loops"])));
        assert_eq!(r[4], thousands(u(&h["calls"])));
        assert_eq!(r[5], thousands(u(&h["accesses"])));
        assert_eq!(r[6], innermost(&h["node"]));
    }

    // Functions: every function that ran, most self instructions first (the default sort).
    let rows = seen["functions"].as_array().unwrap();
    let fns = d["functions"].as_array().unwrap();
    assert_eq!(rows.len(), fns.len() + 1);
    for (f, r) in fns.iter().zip(&rows[1..]) {
        assert_eq!(r[0], f["name"]);
        assert_eq!(r[1], u(&f["index"]).to_string());
        assert_eq!(r[2], thousands(u(&f["self_instructions"])));
        assert_eq!(r[3], thousands(u(&f["write_instructions"])));
    }
    assert!(fns.iter().any(|f| f["name"] == "render"), "{name}");

    // The page table, one row per CSV row.
    assert_eq!(seen["pages"].as_array().unwrap().len(), d["pages"].as_array().unwrap().len() + 1);

    // Hovering the hottest byte.
    let tip = &seen["tooltip"];
    assert_eq!(tip["shown"], true, "{name}");
    let text = tip["text"].as_str().unwrap();
    let h = &hot[0];
    assert!(text.starts_with(&format!("address 0x{:05x} ", u(&h["address"]))), "{text}");
    assert!(
        text.contains(&format!("page {}, offset {},", u(&h["address"]) / 65536, u(&h["address"]) % 65536)),
        "{text}"
    );
    let tallies = format!(
        "instructions {}, loop iterations {}, calls {}, accesses {}",
        thousands(u(&h["instructions"])),
        thousands(u(&h["loops"])),
        thousands(u(&h["calls"])),
        thousands(u(&h["accesses"]))
    );
    assert!(text.contains(&tallies), "{text}\nexpected {tallies}");
    assert!(text.contains(&format!("written by {}", innermost(&h["node"]))), "{text}");
    assert_eq!(seen["tooltip_after_leaving"], "none");

    assert!(shot.exists());
    eprintln!(
        "{name}: {} bytes of HTML, loaded and drawn in {} ms; screenshot {}",
        html.len(),
        u(&seen["load_and_draw_ms"]),
        shot.display()
    );
    rows[1..].iter().map(|r| r[0].as_str().unwrap().to_owned()).collect()
}

#[test]
fn qr_report_in_chromium() {
    check("qr", "tests/targets/url-to-qr-svg.wasm", "https://example.com");
}

#[test]
fn markdown_report_in_chromium() {
    let doc = "# Title\n\nSome *emphasis*, `code` and a [link](https://example.com).\n\n".repeat(40);
    check("markdown", "tests/targets/markdown-to-html.wasm", &doc);
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
    let names = check("markup", target.to_str().unwrap(), "hi");
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
}
