//! The built report component `application/wasm/qip-interpret-memory-report-html.wasm` under
//! wasmtime, against the real targets and `qip-memory report` (docs/report.md):
//!
//! * the artifact's shape: fixed memory, no imports, no `memory.grow`, static getters, the
//!   multipart slot, output type exactly `text/html`;
//! * its HTML byte-identical to `qip-memory report` for the same target and input, and to the
//!   library's for the same request bytes;
//! * the uniforms `instruction_budget` and `first_page`: applied values, reset after every
//!   render; budget exhaustion (mode 5) and mode 8 with their offsets.

mod common;

use std::path::Path;
use std::process::Command;

use common::content::{Component, artifact, body, check_common, read};
use qip_memory::content::form::DEFAULT_CONTENT_TYPE;
use qip_memory::tools::report::{Options, report};

const COMPONENT: &str = "application/wasm/qip-interpret-memory-report-html.wasm";
const QR: &str = "tests/targets/url-to-qr-svg.wasm";
const MARKDOWN: &str = "tests/targets/markdown-to-html.wasm";
const ZERO_UUID: &str = "00000000-0000-0000-0000-000000000000";

fn request(target: &str, input: &str) -> Vec<u8> {
    let module = read(target);
    // The CLI's tool subcommands send every target as `target.wasm`.
    body(ZERO_UUID, &[("component", Some("target.wasm"), &module), ("input", None, input.as_bytes())])
}

fn cli_report(target: &str, input: &str, budget: u32, name: &str) -> Vec<u8> {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("report-component");
    std::fs::create_dir_all(&dir).unwrap();
    let out = dir.join(name);
    let o = Command::new(env!("CARGO_BIN_EXE_qip-memory"))
        .args(["report", artifact(target).to_str().unwrap(), "--input", input])
        .args(["--instruction-budget", &budget.to_string(), "-o"])
        .arg(&out)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    std::fs::read(out).unwrap()
}

#[test]
fn component_artifact_shape() {
    let bytes = read(COMPONENT);
    let s = check_common(&bytes);
    assert!(s.getter("output_utf8_cap").is_some());
    let ptr = s.getter("output_content_type_ptr").unwrap();
    let size = s.getter("output_content_type_size").unwrap();
    assert_eq!(s.data_bytes(ptr, size), Some(&b"text/html"[..]));
    assert_eq!(s.getter("failure_modes_per_input_offset"), Some(10));
    for u in ["uniform_set_instruction_budget", "uniform_set_first_page"] {
        assert!(s.func(u).is_some(), "{u}");
    }
}

#[test]
fn html_is_byte_identical_to_the_cli_and_the_library() {
    let mut c = Component::new(COMPONENT);
    for (i, (target, input)) in
        [(QR, "https://example.com"), (MARKDOWN, "# Title\n\n- one\n- two\n\n> quote\n")]
            .into_iter()
            .enumerate()
    {
        let req = request(target, input);
        assert_eq!(c.uniform("instruction_budget", 100_000_000), 100_000_000);
        let html = c.render(&req).unwrap_or_else(|e| panic!("{target}: rejected {e:?}"));
        let lib =
            report(&req, DEFAULT_CONTENT_TYPE.as_bytes(), Options { budget: 100_000_000, first_page: 0 })
                .unwrap()
                .to_html();
        assert!(html == lib.as_bytes(), "{target}: component and library differ");
        assert!(
            html == cli_report(target, input, 100_000_000, &format!("{i}.html")),
            "{target}: component and CLI differ"
        );
        // `qip-memory run` (wasmtime) prints the same UTF-8 output plus one newline.
        let o = Command::new(env!("CARGO_BIN_EXE_qip-memory"))
            .env("XDG_CACHE_HOME", concat!(env!("CARGO_TARGET_TMPDIR"), "/cache"))
            .args(["run", "-F", &format!("component=@{}", artifact(target).display()), "-F"])
            .arg(format!("input={input}"))
            .arg(artifact(COMPONENT))
            .args(["-u", "instruction_budget=100000000"])
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        assert!(o.stdout == [&html[..], b"\n"].concat(), "{target}: run differs from the component");
    }
}

#[test]
fn uniforms_reset_and_rejections() {
    let mut c = Component::new(COMPONENT);
    let req = request(QR, "https://example.com");
    // The QR run needs about 8.3 million instructions: the default budget rejects (mode 5),
    // the offset inside the component part.
    let (offset, mode) = c.render(&req).unwrap_err();
    assert_eq!(mode, 5);
    let module = read(QR);
    let part_start = req.windows(module.len()).position(|w| w == module).unwrap();
    assert!((part_start..part_start + module.len()).contains(&(offset as usize)), "{offset}");
    // Applied, used once, then back to the default.
    assert_eq!(c.uniform("instruction_budget", 0), 1);
    assert_eq!(c.uniform("instruction_budget", 10_000_000), 10_000_000);
    assert!(c.render(&req).is_ok());
    assert_eq!(c.render(&req).unwrap_err().1, 5);
    // first_page past every touched page: mode 8 at the request's end.
    assert_eq!(c.uniform("first_page", -3), 0);
    assert_eq!(c.uniform("first_page", 100_000), 100_000);
    assert_eq!(c.uniform("instruction_budget", 10_000_000), 10_000_000);
    assert_eq!(c.render(&req).unwrap_err(), (req.len() as u32, 8));
    // Both reset: the next render is a default-budget rejection again, not mode 8.
    assert_eq!(c.render(&req).unwrap_err().1, 5);
}
