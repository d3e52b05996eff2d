//! A 20,000-level inheritance chain costs memory linear in the debug info: class layouts share
//! their parents' fields instead of copying them (docs/heap.md, "Class layouts"). Before, each
//! class kept a flattened copy of all inherited fields, quadratic in the depth: 4,000 levels
//! took 1.08 GB and 20,000 levels went past 24 GB.
//!
//! One test per binary: the peak is measured by this binary's global allocator
//! (`peak_alloc`), which parallel tests would disturb.

#[path = "common/heap.rs"]
mod fixtures;

use fixtures::*;
use peak_alloc::PeakAlloc;
use qip_memory::heap::analyze;
use qip_memory::heap::dump::write_dump;

#[global_allocator]
static ALLOCATOR: PeakAlloc = PeakAlloc;

/// Levels of the chain.
const DEPTH: u32 = 20_000;
/// The bound of the issue: 20,000 levels in at most 200 MB.
const PEAK_LIMIT: usize = 200 << 20;

#[test]
fn a_20000_level_chain_is_analysed_in_linear_memory() {
    // x/C0 (rtId 100) has one reference field `next` at 0; x/Ck (rtId 100 + k) inherits
    // x/C(k-1) and adds an i32 `fk` at offset 4k.
    let names: Vec<String> = (0..DEPTH).map(|k| format!("x/C{k}")).collect();
    let field_names: Vec<String> = (0..DEPTH).map(|k| format!("f{k}")).collect();
    let fields: Vec<[(&str, &str, u32); 1]> = (0..DEPTH as usize)
        .map(
            |k| if k == 0 { [("next", "x/C0", 0)] } else { [(field_names[k].as_str(), "i32", 4 * k as u32)] },
        )
        .collect();
    let classes: Vec<ClassSpec<'_>> = (0..DEPTH as usize)
        .map(|k| ClassSpec {
            name: &names[k],
            rtid: Some(100 + k as u32),
            base: (k > 0).then(|| names[k - 1].as_str()),
            fields: &fields[k],
            templates: &[],
            byte_size: None,
        })
        .collect();
    let spec = DwarfSpec { base_types: &["i32"], classes: &classes, globals: &[] };
    let wasm = wasm_with_dwarf(&spec, &[]);

    // One object of the deepest class (payload 80,000 bytes, so every field lies inside it)
    // whose inherited `next` points at an x/C0; the stack word at 1020 roots it.
    let mut h = HeapBuilder::new(1 << 17, 1024);
    let deep = h.alloc(100 + DEPTH - 1, 4 * DEPTH, 0);
    let leaf = h.alloc(100, 4, 0);
    h.set(deep, leaf);
    h.set(1020, deep);
    let dump = write_dump(1000, 1024, 1020, &[], &h.finish());

    let base = ALLOCATOR.current_usage();
    ALLOCATOR.reset_peak_usage();
    let start = std::time::Instant::now();
    let s = analyze(&dump, &wasm).unwrap();
    let elapsed = start.elapsed();
    let peak = ALLOCATOR.peak_usage() - base;
    eprintln!("{DEPTH} levels: {:.2} s, peak {:.1} MiB", elapsed.as_secs_f64(), peak as f64 / 1048576.0);

    // Shallow size = align16(20 + payload) (header and TLSF word): 80,032 and 32.
    let rows: Vec<(String, u64, u64, u64)> = s
        .constructors
        .iter()
        .map(|r| (r.class_name.clone(), r.count, r.total_shallow_size, r.total_retained_size))
        .collect();
    let deepest = format!("x/C{}", DEPTH - 1);
    assert_eq!(rows, [(deepest, 1, 80_032, 80_064), ("x/C0".to_string(), 1, 32, 32)]);
    assert!(peak <= PEAK_LIMIT, "peak {peak} bytes for {DEPTH} levels (limit {PEAK_LIMIT})");
}
