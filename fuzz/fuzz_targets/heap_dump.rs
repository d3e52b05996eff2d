//! The heap analyzer's dump side (docs/heap.md) on arbitrary bytes, with
//! the fixed 235-byte-style module of docs/heap.md's test heaps (one global, classes ArrayBuffer
//! and TreeNode):
//!
//! * the raw input as a dump file: `Dump::parse` must not panic;
//! * the input as the *contents* of a valid version-2 dump (bytes 0–1 heapBase, 2–3
//!   stackPointer, byte 4 the number of global values (0–3) that follow, the rest the memory
//!   image), analysed end to end: no panic, no hang, and on success the invariants of the views
//!   (Σ totalShallowSize = totalLiveSize, every retained size ≥ its shallow size); then the
//!   views beyond WARPO's on the same dump: the dominator tree (its roots retain the live
//!   size), the retainers of every live object (each one's distance, paths ending at it)
//!   and the DevTools snapshot (one node per live object and the root).
#![no_main]

use libfuzzer_sys::fuzz_target;
use qip_memory::heap::{Analyzer, Dump};

#[path = "common/heap_views.rs"]
mod heap_views;

fn cstr(out: &mut Vec<u8>, s: &str) {
    out.extend_from_slice(s.as_bytes());
    out.push(0);
}

fn custom(out: &mut Vec<u8>, name: &str, data: &[u8]) {
    let len = 1 + name.len() + data.len();
    assert!(len < 128 * 128);
    out.push(0);
    out.extend_from_slice(&[(len as u8 & 0x7f) | 0x80, (len >> 7) as u8]);
    out.push(name.len() as u8);
    out.extend_from_slice(name.as_bytes());
    out.extend_from_slice(data);
}

/// `syn_g.wasm` of the test heaps: a mutable i32 global and the DWARF of ArrayBuffer (rtId 1) and
/// `x/TreeNode` (rtId 4: value i32 @0, left @4, right @8), global `x/root` at index 0.
fn module() -> Vec<u8> {
    let abbrev: &[u8] = &[
        1, 0x11, 1, 0x25, 0x0e, 0, 0, 2, 0x02, 1, 0x03, 0x08, 0x69, 0x06, 0, 0, 4, 0x0d, 0, 0x03, 0x08, 0x49,
        0x13, 0x38, 0x06, 0, 0, 5, 0x24, 0, 0x03, 0x08, 0, 0, 8, 0x34, 0, 0x03, 0x08, 0x49, 0x13, 0x02, 0x06,
        0, 0, 0,
    ];
    let mut d = vec![1, 0, 0, 0, 0, 5];
    cstr(&mut d, "i32");
    d.push(2);
    cstr(&mut d, "~lib/arraybuffer/ArrayBuffer");
    d.extend_from_slice(&[1, 0, 0, 0, 0, 2]);
    cstr(&mut d, "x/TreeNode");
    d.extend_from_slice(&4u32.to_le_bytes());
    for (name, ty, at) in [("value", 16u32, 0u32), ("left", 56, 4), ("right", 56, 8)] {
        d.push(4);
        cstr(&mut d, name);
        d.extend_from_slice(&ty.to_le_bytes());
        d.extend_from_slice(&at.to_le_bytes());
    }
    d.push(0);
    d.push(8);
    cstr(&mut d, "x/root");
    d.extend_from_slice(&56u32.to_le_bytes());
    d.extend_from_slice(&0u32.to_le_bytes());
    d.push(0);
    let mut info = (7 + d.len() as u32).to_le_bytes().to_vec();
    info.extend_from_slice(&[4, 0, 0, 0, 0, 0, 4]);
    info.extend(d);
    let mut w = b"\0asm\x01\0\0\0".to_vec();
    w.extend_from_slice(&[0x06, 0x06, 0x01, 0x7f, 0x01, 0x41, 0x00, 0x0b]);
    custom(&mut w, "debug_abbrev", abbrev);
    custom(&mut w, "debug_str", b"warpo\0");
    custom(&mut w, "debug_info", &info);
    w
}

fuzz_target!(|data: &[u8]| {
    let _ = Dump::parse(data);
    let Some(dump) = heap_views::dump_from(data) else { return };
    let wasm = module();
    let analyzer = Analyzer::new(&wasm).expect("the fixed module is valid");
    heap_views::check(&analyzer, &Dump::parse(&dump).expect("a valid header"));
});
