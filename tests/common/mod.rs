//! Helpers shared by the integration tests.
#![allow(dead_code)]

pub mod content;

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
