//! The built component `application/wasm/assemblyscript-heap-analyzer-json.wasm` under
//! wasmtime:
//!
//! * its shape (no imports, one fixed memory, no `memory.grow`, static getters, its content
//!   types in data);
//! * output byte-identical to `qip-memory heap analyze|diff` (without the CLI's newline) on
//!   the synthetic cases of docs/heap.md, "Test heaps", for every sort code and `top`;
//! * the uniforms `sort` and `top` reset after every render;
//! * rejections with the offset and mode of `qip_memory::tools::heap`'s table, offsets
//!   derived here from the request bytes.
//!
//! `make test` builds the artifact first; a missing one is built here with `make`.

mod common;
#[path = "common/heap.rs"]
mod fixtures;

use std::path::PathBuf;
use std::process::Command;
use std::sync::OnceLock;

use common::content::{Component, check_common, read};
use fixtures::*;

const COMPONENT: &str = "application/wasm/assemblyscript-heap-analyzer-json.wasm";
const UUID: &str = "00000000-0000-0000-0000-000000000000";

/// A multipart body as `qip run -F name=@file` writes it, each file named `<name>.bin`
/// (the `-F` layout written out in `common::content::body`, not the library's builder).
fn body(fields: &[(&str, &[u8])]) -> Vec<u8> {
    let names: Vec<String> = fields.iter().map(|(name, _)| format!("{name}.bin")).collect();
    let fields: Vec<common::content::Field<'_>> =
        fields.iter().zip(&names).map(|((name, bytes), file)| (*name, Some(file.as_str()), *bytes)).collect();
    common::content::body(UUID, &fields)
}

/// The headers of field `name`'s part in a [`body`], through the empty line.
fn headers(name: &str) -> String {
    format!(
        "Content-Disposition: form-data; name=\"{name}\"; filename=\"{name}.bin\"\r\n\
         Content-Type: application/octet-stream\r\n\r\n"
    )
}

/// Offset of the `index`-th field's part start (after its delimiter line) in a [`body`].
fn part_start(fields: &[(&str, &[u8])], index: usize) -> usize {
    let delimiter = format!("--uuid-{UUID}\r\n").len();
    let mut at = delimiter;
    for (name, bytes) in &fields[..index] {
        at += headers(name).len() + bytes.len() + 2 + delimiter;
    }
    at
}

/// Offset of the body of the `index`-th field (0-based) of a [`body`].
fn field_offset(fields: &[(&str, &[u8])], index: usize) -> usize {
    part_start(fields, index) + headers(fields[index].0).len()
}

#[derive(Debug, PartialEq, Eq)]
enum Rendered {
    Json(String),
    Rejected { offset: u32, mode: u32 },
}

/// One instance of the component (the shared wasmtime harness) with the JSON decoded.
struct Tool(Component);

impl Tool {
    fn new() -> Tool {
        Tool(Component::new(COMPONENT))
    }

    fn uniforms(&mut self, sort: u32, top: u32) {
        // Hosts apply keys in sorted order: sort, then top.
        assert_eq!(self.0.uniform("sort", sort as i32) as u32, sort);
        assert_eq!(self.0.uniform("top", top as i32) as u32, top);
    }

    fn render(&mut self, request: &[u8]) -> Rendered {
        match self.0.render(request) {
            Ok(bytes) => Rendered::Json(String::from_utf8(bytes).expect("output_utf8_cap promises UTF-8")),
            Err((offset, mode)) => Rendered::Rejected { offset, mode },
        }
    }
}

/// `qip-memory heap ARGS` in a directory holding the test heap's files; stdout without its newline.
fn cli(args: &[&str]) -> String {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    let d = DIR.get_or_init(|| {
        let d = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("heap-component");
        std::fs::create_dir_all(&d).unwrap();
        std::fs::write(d.join("s1.dump"), s1_dump()).unwrap();
        std::fs::write(d.join("s2.dump"), s2_dump()).unwrap();
        std::fs::write(d.join("syn.wasm"), syn_wasm(false)).unwrap();
        std::fs::write(d.join("syn_g.wasm"), syn_wasm(true)).unwrap();
        d
    });
    let o = Command::new(env!("CARGO_BIN_EXE_qip-memory"))
        .env("XDG_CACHE_HOME", concat!(env!("CARGO_TARGET_TMPDIR"), "/cache"))
        .current_dir(d)
        .arg("heap")
        .args(args)
        .output()
        .unwrap();
    assert!(o.status.success(), "{args:?}");
    let s = String::from_utf8(o.stdout).unwrap();
    s.strip_suffix('\n').expect("the CLI ends with a newline").to_string()
}

#[test]
fn artifact_shape() {
    // No imports, one memory with min = max, no memory.grow, every getter static, the input
    // region disjoint from the data (the checks all our components pass).
    let s = check_common(&read(COMPONENT));
    // 768 MiB = 12,288 pages: room for the 144 MiB input and the analysis of two 64 MiB dumps.
    assert_eq!(s.memories[0].0, 12_288);
    assert_eq!(s.getter("input_bytes_cap"), Some(144 << 20));
    assert_eq!(s.getter("output_utf8_cap"), Some(256 << 20));
    assert_eq!((s.getter("input_utf8_cap"), s.getter("output_bytes_cap")), (None, None));
    assert_eq!(s.getter("failure_modes_per_input_offset"), Some(10));
    let (ptr, size) =
        (s.getter("input_content_type_ptr").unwrap(), s.getter("input_content_type_size").unwrap());
    assert_eq!(s.data_bytes(ptr, size), Some(format!("multipart/form-data;boundary=uuid-{UUID}").as_bytes()));
    let (ptr, size) =
        (s.getter("output_content_type_ptr").unwrap(), s.getter("output_content_type_size").unwrap());
    assert_eq!(s.data_bytes(ptr, size), Some(&b"application/json"[..]));
    let mut uniforms: Vec<&str> =
        s.exports.iter().filter_map(|(n, _, _)| n.strip_prefix("uniform_set_")).collect();
    uniforms.sort();
    assert_eq!(uniforms, ["sort", "top"]);
}

#[test]
fn output_equals_cli_for_every_sort_and_top() {
    let (s1, s2, syn, syn_g) = (s1_dump(), s2_dump(), syn_wasm(false), syn_wasm(true));
    let mut tool = Tool::new();
    // Constructor view: the uniforms' defaults give exactly S1.
    let r = body(&[("wasm", &syn), ("dump", &s1)]);
    assert_eq!(tool.render(&r), Rendered::Json(S1_JSON.to_string()));
    for (code, name) in [(0, "retained"), (1, "shallow"), (2, "count")] {
        for top in [0u32, 1, 2, 5] {
            tool.uniforms(code, top);
            let mut args = vec!["analyze", "s2.dump", "--wasm", "syn_g.wasm", "--sort", name];
            let t = top.to_string();
            if top > 0 {
                args.extend(["--top", &t]);
            }
            let r = body(&[("dump", &s2), ("wasm", &syn_g)]);
            assert_eq!(tool.render(&r), Rendered::Json(cli(&args)), "{name} top {top}");
        }
    }
    // Comparison view.
    let r = body(&[("wasm", &syn_g), ("before", &s1), ("after", &s2)]);
    assert_eq!(tool.render(&r), Rendered::Json(S3_JSON.to_string()));
    for (code, name) in [(0, "delta"), (1, "alloc"), (2, "freed"), (3, "count")] {
        tool.uniforms(code, 1);
        let want = cli(&["diff", "s1.dump", "s2.dump", "--wasm", "syn_g.wasm", "--sort", name, "--top", "1"]);
        assert_eq!(tool.render(&r), Rendered::Json(want), "{name}");
    }
    // Reversed order: the diff of S2 → S1 has one deleted instance.
    let r = body(&[("after", &s1), ("before", &s2), ("wasm", &syn_g)]);
    assert_eq!(tool.render(&r), Rendered::Json(cli(&["diff", "s2.dump", "s1.dump", "--wasm", "syn_g.wasm"])));
}

#[test]
fn uniforms_reset_after_every_render() {
    let (s1, syn) = (s1_dump(), syn_wasm(false));
    let mut tool = Tool::new();
    let ok = body(&[("wasm", &syn), ("dump", &s1)]);
    // top 1 applies once, then the next render has all rows again.
    tool.uniforms(0, 1);
    assert_ne!(tool.render(&ok), Rendered::Json(S1_JSON.to_string()));
    assert_eq!(tool.render(&ok), Rendered::Json(S1_JSON.to_string()));
    // A rejection resets them too.
    tool.uniforms(9, 1);
    assert_eq!(tool.render(&ok), Rendered::Rejected { offset: ok.len() as u32, mode: 6 });
    assert_eq!(tool.render(&ok), Rendered::Json(S1_JSON.to_string()));
    // Sort 3 is valid for the comparison view only.
    tool.uniforms(3, 0);
    assert_eq!(tool.render(&ok), Rendered::Rejected { offset: ok.len() as u32, mode: 6 });
}

#[test]
fn rejections_carry_offset_and_mode() {
    let (s1, s2, syn) = (s1_dump(), s2_dump(), syn_wasm(false));
    let mut tool = Tool::new();
    let reject = |tool: &mut Tool, fields: &[(&str, &[u8])]| match tool.render(&body(fields)) {
        Rendered::Rejected { offset, mode } => (offset as usize, mode),
        Rendered::Json(j) => panic!("accepted: {j}"),
    };
    // Mode 0: not multipart at all (offset 0); an unknown field (its part start, the first
    // byte after the opening line of 45 bytes); a field twice (second part start); a missing
    // field (the closing delimiter line).
    assert_eq!(tool.render(b"hello"), Rendered::Rejected { offset: 0, mode: 0 });
    assert_eq!(reject(&mut tool, &[("input", b"x"), ("wasm", &syn)]), (45, 0));
    let f: &[(&str, &[u8])] = &[("wasm", &syn), ("wasm", &syn)];
    assert_eq!(reject(&mut tool, f), (part_start(f, 1), 0));
    let f: &[(&str, &[u8])] = &[("wasm", &syn)];
    assert_eq!(reject(&mut tool, f), (body(f).len() - (2 + 41 + 2 + 2), 0));
    let f: &[(&str, &[u8])] = &[("wasm", &syn), ("after", &s2)];
    assert_eq!(reject(&mut tool, f), (body(f).len() - 47, 0));
    // A part of the other view (`dump` with `before` or `after`): the later part's start.
    let f: &[(&str, &[u8])] = &[("wasm", &syn), ("dump", &s1), ("after", &s2)];
    assert_eq!(reject(&mut tool, f), (part_start(f, 2), 0));
    let f: &[(&str, &[u8])] = &[("before", &s1), ("wasm", &syn), ("dump", &s2)];
    assert_eq!(reject(&mut tool, f), (part_start(f, 2), 0));
    // Mode 1: a bad dump, at its part (the after dump of a diff too).
    let mut bad = s1.clone();
    bad[4] = 1;
    let f: &[(&str, &[u8])] = &[("wasm", &syn), ("dump", &bad)];
    assert_eq!(reject(&mut tool, f), (field_offset(f, 1), 1));
    let f: &[(&str, &[u8])] = &[("wasm", &syn), ("before", &s1), ("after", &bad)];
    assert_eq!(reject(&mut tool, f), (field_offset(f, 2), 1));
    // The before dump is read before the wasm (WARPO's order): bad dump wins over bad wasm.
    let f: &[(&str, &[u8])] = &[("wasm", b"nope"), ("dump", &bad)];
    assert_eq!(reject(&mut tool, f), (field_offset(f, 1), 1));
    // Modes 2, 3, 4: the wasm part.
    let f: &[(&str, &[u8])] = &[("dump", &s1), ("wasm", b"nope")];
    assert_eq!(reject(&mut tool, f), (field_offset(f, 1), 2));
    let f: &[(&str, &[u8])] = &[("dump", &s1), ("wasm", WASM_HEADER)];
    assert_eq!(reject(&mut tool, f), (field_offset(f, 1), 3));
    let mut info = syn_debug_info(56);
    info[16] = 3;
    let bad_dwarf = syn_wasm_with(false, &info);
    let f: &[(&str, &[u8])] = &[("dump", &s1), ("wasm", &bad_dwarf)];
    assert_eq!(reject(&mut tool, f), (field_offset(f, 1), 4));
    // Mode 5: a used block at 2604 whose header crosses the end of a 2614-byte memory: the
    // dump part's byte 24 + 2604.
    let truncated = s1[..24 + 2614].to_vec();
    let f: &[(&str, &[u8])] = &[("wasm", &syn), ("dump", &truncated)];
    assert_eq!(reject(&mut tool, f), (field_offset(f, 1) + 24 + 2604, 5));
    // With N = 1 global value the image starts at 28.
    let truncated = s2[..28 + 2614].to_vec();
    let f: &[(&str, &[u8])] = &[("wasm", &syn), ("dump", &truncated)];
    assert_eq!(reject(&mut tool, f), (field_offset(f, 1) + 28 + 2604, 5));
}

#[test]
fn qip_memory_run_hosts_the_component() {
    let d = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("heap-run");
    std::fs::create_dir_all(&d).unwrap();
    std::fs::write(d.join("s1.dump"), s1_dump()).unwrap();
    std::fs::write(d.join("syn.wasm"), syn_wasm(false)).unwrap();
    let component = common::content::artifact(COMPONENT);
    let run = |extra: &[&str]| {
        let mut args =
            vec!["run", "-F", "wasm=@syn.wasm", "-F", "dump=@s1.dump", component.to_str().unwrap()];
        args.extend(extra);
        Command::new(env!("CARGO_BIN_EXE_qip-memory"))
            .env("XDG_CACHE_HOME", concat!(env!("CARGO_TARGET_TMPDIR"), "/cache"))
            .current_dir(&d)
            .args(&args)
            .output()
            .unwrap()
    };
    let o = run(&[]);
    assert!(o.status.success());
    assert_eq!(String::from_utf8(o.stdout).unwrap().trim_end_matches('\n'), S1_JSON);
    // A rejection is explained with this component's own mode table.
    let o = run(&["-u", "sort=9"]);
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8(o.stderr).unwrap();
    assert!(err.contains("(mode 6): `sort` code outside the view's table"), "{err}");
}
