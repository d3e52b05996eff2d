//! What the heap fuzz targets share: the fuzz input read as a version-2 dump, and the
//! invariants every view of an analysed dump must keep.

use qip_memory::heap::dump::write_dump;
use qip_memory::heap::retainers::Target;
use qip_memory::heap::{Analyzer, Dump, comparison_json, snapshot_json, views};

/// The input as the contents of a valid version-2 dump: bytes 0–1 heapBase, 2–3
/// stackPointer, byte 4 the number of global values (0–3) that follow, the rest the memory
/// image. `None` for inputs shorter than 5 bytes.
pub fn dump_from(data: &[u8]) -> Option<Vec<u8>> {
    if data.len() < 5 {
        return None;
    }
    let heap_base = u32::from(u16::from_le_bytes([data[0], data[1]]));
    let stack_pointer = u32::from(u16::from_le_bytes([data[2], data[3]]));
    let n = usize::from(data[4] % 4);
    let rest = &data[5..];
    let globals: Vec<u32> =
        rest.chunks_exact(4).take(n).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect();
    let memory = &rest[(4 * globals.len()).min(rest.len())..];
    Some(write_dump(0, heap_base, stack_pointer, &globals, memory))
}

/// Analyses `parsed` and, on success, checks the invariants of every view: Σ shallow = live
/// size, retained ≥ shallow, the dominator roots retain the live size, each live object's
/// retainers end at it, and the DevTools snapshot has one node per live object and the root.
pub fn check(analyzer: &Analyzer<'_>, parsed: &Dump<'_>) {
    if let Ok(snap) = analyzer.analyze(parsed) {
        let shallow: u64 = snap.constructors.iter().map(|r| r.total_shallow_size).sum();
        assert_eq!(shallow, snap.total_live_size);
        for r in &snap.constructors {
            assert!(r.instances.iter().all(|i| i.retained_size >= i.shallow_size));
            assert_eq!(r.count as usize, r.instances.len());
        }
        let _ = snapshot_json(&snap);
        let c = views::compare(&snap, &snap);
        assert!(c.constructors.is_empty());
        let _ = comparison_json(&c);

        let view = analyzer.dominators(parsed, 3, 4).expect("the same dump analyses again");
        if view.omitted_roots == 0 {
            assert_eq!(view.roots.iter().map(|r| r.retained_size).sum::<u64>(), snap.total_live_size);
        }
        let _ = (view.to_json(), view.to_table());
        for inst in snap.constructors.iter().flat_map(|r| r.instances.iter()).take(64) {
            let v = analyzer.retainers(parsed, &Target::Address(inst.address), 2).expect("a live object");
            assert!(v.object.distance.is_some(), "a live object has a distance");
            assert_eq!(v.object.retained_size, inst.retained_size);
            for p in &v.paths {
                assert_eq!(p.steps.last().map(|s| s.object.address), Some(inst.address));
            }
            let _ = (v.to_json(), v.to_table());
        }
        let mut text = String::new();
        analyzer.heapsnapshot(parsed, &mut text).expect("the snapshot of an analysed dump");
        let nodes = text.split("\n\"edges\"").next().unwrap_or("").matches('\n').count();
        let live: u64 = snap.constructors.iter().map(|r| r.count).sum();
        assert_eq!(nodes as u64, live + 1, "one node line per live object and the root");
    }
}
