//! Helpers shared by the integration tests.
#![allow(dead_code)]

pub mod content;
pub mod programs;
pub mod report;
pub mod wasmtime_wasi;

/// Byte offsets of the instructions of defined function `index`, read with wasmparser (not
/// with the interpreter under test).
pub fn instruction_offsets(module: &[u8], index: usize) -> Vec<usize> {
    let mut bodies = Vec::new();
    for p in wasmparser::Parser::new(0).parse_all(module) {
        if let wasmparser::Payload::CodeSectionEntry(body) = p.unwrap() {
            bodies.push(body);
        }
    }
    let mut r = bodies[index].get_operators_reader().unwrap();
    let mut out = Vec::new();
    while !r.eof() {
        out.push(r.original_position() as usize);
        r.read().unwrap();
    }
    out
}

/// A Content target with a shared memory whose render runs one atomic of each kind
/// (docs/counting.md, "Threads"), every access on the 4 bytes at 65,600, which are also the
/// output; the input is at 65,536, on the same page 1. Counted by hand in tests/page_writes.rs
/// and tests/thermal.rs.
pub const ATOMICS_TARGET: &str = r#"(module
  (memory (export "memory") 2 2 shared)
  (global $sp (mut i32) (i32.const 65536))
  (func (export "input_ptr") (result i32) i32.const 65536)
  (func (export "input_utf8_cap") (result i32) i32.const 64)
  (func (export "output_bytes_cap") (result i32) i32.const 64)
  (func (export "render") (param $len i32) (result i64)
    i32.const 65600 i32.const 7 i32.atomic.store                          ;; write 4 bytes
    i32.const 65600 i32.const 1 i32.atomic.rmw.add drop                   ;; read 4, write 4: 8
    i32.const 65600 i32.const 8 i32.const 9 i32.atomic.rmw.cmpxchg drop   ;; read 4, write 4: 9
    i32.const 65600 i32.const 0 i32.const 1 i32.atomic.rmw.cmpxchg drop   ;; 9 ≠ 0: read 4, write 4
    i32.const 65600 i32.atomic.load drop                                  ;; read 4
    i32.const 65600 i32.const 0 i64.const 0 memory.atomic.wait32 drop     ;; read 4 (9 ≠ 0: 1)
    i32.const 65600 i32.const 1 memory.atomic.notify drop                 ;; no access
    atomic.fence
    i64.const 0x0001004000000004))"#;

/// A request with `component`, optional `input` and uniforms, built by the library's `-F`
/// builder as `qip run -F` would (the tests of the tools at library level).
pub fn request(component: &[u8], input: Option<&[u8]>, uniforms: &[(&str, &str)]) -> Vec<u8> {
    use qip_memory::content::form::{DEFAULT_BOUNDARY, FieldSource, build_body};
    let mut fields = vec![("component".to_string(), FieldSource::Raw(component.to_vec()))];
    if let Some(i) = input {
        fields.push(("input".to_string(), FieldSource::Text(i.to_vec())));
    }
    for (k, v) in uniforms {
        fields.push((format!("uniforms[{k}]"), FieldSource::Text(v.as_bytes().to_vec())));
    }
    build_body(&fields, DEFAULT_BOUNDARY).unwrap()
}

/// `module` without its custom sections (`name`, DWARF, producers): the section bytes copied
/// by wasmparser's ranges, not by code under test.
pub fn without_custom_sections(module: &[u8]) -> Vec<u8> {
    let mut out = module[..8].to_vec();
    for p in wasmparser::Parser::new(0).parse_all(module) {
        let p = p.unwrap();
        if let Some((id, range)) = p.as_section()
            && id != 0
        {
            // The section's id and size prefix precede its contents.
            let start = section_start(module, range.start as usize);
            out.extend_from_slice(&module[start..range.end as usize]);
        }
    }
    out
}

/// The offset of the id byte of the section whose contents start at `contents`: the id, then
/// the LEB128 size ending just before the contents.
fn section_start(module: &[u8], contents: usize) -> usize {
    let mut at = contents - 1; // last byte of the size (high bit clear)
    while at > 0 && module[at - 1] & 0x80 != 0 {
        at -= 1;
    }
    at - 1
}
