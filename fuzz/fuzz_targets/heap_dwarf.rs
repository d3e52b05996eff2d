//! The heap analyzer's DWARF side (docs/heap.md, "The wasm binary and its DWARF") on arbitrary
//! bytes: the input is split into `debug_abbrev`, `debug_info` and `debug_str` (two little-endian
//! u16 lengths first) and read with `Dies::read`; accepted DWARF is resolved into layouts and used
//! to analyse a small fixed heap whose objects have rtIds 0–15. Nothing may panic or hang.
#![no_main]

use libfuzzer_sys::fuzz_target;
use qip_memory::heap::dwarf::Dies;
use qip_memory::heap::layout::DebugInfo;
use qip_memory::heap::module::ModuleInfo;
use qip_memory::heap::{graph, roots, tlsf};

/// A 4 KiB heap (heapBase 0, first block at 1580): 16 objects of rtIds 0–15, each 48 bytes
/// (payload 24), every payload word pointing at the next object's payload.
fn memory() -> Vec<u8> {
    let mut m = vec![0u8; 4096];
    let mut b = 1580usize;
    let set = |m: &mut Vec<u8>, at: usize, v: u32| m[at..at + 4].copy_from_slice(&v.to_le_bytes());
    for rtid in 0..16u32 {
        set(&mut m, b, 44);
        set(&mut m, b + 12, rtid);
        set(&mut m, b + 16, 24);
        for w in 0..6 {
            set(&mut m, b + 20 + 4 * w, (b + 48 + 20) as u32);
        }
        b += 48;
    }
    set(&mut m, 4092, 2);
    m
}

fuzz_target!(|data: &[u8]| {
    if data.len() < 4 {
        return;
    }
    let a = usize::from(u16::from_le_bytes([data[0], data[1]]));
    let i = usize::from(u16::from_le_bytes([data[2], data[3]]));
    let rest = &data[4..];
    let (abbrev, rest) = rest.split_at(a.min(rest.len()));
    let (info, strs) = rest.split_at(i.min(rest.len()));
    let Ok(dies) = Dies::read(abbrev, info, strs) else { return };
    let debug = DebugInfo::resolve(&dies);
    for l in debug.layouts.values() {
        assert!(l.rtid != 0 || l.name == "~lib/object/Object");
        if let Some(e) = &l.entry {
            assert!(e.size != 0);
        }
    }
    let mem = memory();
    let objects = tlsf::walk(&mem, 0).expect("the fixed heap is consistent");
    let index = tlsf::PtrIndex::new(&objects);
    if let Ok(g) = graph::scan(&mem, &objects, &index, &debug) {
        assert_eq!(g.node_count(), objects.len());
        let module = ModuleInfo::default();
        let globals = roots::global_roots(&debug, &module, &[]);
        let _ = roots::roots(&mem, 0, 0, &objects, &index, &globals);
    }
});
