//! The heap analyzer end to end through the library (docs/heap.md, "Test heaps" and "References"):
//!
//! * S1, S2, S3 with the exact JSON written by hand from the spec, on the byte-exact
//!   `syn.wasm`/`syn_g.wasm` and on the same DWARF written by `gimli::write`;
//! * reference scanning per kind (Array, StaticArray, Map/Set, Function, SmallTuple,
//!   inherited fields, typed arrays) on heaps laid out like the AssemblyScript runtime;
//! * bad input: every documented message, and a clear error (never a panic or a hang) for
//!   dumps that lie.

#[path = "common/heap.rs"]
mod fixtures;

use fixtures::*;
use qip_memory::heap::dump::write_dump;
use qip_memory::heap::{
    Analyzer, ComparisonSort, ConstructorSort, Dump, HeapError, Snapshot, analyze, comparison_json, diff,
    snapshot_json,
};

#[test]
fn syn_wasm_is_the_235_bytes_of_h1() {
    assert_eq!(syn_wasm(false).len(), 235);
    // syn_g adds the 8-byte global section.
    assert_eq!(syn_wasm(true).len(), 243);
}

#[test]
fn s1_constructor_view() {
    let snap = analyze(&s1_dump(), &syn_wasm(false)).unwrap();
    assert_eq!(snapshot_json(&snap), S1_JSON);
    // The same DWARF written by gimli (other abbreviation codes and offsets).
    let snap = analyze(&s1_dump(), &wasm_with_dwarf(&syn_spec(), &[])).unwrap();
    assert_eq!(snapshot_json(&snap), S1_JSON);
}

#[test]
fn s2_global_root() {
    let snap = analyze(&s2_dump(), &syn_wasm(true)).unwrap();
    assert_eq!(snapshot_json(&snap), S2_JSON);
    let snap = analyze(&s2_dump(), &wasm_with_dwarf(&syn_spec(), &[(true, 0)])).unwrap();
    assert_eq!(snapshot_json(&snap), S2_JSON);
    // Without the global section the value has no global to go to: S1's result.
    let snap = analyze(&s2_dump(), &syn_wasm(false)).unwrap();
    assert_eq!(snapshot_json(&snap), S1_JSON);
}

#[test]
fn s3_comparison_view() {
    let c = diff(&s1_dump(), &s2_dump(), &syn_wasm(true)).unwrap();
    assert_eq!(comparison_json(&c), S3_JSON);
}

#[test]
fn immutable_global_takes_its_init_literal() {
    // An immutable i32 global initialised to 2720 roots D without any dump value.
    let wasm = wasm_with_dwarf(&syn_spec(), &[(false, 2720)]);
    let snap = analyze(&s1_dump(), &wasm).unwrap();
    assert_eq!(snapshot_json(&snap), S2_JSON);
}

#[test]
fn sort_and_top_of_analyze() {
    // Shallow sort keeps TreeNode (64) before ArrayBuffer (32); count sort too (2 > 1);
    // --top 1 keeps one row with all its instances.
    let mut s = analyze(&s1_dump(), &syn_wasm(false)).unwrap();
    s.sort_and_truncate(ConstructorSort::Count, Some(1));
    assert_eq!(s.constructors.len(), 1);
    assert_eq!(s.constructors[0].class_name, "x/TreeNode");
    assert_eq!(s.constructors[0].instances.len(), 2);
    assert_eq!(
        ConstructorSort::parse("bogus").unwrap_err().to_string(),
        "Invalid constructor sort field: bogus. Must be retained, shallow, or count."
    );
    assert_eq!(
        ComparisonSort::parse("size").unwrap_err().to_string(),
        "Invalid comparison sort field: size. Must be delta, alloc, freed, or count."
    );
}

/// Classes for the scanning tests: rtIds 1 ArrayBuffer, 2 String, 3 ArrayBufferView,
/// 5 x/Item, 6 Array<x/Item>, 7 StaticArray<x/Item>, 8 Map<i32,x/Item> (+ MapEntry rtId 0),
/// 9 Function<…> (_env), 10 SmallTuple, 11 x/Base{a}, 12 x/Derived : x/Base {b},
/// 13 Uint8Array : ArrayBufferView, 14 Array<i32>, 15 Set<x/Item> (+ SetEntry rtId 0).
fn kinds_wasm() -> Vec<u8> {
    wasm_with_dwarf(&kinds_spec(), &[])
}

/// Analyzes a heap whose only root is a stack word holding `root`.
fn analyze_rooted(h: HeapBuilder, root: u32) -> Snapshot {
    let mut h = h;
    h.set(1020, root);
    let mem = h.finish();
    let dump = write_dump(1000, 1024, 1020, &[], &mem);
    analyze(&dump, &kinds_wasm()).unwrap()
}

/// (className, count, totalShallow, totalRetained) of every row.
fn rows(s: &Snapshot) -> Vec<(String, u64, u64, u64)> {
    s.constructors
        .iter()
        .map(|r| (r.class_name.clone(), r.count, r.total_shallow_size, r.total_retained_size))
        .collect()
}

fn row(name: &str, count: u64, shallow: u64, retained: u64) -> (String, u64, u64, u64) {
    (name.to_string(), count, shallow, retained)
}

#[test]
fn array_of_references_reaches_buffer_and_elements() {
    let mut h = HeapBuilder::new(65536, 1024);
    let arr = h.alloc(6, 16, 0); // Array<x/Item>: shallow (16 + 35) & ~15 = 48
    let buf = h.alloc(1, 12, 0); // ArrayBuffer of 3 slots: 32
    let items: Vec<u32> = (0..3).map(|_| h.alloc(5, 8, 0)).collect(); // 32 each
    let dead = h.alloc(5, 8, 0); // a fourth Item past length_
    h.set(arr, buf);
    h.set(arr + 4, buf);
    h.set(arr + 8, 12);
    h.set(arr + 12, 2); // length 2: only two elements are scanned
    h.set(buf, items[0]);
    h.set(buf + 4, items[1]);
    h.set(buf + 8, items[2]);
    let _ = dead;
    let s = analyze_rooted(h, arr);
    // Live: array 48 + buffer 32 + items[0..2] 64 = 144; the array dominates all.
    assert_eq!(s.total_live_size, 144);
    assert_eq!(
        rows(&s),
        [
            row("~lib/array/Array<x/Item>", 1, 48, 144),
            row("x/Item", 2, 64, 64),
            row("~lib/arraybuffer/ArrayBuffer", 1, 32, 32),
        ]
    );
}

#[test]
fn array_of_primitives_scans_only_its_buffer() {
    let mut h = HeapBuilder::new(65536, 1024);
    let arr = h.alloc(14, 16, 0);
    let buf = h.alloc(1, 4, 0);
    let item = h.alloc(5, 8, 0);
    h.set(arr, buf);
    h.set(arr + 4, buf);
    h.set(arr + 12, 1);
    h.set(buf, item); // looks like a pointer but Array<i32> elements are not references
    let s = analyze_rooted(h, arr);
    assert_eq!(
        rows(&s),
        [row("~lib/array/Array<i32>", 1, 48, 80), row("~lib/arraybuffer/ArrayBuffer", 1, 32, 32)]
    );
}

#[test]
fn static_array_map_set_function_tuple() {
    let mut h = HeapBuilder::new(65536, 1024);
    // StaticArray<x/Item> of 2 slots → 2 items.
    let sa = h.alloc(7, 8, 0);
    let i1 = h.alloc(5, 8, 0);
    let i2 = h.alloc(5, 8, 0);
    h.set(sa, i1);
    h.set(sa + 4, i2);
    // Map<i32,x/Item>: entries buffer with 3 slots of stride 12, slot 1 deleted.
    let map = h.alloc(8, 24, 0);
    let buckets = h.alloc(1, 16, 0);
    let entries = h.alloc(1, 36, 0);
    let m0 = h.alloc(5, 8, 0);
    let m1 = h.alloc(5, 8, 0);
    let m2 = h.alloc(5, 8, 0);
    h.set(map, buckets);
    h.set(map + 8, entries);
    h.set(map + 16, 3);
    for (slot, (item, tagged)) in [(m0, 0), (m1, 1), (m2, 0)].into_iter().enumerate() {
        let base = entries + 12 * slot as u32;
        h.set(base, 7);
        h.set(base + 4, item);
        h.set(base + 8, tagged);
    }
    // Set<x/Item>: stride 8, one entry.
    let set = h.alloc(15, 24, 0);
    let sentries = h.alloc(1, 8, 0);
    let s0 = h.alloc(5, 8, 0);
    h.set(set + 8, sentries);
    h.set(set + 16, 1);
    h.set(sentries, s0);
    // Function: _env @4 points at an Item.
    let func = h.alloc(9, 8, 0);
    let env = h.alloc(5, 8, 0);
    h.set(func + 4, env);
    // SmallTuple: slots 0 and 1, bitmap bit 1 only → slot 1 is a reference.
    let tup = h.alloc(10, 16, 0);
    let t0 = h.alloc(5, 8, 0);
    let t1 = h.alloc(5, 8, 0);
    h.set(tup, t0);
    h.set(tup + 4, t1);
    h.set(tup + 8, 0b10);
    // A StaticArray<x/Item> of 6 slots holds all the containers, so they are live.
    let holder = h.alloc(7, 20, 0);
    for (i, p) in [sa, map, set, func, tup].into_iter().enumerate() {
        h.set(holder + 4 * i as u32, p);
    }
    let s = analyze_rooted(h, holder);
    let r = rows(&s);
    let get = |n: &str| r.iter().find(|x| x.0 == n).cloned().unwrap_or_else(|| row(n, 0, 0, 0));
    // Items reached: i1, i2, m0, m2, s0, env, t1 = 7 (m1 deleted, t0 not flagged).
    assert_eq!(get("x/Item"), row("x/Item", 7, 224, 224));
    // StaticArrays: sa (8 → 32, retains 96) and holder (20 → 48, retains everything).
    // Map 24 → 48 + buckets (16 → 48) + entries (36 → 64) + 2 items 64 = 224.
    // Set 48 + entries 32 + item 32 = 112; Function 32 + env 32 = 64; tuple (16 → 48) + t1
    // 32 = 80.
    assert_eq!(get("~lib/map/Map<i32,x/Item>"), row("~lib/map/Map<i32,x/Item>", 1, 48, 224));
    assert_eq!(get("~lib/set/Set<x/Item>"), row("~lib/set/Set<x/Item>", 1, 48, 112));
    assert_eq!(get("~lib/function/Function<()=>void>"), row("~lib/function/Function<()=>void>", 1, 32, 64));
    assert_eq!(get("~lib/tuple/SmallTuple"), row("~lib/tuple/SmallTuple", 1, 48, 80));
    let total = 48 + 96 + 224 + 112 + 64 + 80;
    assert_eq!(
        get("~lib/staticarray/StaticArray<x/Item>"),
        row("~lib/staticarray/StaticArray<x/Item>", 2, 80, total + 96)
    );
    assert_eq!(s.total_live_size, total);
}

#[test]
fn inherited_fields_and_typed_arrays() {
    let mut h = HeapBuilder::new(65536, 1024);
    let d = h.alloc(12, 8, 0); // Derived: a @0 (from Base), b @4
    let a = h.alloc(5, 8, 0);
    let b = h.alloc(5, 8, 0);
    let u8a = h.alloc(13, 12, 0); // Uint8Array: buffer @0 inherited from ArrayBufferView
    let buf = h.alloc(1, 64, 0);
    h.set(d, a);
    h.set(d + 4, b);
    h.set(a, u8a); // Item.name is declared String; any object pointer is followed
    h.set(u8a, buf);
    let s = analyze_rooted(h, d);
    // Derived 32 + a 32 + b 32 + Uint8Array 32 + buffer (64 → 96) = 224.
    assert_eq!(s.total_live_size, 224);
    assert_eq!(rows(&s)[0], row("x/Derived", 1, 32, 224));
    let r = rows(&s);
    assert!(r.contains(&row("~lib/typedarray/Uint8Array", 1, 32, 128)));
}

#[test]
fn unknown_rtid_is_class_hash() {
    let mut h = HeapBuilder::new(65536, 1024);
    let x = h.alloc(77, 4, 0);
    let s = analyze_rooted(h, x);
    assert_eq!(rows(&s), [row("Class#77", 1, 32, 32)]);
}

#[test]
fn tie_break_uses_locale_order() {
    // Two classes with one 32-byte instance each: `~lib/…` sorts before `x/…` (ICU), although
    // '~' > 'x' in bytes.
    let mut h = HeapBuilder::new(65536, 1024);
    let item = h.alloc(5, 8, 0);
    let st = h.alloc(2, 4, 0);
    h.set(1016, st);
    h.set(1020, item);
    let d = write_dump(1000, 1024, 1016, &[], &h.finish());
    let s = analyze(&d, &kinds_wasm()).unwrap();
    let names: Vec<String> = rows(&s).into_iter().map(|r| r.0).collect();
    assert_eq!(names, ["~lib/string/String", "x/Item"]);
}

#[test]
fn tie_break_orders_accented_names_as_node() {
    // Five classes with one 32-byte instance each, allocated in reverse of Node's order
    // (`localeCompare`: accents after the base letter, case last; issue 14's example).
    let names = ["x/Zebra", "x/\u{c4}rger", "x/\u{e4}pfel", "x/Apfel", "x/apfel"];
    assert_eq!(
        rows_of_equal_classes(&names),
        ["x/apfel", "x/Apfel", "x/\u{e4}pfel", "x/\u{c4}rger", "x/Zebra"]
    );
}

/// The constructor view's rows of a heap with one 32-byte instance of each class of `names`
/// (allocated in the order given, each held by a static slot), so that only the names order
/// the rows.
fn rows_of_equal_classes(names: &[&str]) -> Vec<String> {
    let classes: Vec<ClassSpec<'_>> = names
        .iter()
        .enumerate()
        .map(|(i, name)| ClassSpec {
            name,
            rtid: Some(20 + i as u32),
            base: None,
            fields: &[],
            templates: &[],
            byte_size: None,
        })
        .collect();
    let spec = DwarfSpec { base_types: &["i32"], classes: &classes, globals: &[] };
    let mut h = HeapBuilder::new(65536, 1024);
    for i in 0..names.len() as u32 {
        let o = h.alloc(20 + i, 4, 0);
        h.set(1000 + 4 * i, o);
    }
    let d = write_dump(900, 1024, 1000, &[], &h.finish());
    let s = analyze(&d, &wasm_with_dwarf(&spec, &[])).unwrap();
    rows(&s).into_iter().map(|r| r.0).collect()
}

#[test]
fn tie_break_beyond_the_compact_tables_is_icus() {
    // Names the compact tables of builds without `icu-collation` place by code point (docs/heap.md,
    // "Sorting ties by class name"); ICU's root order, worked out by hand from the CLDR root
    // collation: symbols (the emoji) before letters, `ǳ` expands to `d z` (before `e`), Latin
    // before Syriac (`ܭ`, Persian bheth, sorts after beth) before Katakana. The compact tables
    // give `x/e x/ǳ x/ア x/ܭ x/😀`.
    let names = ["x/\u{30a2}", "x/\u{72d}", "x/e", "x/\u{1f3}", "x/\u{1f600}"];
    assert_eq!(rows_of_equal_classes(&names), ["x/\u{1f600}", "x/\u{1f3}", "x/e", "x/\u{72d}", "x/\u{30a2}"]);
}

// ---- bad input -------------------------------------------------------------------------

fn err(dump: &[u8], wasm: &[u8]) -> String {
    analyze(dump, wasm).unwrap_err().to_string()
}

#[test]
fn dump_errors_come_before_wasm_errors() {
    assert_eq!(err(&[0; 10], b"junk"), "Dump file too small: expected at least 24 bytes, got 10");
    let mut d = s1_dump();
    d[0] = 0;
    assert_eq!(err(&d, &syn_wasm(false)), "Invalid dump magic: expected 0x44485341, got 0x44485300");
    let mut d = s1_dump();
    d[4] = 1;
    assert_eq!(err(&d, &syn_wasm(false)), "Unsupported dump version: expected 2, got 1");
    let mut d = s1_dump()[..30].to_vec();
    d[20] = 2;
    assert_eq!(
        err(&d, &syn_wasm(false)),
        "Dump file too small for 2 mutable i32 global values: expected at least 32 bytes, got 30"
    );
}

#[test]
fn wasm_errors() {
    let d = s1_dump();
    assert_eq!(err(&d, b"not wasm"), "Failed to parse wasm binary");
    assert_eq!(err(&d, WASM_HEADER), "Missing .debug_abbrev section in wasm binary");
    let mut w = WASM_HEADER.to_vec();
    w.extend(custom_section("debug_abbrev", SYN_ABBREV));
    assert_eq!(err(&d, &w), "Missing .debug_info section in wasm binary");
    // Sections with a leading dot are not WARPO's.
    let mut w = WASM_HEADER.to_vec();
    w.extend(custom_section(".debug_abbrev", SYN_ABBREV));
    w.extend(custom_section(".debug_info", &syn_debug_info(56)));
    assert_eq!(err(&d, &w), "Missing .debug_abbrev section in wasm binary");
    // A truncated module.
    let w = syn_wasm(false);
    assert_eq!(err(&d, &w[..100]), "Failed to parse wasm binary");
}

#[test]
fn dwarf_errors() {
    let d = s1_dump();
    // Abbreviation code 3 is not defined: the DIE at offset 16 (the base type) uses it.
    let mut info = syn_debug_info(56);
    info[16] = 3;
    assert_eq!(err(&d, &syn_wasm_with(false, &info)), "Unknown abbreviation code 3 at offset 16");
    // strp pointing into the middle of "warpo".
    let mut info = syn_debug_info(56);
    info[12] = 2;
    assert_eq!(err(&d, &syn_wasm_with(false, &info)), "String not found at offset 2 in .debug_str");
    // No debug_str at all: strp 0 fails.
    let mut w = WASM_HEADER.to_vec();
    w.extend(custom_section("debug_abbrev", SYN_ABBREV));
    w.extend(custom_section("debug_info", &syn_debug_info(56)));
    assert_eq!(err(&d, &w), "String not found at offset 0 in .debug_str");
    // An unknown form (0x7f) in the abbreviation of code 5.
    let mut abbrev = SYN_ABBREV.to_vec();
    abbrev[31] = 0x7f;
    assert_eq!(abbrev[27..32], [0x05, 0x24, 0x00, 0x03, 0x7f]);
    let mut w = WASM_HEADER.to_vec();
    w.extend(custom_section("debug_abbrev", &abbrev));
    w.extend(custom_section("debug_str", b"warpo\0"));
    w.extend(custom_section("debug_info", &syn_debug_info(56)));
    assert_eq!(err(&d, &w), "Unsupported DW_FORM: 0x7f");
    // A unit longer than the section: one clear line from gimli.
    let mut info = syn_debug_info(56);
    info.truncate(100);
    let e = err(&d, &syn_wasm_with(false, &info));
    assert!(e.starts_with("Invalid DWARF in debug_info: "), "{e}");
    assert!(!e.contains('\n'));
}

#[test]
fn dangling_type_reference_drops_the_field() {
    // `left` typed 0xDEADBEEF (WARPO's dangling marker): the field is dropped, so B is only
    // reachable... not at all: A retains only itself.
    let w = syn_wasm_with(false, &syn_debug_info(0xDEAD_BEEF));
    let s = analyze(&s1_dump(), &w).unwrap();
    // Equal sizes and counts: the className tie-break puts `~lib/…` first.
    assert_eq!(rows(&s), [row("~lib/arraybuffer/ArrayBuffer", 1, 32, 32), row("x/TreeNode", 1, 32, 32)]);
    assert_eq!(s.total_live_size, 64);
}

#[test]
fn lying_dumps_end_with_a_clear_error_or_a_result() {
    let wasm = syn_wasm(false);
    // Heap base beyond memory: no blocks, negative heap size (WARPO does the same).
    let d = write_dump(0, 1 << 20, 0, &[], &[0; 4096]);
    let s = analyze(&d, &wasm).unwrap();
    assert_eq!(s.total_heap_size, 4096 - ((1 << 20) + 1580));
    assert!(s.constructors.is_empty());
    // Heap base near u32::MAX: no overflow.
    let d = write_dump(0, u32::MAX, 0, &[], &[0; 64]);
    assert!(analyze(&d, &wasm).unwrap().constructors.is_empty());
    // A used block whose header crosses the end of memory.
    let mut mem = syn_memory();
    mem.truncate(2604 + 10);
    let d = write_dump(1000, 1024, 1016, &[], &mem);
    assert_eq!(
        err(&d, &wasm),
        "Heap block at address 2604 has an object header past the end of memory (2614 bytes)"
    );
    // Block sizes past the end: the walk stops at the end of memory.
    let mut h = HeapBuilder::new(4096, 1024);
    let a = h.alloc(4, 12, 3);
    h.set(a - 20, 0xffff_fff0);
    let d = write_dump(0, 1024, 1024, &[], &h.memory);
    assert_eq!(analyze(&d, &wasm).unwrap().total_live_size, 0xffff_fff0 + 4);
    // Zero-size block before the tail: the walk stops there (A is after it and unseen).
    let mut mem = syn_memory();
    mem[2604..2608].copy_from_slice(&0u32.to_le_bytes());
    let d = write_dump(1000, 1024, 1016, &[], &mem);
    assert!(analyze(&d, &wasm).unwrap().constructors.is_empty());
    // An all-0xff memory: every block is free-flagged with a huge size; the walk ends.
    let d = write_dump(0, 0, 0, &[], &[0xff; 8192]);
    assert!(analyze(&d, &wasm).unwrap().constructors.is_empty());
}

#[test]
fn array_lengths_that_lie_are_bounded() {
    // Many Array<x/Item> objects each claiming 2^32 − 1 elements over the whole memory: a
    // clear error instead of hours of scanning.
    let mut h = HeapBuilder::new(1 << 20, 1024);
    let mut arrays = Vec::new();
    while h.cursor < (1 << 19) {
        let a = h.alloc(6, 16, 0);
        arrays.push(a);
    }
    for &a in &arrays {
        h.set(a + 4, 0);
        h.set(a + 12, u32::MAX);
    }
    let mem = h.finish();
    let d = write_dump(0, 1024, 1024, &[], &mem);
    let e = analyze(&d, &kinds_wasm()).unwrap_err();
    assert!(matches!(e, HeapError::ScanLimitExceeded { .. }), "{e}");
    // Array header words past the end of memory.
    let mut h = HeapBuilder::new(4096, 1024);
    let a = h.alloc(6, 16, 0);
    let mut mem = h.memory;
    mem.truncate(a as usize + 8);
    let d = write_dump(0, 1024, 1024, &[], &mem);
    assert_eq!(
        analyze(&d, &kinds_wasm()).unwrap_err().to_string(),
        format!("Object at address {a} has a header word at address {} past the end of memory", a + 12)
    );
}

#[test]
fn cyclic_inheritance_does_not_hang() {
    let spec = DwarfSpec {
        base_types: &["i32"],
        classes: &[
            ClassSpec {
                name: "x/A",
                rtid: Some(4),
                base: Some("x/B"),
                fields: &[("a", "x/A", 0)],
                templates: &[],
                byte_size: None,
            },
            ClassSpec {
                name: "x/B",
                rtid: Some(5),
                base: Some("x/A"),
                fields: &[("b", "x/A", 4)],
                templates: &[],
                byte_size: None,
            },
        ],
        globals: &[],
    };
    let a = Analyzer::new(&wasm_with_dwarf(&spec, &[])).map(|a| a.info.layouts.len());
    assert_eq!(a, Ok(2));
}

#[test]
fn dump_reader_borrows_memory() {
    let d = s2_dump();
    let dump = Dump::parse(&d).unwrap();
    assert_eq!((dump.data_end, dump.heap_base, dump.stack_pointer), (1000, 1024, 1016));
    assert_eq!(dump.globals, [2720]);
    assert_eq!(dump.memory.len(), 65536);
}

// ---- dominator tree view -----------------------------------------------------------------

/// An Array<x/Item> holding three Items; Items 0 and 1 share one String, Item 2 has its own.
/// Dominators (by hand): the array dominates its buffer, the three Items and the shared String
/// (two paths lead to it); Item 2 dominates its own String.
fn shared_string_heap() -> (Vec<u8>, [u32; 7]) {
    let mut h = HeapBuilder::new(65536, 1024);
    let arr = h.alloc(6, 16, 0); // shallow 48
    let buf = h.alloc(1, 12, 0); // 32
    let items = [h.alloc(5, 8, 0), h.alloc(5, 8, 0), h.alloc(5, 8, 0)]; // 32 each
    let shared = h.alloc(2, 4, 0); // 32
    let own = h.alloc(2, 4, 0); // 32
    h.set(arr, buf);
    h.set(arr + 4, buf);
    h.set(arr + 8, 12);
    h.set(arr + 12, 3);
    for (k, &i) in items.iter().enumerate() {
        h.set(buf + 4 * k as u32, i);
    }
    h.set(items[0], shared);
    h.set(items[1], shared);
    h.set(items[2], own);
    h.set(1020, arr);
    let dump = write_dump(1000, 1024, 1020, &[], &h.finish());
    (dump, [arr, buf, items[0], items[1], items[2], shared, own])
}

/// A dominator-tree node flattened: `(level, class, count, address, shallow, retained, omitted
/// children)`.
type FlatNode = (usize, String, u64, Option<u64>, u64, u64, u64);

#[test]
fn dominator_view_groups_siblings_by_class() {
    use qip_memory::heap::Dump;
    let (dump, [arr, buf, _, _, _, shared, own]) = shared_string_heap();
    let wasm = kinds_wasm();
    let analyzer = Analyzer::new(&wasm).unwrap();
    let view = analyzer.dominators(&Dump::parse(&dump).unwrap(), 3, 10).unwrap();
    // (class, count, address, shallow, retained, omitted children) per node, depth first.
    fn flat(nodes: &[qip_memory::heap::tree::TreeNode], level: usize, out: &mut Vec<FlatNode>) {
        for n in nodes {
            out.push((
                level,
                n.class_name.clone(),
                n.count,
                n.address,
                n.shallow_size,
                n.retained_size,
                n.omitted_children,
            ));
            flat(&n.children, level + 1, out);
        }
    }
    let mut got = Vec::new();
    flat(&view.roots, 0, &mut got);
    let a = |x: u32| Some(u64::from(x));
    let s = |x: &str| x.to_string();
    assert_eq!(
        got,
        [
            // 48 + buffer 32 + Items 96 + both Strings 64.
            (0, s("~lib/array/Array<x/Item>"), 1, a(arr), 48, 240, 0),
            // The Items retain 32, 32 and 32 + 32 (Item 2's own String).
            (1, s("x/Item"), 3, None, 96, 128, 0),
            (2, s("~lib/string/String"), 1, a(own), 32, 32, 0),
            // Equal sizes: ArrayBuffer before String (localeCompare).
            (1, s("~lib/arraybuffer/ArrayBuffer"), 1, a(buf), 32, 32, 0),
            (1, s("~lib/string/String"), 1, a(shared), 32, 32, 0),
        ]
    );
    assert_eq!((view.total_live_size, view.omitted_roots), (240, 0));

    // One child node per node: the rest are counted; depth 1: the children are counted.
    let view = analyzer.dominators(&Dump::parse(&dump).unwrap(), 2, 1).unwrap();
    let mut got = Vec::new();
    flat(&view.roots, 0, &mut got);
    assert_eq!(
        got.iter().map(|g| (g.0, g.1.as_str(), g.6)).collect::<Vec<_>>(),
        [(0, "~lib/array/Array<x/Item>", 2), (1, "x/Item", 1),]
    );
    let view = analyzer.dominators(&Dump::parse(&dump).unwrap(), 1, 10).unwrap();
    assert_eq!((view.roots.len(), view.roots[0].children.len(), view.roots[0].omitted_children), (1, 0, 3));
}

// ---- retainers view ----------------------------------------------------------------------

#[test]
fn retainers_name_every_edge_and_the_nearest_roots() {
    use qip_memory::heap::retainers::{EdgeLabel, ObjectInfo, PathStep, Retainer, RootLabel, Target};
    let (dump, wasm, [holder, map, _, _, a, b, string, func, garbage]) = retained_heap();
    let analyzer = Analyzer::new(&wasm).unwrap();
    let dump = Dump::parse(&dump).unwrap();
    // By hand: roots are the map (global), B and the holder (stack); the map dominates its two
    // buffers and A (48 + 48 + 48 + 32 = 176), the holder the Function (64); the String is
    // reached through A and B, so the virtual root dominates it and B retains only itself.
    let obj = |addr: u32, class: &str, shallow: u64, retained: u64, distance: Option<u64>| ObjectInfo {
        address: u64::from(addr),
        class_name: class.to_string(),
        shallow_size: shallow,
        retained_size: retained,
        distance,
    };
    let item = |addr: u32, d: u64| obj(addr, "x/Item", 32, 32, Some(d));
    let map_info = obj(map, "~lib/map/Map<i32,x/Item>", 48, 176, Some(1));
    let holder_info = obj(holder, "~lib/staticarray/StaticArray<x/Item>", 32, 64, Some(1));
    let stack = |address: u64| RootLabel::Stack { address };
    let cache = RootLabel::Global { name: "x/cache".into(), global_index: 0 };
    let step = |edge: Option<EdgeLabel>, object: ObjectInfo| PathStep { edge, object, repeat: 1 };

    let v = analyzer.retainers(&dump, &Target::Address(u64::from(b)), 3).unwrap();
    assert_eq!(v.object, item(b, 1));
    assert_eq!(
        v.retainers,
        [
            Retainer::Root(stack(1016)),
            Retainer::Object { edge: EdgeLabel::Element(0), object: holder_info.clone() },
            Retainer::Object { edge: EdgeLabel::MapValue(1), object: map_info.clone() },
            Retainer::Object {
                edge: EdgeLabel::Closure,
                object: obj(func, "~lib/function/Function<()=>void>", 32, 32, Some(2)),
            },
        ],
        "the garbage Derived object is no retainer"
    );
    let paths: Vec<(RootLabel, Vec<PathStep>)> =
        v.paths.iter().map(|p| (p.root.clone(), p.steps.clone())).collect();
    assert_eq!(
        paths,
        [
            (stack(1016), vec![step(None, item(b, 1))]),
            (
                cache.clone(),
                vec![step(None, map_info.clone()), step(Some(EdgeLabel::MapValue(1)), item(b, 1))]
            ),
            (
                stack(1020),
                vec![step(None, holder_info.clone()), step(Some(EdgeLabel::Element(0)), item(b, 1))]
            ),
        ]
    );
    assert_eq!(v.omitted_paths, 0);
    assert_eq!(analyzer.retainers(&dump, &Target::Address(u64::from(b)), 2).unwrap().omitted_paths, 1);

    // The only String, by class: two paths of length 3 tie, in root order; the map's first
    // entry (A) comes before its second.
    let v = analyzer.retainers(&dump, &Target::Class("~lib/string/String".into()), 3).unwrap();
    let s_info = obj(string, "~lib/string/String", 32, 32, Some(2));
    assert_eq!(v.object, s_info);
    let name = || Some(EdgeLabel::Field("name".into()));
    assert_eq!(
        v.retainers,
        [
            Retainer::Object { edge: EdgeLabel::Field("name".into()), object: item(b, 1) },
            Retainer::Object { edge: EdgeLabel::Field("name".into()), object: item(a, 2) },
        ]
    );
    let paths: Vec<(RootLabel, Vec<PathStep>)> =
        v.paths.iter().map(|p| (p.root.clone(), p.steps.clone())).collect();
    assert_eq!(
        paths,
        [
            (stack(1016), vec![step(None, item(b, 1)), step(name(), s_info.clone())]),
            (
                cache,
                vec![
                    step(None, map_info),
                    step(Some(EdgeLabel::MapValue(0)), item(a, 2)),
                    step(name(), s_info.clone())
                ]
            ),
            (
                stack(1020),
                vec![
                    step(None, holder_info),
                    step(Some(EdgeLabel::Element(0)), item(b, 1)),
                    step(name(), s_info)
                ]
            ),
        ]
    );

    // Garbage: no distance, no retainers, no paths.
    let v = analyzer.retainers(&dump, &Target::Address(u64::from(garbage)), 3).unwrap();
    assert_eq!(v.object, obj(garbage, "x/Derived", 32, 0, None));
    assert!(v.retainers.is_empty() && v.paths.is_empty() && v.omitted_paths == 0);

    // Errors name what was asked for.
    let e = analyzer.retainers(&dump, &Target::Address(u64::from(b) + 4), 3).unwrap_err();
    assert_eq!(e, HeapError::NoObjectAt { address: u64::from(b) + 4 });
    let e = analyzer.retainers(&dump, &Target::Class("x/Derived".into()), 3).unwrap_err();
    assert_eq!(e.to_string(), "No live object of class x/Derived in the dump");
}

#[test]
fn retainers_json_and_table() {
    use qip_memory::heap::retainers::Target;
    let (dump, wasm, [holder, map, _, _, _, b, _, func, _]) = retained_heap();
    let analyzer = Analyzer::new(&wasm).unwrap();
    let v = analyzer.retainers(&Dump::parse(&dump).unwrap(), &Target::Address(u64::from(b)), 1).unwrap();
    let item = format!(
        r#"{{
    "address": {b},
    "className": "x/Item",
    "distance": 1,
    "retainedSize": 32,
    "shallowSize": 32
  }}"#
    );
    let json = v.to_json();
    let expected = format!(
        r#"{{
  "object": {item},
  "omittedPaths": 2,
  "paths": [
    {{
      "root": {{
        "address": 1016,
        "kind": "stack"
      }},
      "steps": [
        {{
          "edge": null,
          "object": {{
            "address": {b},
            "className": "x/Item",
            "distance": 1,
            "retainedSize": 32,
            "shallowSize": 32
          }},
          "repeat": 1
        }}
      ]
    }}
  ],
  "retainers": [
    {{
      "root": {{
        "address": 1016,
        "kind": "stack"
      }}
    }},
    {{
      "edge": {{
        "index": 0,
        "kind": "element"
      }},
      "object": {{
        "address": {holder},
        "className": "~lib/staticarray/StaticArray<x/Item>",
        "distance": 1,
        "retainedSize": 64,
        "shallowSize": 32
      }}
    }},
    {{
      "edge": {{
        "entry": 1,
        "kind": "map-value"
      }},
      "object": {{
        "address": {map},
        "className": "~lib/map/Map<i32,x/Item>",
        "distance": 1,
        "retainedSize": 176,
        "shallowSize": 48
      }}
    }},
    {{
      "edge": {{
        "kind": "closure"
      }},
      "object": {{
        "address": {func},
        "className": "~lib/function/Function<()=>void>",
        "distance": 2,
        "retainedSize": 32,
        "shallowSize": 32
      }}
    }}
  ]
}}"#
    );
    assert_eq!(json, expected);
    let table = v.to_table();
    let expected = format!(
        "object x/Item @ {b}
shallow 32 B, retained 32 B, distance 1

retainers: 4
distance  retained  shallow  edge      held by
       0                     root      stack word @ 1016
       1      64 B     32 B  [0]       ~lib/staticarray/StaticArray<x/Item> @ {holder}
       1     176 B     48 B  value #1  ~lib/map/Map<i32,x/Item> @ {map}
       2      32 B     32 B  closure   ~lib/function/Function<()=>void> @ {func}

paths from roots: 1 of 3
1. stack word @ 1016
   x/Item @ {b}
"
    );
    assert_eq!(table, expected);
}

#[test]
fn long_runs_of_like_steps_fold() {
    use qip_memory::heap::retainers::{EdgeLabel, Target};
    // Stack word 1020 → Item 0 → Item 1 → … → Item 6, each through the field `name`.
    let mut h = HeapBuilder::new(65536, 1024);
    let items: Vec<u32> = (0..7).map(|_| h.alloc(5, 8, 0)).collect();
    for w in items.windows(2) {
        h.set(w[0], w[1]);
    }
    h.set(1020, items[0]);
    let dump = write_dump(1000, 1024, 1020, &[], &h.finish());
    let wasm = kinds_wasm();
    let analyzer = Analyzer::new(&wasm).unwrap();
    let dump = Dump::parse(&dump).unwrap();
    let path = |target: u32| {
        let v = analyzer.retainers(&dump, &Target::Address(u64::from(target)), 1).unwrap();
        v.paths[0]
            .steps
            .iter()
            .map(|s| (s.edge.clone(), s.object.address as u32, s.object.distance, s.repeat))
            .collect::<Vec<_>>()
    };
    let name = || Some(EdgeLabel::Field("name".into()));
    // Four like steps are shown one by one.
    assert_eq!(
        path(items[4]),
        [
            (None, items[0], Some(1), 1),
            (name(), items[1], Some(2), 1),
            (name(), items[2], Some(3), 1),
            (name(), items[3], Some(4), 1),
            (name(), items[4], Some(5), 1),
        ]
    );
    // Six are folded: the first, then one step for the other five ending at the target.
    assert_eq!(
        path(items[6]),
        [(None, items[0], Some(1), 1), (name(), items[1], Some(2), 1), (name(), items[6], Some(7), 5)]
    );
    let v = analyzer.retainers(&dump, &Target::Address(u64::from(items[6])), 1).unwrap();
    assert!(v.to_table().ends_with(&format!("   .name ×5 → x/Item @ {}\n", items[6])), "{}", v.to_table());
}
