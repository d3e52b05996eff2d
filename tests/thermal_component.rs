//! The built heat-map component `application/wasm/qip-interpret-memory-thermal-ktx2.wasm`
//! against the real targets, and the CLI's `thermal` and `run -o NAME.png`:
//!
//! * the artifact's shape (docs/content.md): fixed memory, no imports,
//!   no `memory.grow`, static getters, the multipart slot, output exactly `image/ktx2`;
//! * the three uniforms: applied values, defaults, reset after every render (docs/request.md);
//! * component output byte-identical to `qip-memory thermal -o` and to `qip-memory run`
//!   (the README's CLI reference); mode 8 with its offset;
//! * the PNG of `--png` and of `run -o NAME.png` decoded with the `png` crate equal to the KTX2
//!   payload.

mod common;

use std::path::Path;
use std::process::Command;

use common::content::{Component, artifact, body, check_common, read};
use common::report::decode_png;

const COMPONENT: &str = "application/wasm/qip-interpret-memory-thermal-ktx2.wasm";
const QR: &str = "tests/targets/url-to-qr-svg.wasm";
const MARKDOWN: &str = "tests/targets/markdown-to-html.wasm";
const ZERO_UUID: &str = "00000000-0000-0000-0000-000000000000";
const SLOT: &str = "multipart/form-data;boundary=uuid-00000000-0000-0000-0000-000000000000";
/// 224 + 4 · 256 · 8,192: 32 tiles.
const OUTPUT_CAP: u32 = 8_388_832;

/// `-F component=@target.wasm -F input=INPUT`, the request of `qip-memory thermal`.
fn request(target: &str, input: &str) -> Vec<u8> {
    let module = read(target);
    // The CLI's tool subcommands send every target as `target.wasm`.
    body(ZERO_UUID, &[("component", Some("target.wasm"), &module), ("input", None, input.as_bytes())])
}

fn qip_memory(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_qip-memory"))
        .env("XDG_CACHE_HOME", concat!(env!("CARGO_TARGET_TMPDIR"), "/cache"))
        .args(args)
        .output()
        .unwrap()
}

fn tmp(name: &str) -> String {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR")).join("thermal");
    std::fs::create_dir_all(&d).unwrap();
    d.join(name).to_str().unwrap().to_owned()
}

/// `(width, height)` of a KTX2 file, read with the `ktx2` crate.
fn ktx2_size(bytes: &[u8]) -> (u32, u32) {
    let h = ktx2::Reader::new(bytes).unwrap().header();
    assert_eq!(h.format, Some(ktx2::Format::R8G8B8A8_SRGB));
    (h.pixel_width, h.pixel_height)
}

#[test]
fn component_artifact_shape() {
    let s = check_common(&read(COMPONENT));
    assert_eq!(s.getter("input_bytes_cap"), Some(9_469_952));
    assert_eq!(s.getter("output_bytes_cap"), Some(OUTPUT_CAP));
    assert_eq!((s.getter("input_utf8_cap"), s.getter("output_utf8_cap")), (None, None));
    assert_eq!(s.getter("failure_modes_per_input_offset"), Some(10));
    let (ptr, size) =
        (s.getter("input_content_type_ptr").unwrap(), s.getter("input_content_type_size").unwrap());
    assert_eq!(s.data_bytes(ptr, size), Some(SLOT.as_bytes()));
    let (ptr, size) =
        (s.getter("output_content_type_ptr").unwrap(), s.getter("output_content_type_size").unwrap());
    assert_eq!(s.data_bytes(ptr, size), Some(&b"image/ktx2"[..]));
    use wasmparser::ValType::I32;
    let mut uniforms: Vec<&str> =
        s.exports.iter().filter_map(|(n, _, _)| n.strip_prefix("uniform_set_")).collect();
    uniforms.sort();
    assert_eq!(uniforms, ["first_page", "instruction_budget", "normalize"]);
    for u in uniforms {
        let f = s.func(&format!("uniform_set_{u}")).unwrap();
        assert_eq!(s.signature(f), &(vec![I32], vec![I32]));
    }
}

#[test]
fn uniforms_apply_and_reset_after_every_render() {
    let mut c = Component::new(COMPONENT);
    assert_eq!(c.uniform("instruction_budget", 0), 1);
    assert_eq!(c.uniform("instruction_budget", -1), 1_000_000_000); // unsigned, clamped
    assert_eq!(c.uniform("normalize", 0), 0);
    assert_eq!(c.uniform("normalize", 7), 1);
    assert_eq!(c.uniform("first_page", 3), 3);
    assert_eq!(c.uniform("first_page", -5), 0);

    let req = request(QR, "https://example.com");
    let cli = |extra: &[&str]| -> Vec<u8> {
        let out = tmp(&format!("uniforms{}.ktx2", extra.join("_")));
        let target = artifact(QR);
        let mut args =
            vec!["thermal", target.to_str().unwrap(), "--input", "https://example.com", "-o", &out];
        args.extend_from_slice(extra);
        let o = qip_memory(&args);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        std::fs::read(&out).unwrap()
    };
    // The QR run needs about 8.3 million instructions: the default budget rejects (mode 5).
    let mut c = Component::new(COMPONENT);
    assert_eq!(c.render(&req).unwrap_err().1, 5);
    c.uniform("instruction_budget", 10_000_000);
    c.uniform("normalize", 0);
    c.uniform("first_page", 64);
    let first = c.render(&req).unwrap();
    assert_eq!(first, cli(&["--instruction-budget", "10000000", "--normalize", "0", "--first-page", "64"]));
    assert_eq!(ktx2_size(&first), (256, 3 * 256), "pages 64, 65 and 81");
    // All three reset: the budget is 1,000,000 again.
    assert_eq!(c.render(&req).unwrap_err().1, 5);
    c.uniform("instruction_budget", 10_000_000);
    let defaults = c.render(&req).unwrap();
    assert_eq!(defaults, cli(&["--instruction-budget", "10000000"]));
    assert_eq!(ktx2_size(&defaults), (256, 5 * 256), "normalize 1, first_page 0: pages 15, 16, 64, 65, 81");
    // Reset after a rejection too.
    c.uniform("instruction_budget", 10_000_000);
    c.uniform("first_page", 1000);
    let r = c.render(&req).unwrap_err();
    assert_eq!(r, (req.len() as u32, 8), "mode 8 points at input_size");
    c.uniform("instruction_budget", 10_000_000);
    assert_eq!(c.render(&req).unwrap(), defaults);
}

#[test]
fn cli_and_run_are_byte_identical_to_the_component() {
    let cases = [
        (QR, "https://example.com", "0"),
        (QR, "https://example.org/a/longer/path?q=1&r=2", "1"),
        (MARKDOWN, "# Title\n\nSome *emphasis*, `code` and a [link](https://example.com).\n", "1"),
        (MARKDOWN, "- one\n- two\n\n> quote\n", "0"),
    ];
    for (i, (target, input, normalize)) in cases.into_iter().enumerate() {
        let mut c = Component::new(COMPONENT);
        c.uniform("instruction_budget", 20_000_000);
        c.uniform("normalize", normalize.parse().unwrap());
        let ktx2 = c.render(&request(target, input)).unwrap();
        let (w, h) = ktx2_size(&ktx2);

        let path = artifact(target);
        let (out, png) = (tmp(&format!("case{i}.ktx2")), tmp(&format!("case{i}.png")));
        let o = qip_memory(&[
            "thermal",
            path.to_str().unwrap(),
            "--input",
            input,
            "--instruction-budget",
            "20000000",
            "--normalize",
            normalize,
            "-o",
            &out,
            "--png",
            &png,
        ]);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        assert!(o.stdout.is_empty() && o.stderr.is_empty());
        assert!(std::fs::read(&out).unwrap() == ktx2, "case {i}: CLI KTX2 differs from the component");
        // The PNG holds exactly the KTX2 payload.
        assert!(decode_png(&std::fs::read(&png).unwrap()) == (w, h, ktx2[224..].to_vec()), "case {i}: PNG");

        // `run` hosts the component on wasmtime: raw KTX2 to a .ktx2 path, PNG to a .png path.
        let component = artifact(COMPONENT);
        let (run_ktx2, run_png) = (tmp(&format!("run{i}.ktx2")), tmp(&format!("run{i}.png")));
        for dest in [&run_ktx2, &run_png] {
            let o = qip_memory(&[
                "run",
                "-F",
                &format!("component=@{}", path.display()),
                "-F",
                &format!("input={input}"),
                component.to_str().unwrap(),
                "-u",
                "instruction_budget=20000000",
                "-u",
                &format!("normalize={normalize}"),
                "-o",
                dest,
            ]);
            assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        }
        assert!(std::fs::read(&run_ktx2).unwrap() == ktx2, "case {i}: run -o .ktx2");
        assert!(
            decode_png(&std::fs::read(&run_png).unwrap()) == (w, h, ktx2[224..].to_vec()),
            "case {i}: run PNG"
        );
    }
}

#[test]
fn rejections_match_the_cli() {
    let _ = std::fs::remove_file(tmp("none.png"));
    let req = request(QR, "https://example.com");
    let mut c = Component::new(COMPONENT);
    c.uniform("instruction_budget", 10_000_000);
    c.uniform("first_page", 82);
    assert_eq!(c.render(&req).unwrap_err(), (req.len() as u32, 8));
    let path = artifact(QR);
    let o = qip_memory(&[
        "thermal",
        path.to_str().unwrap(),
        "--input",
        "https://example.com",
        "--instruction-budget",
        "10000000",
        "--first-page",
        "82",
        "--png",
        &tmp("none.png"),
    ]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(
        String::from_utf8(o.stderr).unwrap(),
        format!(
            "qip-memory: {}: nothing to report: no page at or above first_page 82 was read or written \
             (request offset {}, mode 8)\n",
            path.display(),
            req.len()
        )
    );
    assert!(!Path::new(&tmp("none.png")).exists(), "no file on a rejection");
    assert_eq!(c.render(b"not multipart"), Err((0, 0)));
}

#[test]
fn run_refuses_what_it_cannot_re_encode() {
    // A CSV output to a .png path: refused with one line, nothing written.
    let path = artifact(QR);
    let csv = artifact("application/wasm/qip-interpret-memory-page-writes-csv.wasm");
    let dest = tmp("table.png");
    let _ = std::fs::remove_file(&dest);
    let o = qip_memory(&[
        "run",
        "-F",
        &format!("component=@{}", path.display()),
        "-F",
        "input=https://example.com",
        csv.to_str().unwrap(),
        "-u",
        "instruction_budget=10000000",
        "-o",
        &dest,
    ]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(
        String::from_utf8(o.stderr).unwrap(),
        format!("qip-memory: -o {dest}: cannot re-encode output of type text/csv as image/png\n")
    );
    assert!(!Path::new(&dest).exists());
}

#[test]
fn view_png_is_the_library_picture() {
    use qip_memory::content::form::DEFAULT_CONTENT_TYPE;
    use qip_memory::image::view::Metric;
    let out = tmp("view.png");
    let o = qip_memory(&[
        "thermal",
        artifact(QR).to_str().unwrap(),
        "--input",
        "https://example.com",
        "--instruction-budget",
        "10000000",
        "--view",
        &out,
        "--metric",
        "calls",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let (w, h, rgba) = decode_png(&std::fs::read(&out).unwrap());
    let req = request(QR, "https://example.com");
    let options = qip_memory::tools::thermal::Options { budget: 10_000_000, normalize: true, first_page: 0 };
    // `--view` records the writers, for the legend.
    let mut run = qip_memory::tools::Request::parse(&req, DEFAULT_CONTENT_TYPE.as_bytes())
        .unwrap()
        .content_run(10_000_000);
    let t = qip_memory::tools::thermal::heat_map_with_writers(&mut run, options).unwrap();
    let pic = t.view(16, Metric::Calls);
    assert_eq!((w as usize, h as usize), (pic.width, pic.height));
    assert!(rgba == pic.rgba, "the PNG is the library's picture");
    assert!(rgba.chunks_exact(4).all(|p| p[3] == 255));
}
