//! `qip-memory heap snapshot` read back by Chrome DevTools' own heap snapshot model
//! (npm `heap-snapshot-toolkit`, which re-exports the DevTools frontend's HeapSnapshot code;
//! pinned in tests/heapsnapshot, `make heapsnapshot-deps`), run under Node by
//! tests/heapsnapshot/check.mjs.
//!
//! DevTools computes distances, dominators and retained sizes itself from the file's nodes
//! and edges. On the AssemblyScript fixtures (`make as-fixtures`) and a synthetic heap every
//! node must carry our class, shallow size, retained size and distance, the root must
//! retain the live size, the edges into each object must be its retainers, and DevTools'
//! Comparison view of two snapshots must equal our `diff`.

#[path = "common/heap.rs"]
mod fixtures;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use qip_memory::heap::retainers::{EdgeLabel, Retainer, RootLabel, Target};
use qip_memory::heap::{Analyzer, Dump, analyze, diff};
use serde_json::Value;

fn as_fixture(name: &str) -> Vec<u8> {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/assemblyscript/build").join(name);
    std::fs::read(&p).unwrap_or_else(|e| panic!("{}: {e} (run `make as-fixtures`)", p.display()))
}

/// Our snapshot of `dump`, written to a file of this test's directory.
fn snapshot_file(name: &str, dump: &[u8], wasm: &[u8]) -> PathBuf {
    let mut text = String::new();
    Analyzer::new(wasm).unwrap().heapsnapshot(&Dump::parse(dump).unwrap(), &mut text).unwrap();
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("heap-devtools");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(format!("{name}.heapsnapshot"));
    std::fs::write(&path, text).unwrap();
    path
}

/// What DevTools makes of the snapshot files (one, or two for a comparison).
fn devtools(files: &[&Path]) -> Value {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/heapsnapshot");
    assert!(
        dir.join("node_modules/heap-snapshot-toolkit").exists(),
        "tests/heapsnapshot/node_modules is missing: run `make heapsnapshot-deps` (needs npm)"
    );
    let out = Command::new("node").arg(dir.join("check.mjs")).args(files).output().expect("node runs");
    assert!(out.status.success(), "check.mjs: {}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

/// DevTools' (type, name) of an edge with our label, as docs/heap.md gives the mapping.
fn devtools_edge(label: &EdgeLabel) -> (String, String) {
    match label {
        EdgeLabel::Field(n) => ("property".into(), n.clone()),
        EdgeLabel::Element(i) | EdgeLabel::TupleSlot(i) => ("element".into(), i.to_string()),
        EdgeLabel::Closure => ("internal".into(), "context".into()),
        other => ("internal".into(), other.to_string()),
    }
}

/// Checks every node DevTools read against our analysis of the same dump.
fn check_one(name: &str, dump: &[u8], wasm: &[u8]) -> Value {
    let file = snapshot_file(name, dump, wasm);
    let dt = devtools(&[&file]);
    check_nodes(name, &dt, dump, wasm);
    dt
}

fn check_nodes(name: &str, dt: &Value, dump: &[u8], wasm: &[u8]) {
    let ours = analyze(dump, wasm).unwrap();
    // Our live objects by address: (class, shallow, retained).
    let mut objects = BTreeMap::new();
    for r in &ours.constructors {
        for i in &r.instances {
            objects.insert(i.address, (r.class_name.clone(), i.shallow_size, i.retained_size));
        }
    }
    let nodes = dt["nodes"].as_array().unwrap();
    assert_eq!(nodes.len(), objects.len() + 1, "{name}: one node per live object and the root");
    let root = &nodes[0];
    assert_eq!((root["id"].as_u64(), root["type"].as_str()), (Some(1), Some("synthetic")), "{name}");
    assert_eq!(
        root["retainedSize"].as_u64(),
        Some(ours.total_live_size),
        "{name}: the root retains the live size"
    );

    let analyzer = Analyzer::new(wasm).unwrap();
    let parsed = Dump::parse(dump).unwrap();
    // Edges into each node, as DevTools lists them: (from id, type, name).
    let mut into: BTreeMap<u64, Vec<(u64, String, String)>> = BTreeMap::new();
    for n in nodes {
        for e in n["edges"].as_array().unwrap() {
            into.entry(e["to"].as_u64().unwrap()).or_default().push((
                n["id"].as_u64().unwrap(),
                e["type"].as_str().unwrap().to_string(),
                e["name"].as_str().unwrap().to_string(),
            ));
        }
    }
    for n in &nodes[1..] {
        let id = n["id"].as_u64().unwrap();
        let address = id - 1;
        let (class, shallow, retained) = objects.get(&address).unwrap_or_else(|| panic!("{name}: node {id}"));
        let is_string = class == "~lib/string/String";
        assert_eq!(n["type"].as_str(), Some(if is_string { "string" } else { "object" }), "{name} {address}");
        if !is_string {
            assert_eq!(n["className"].as_str(), Some(class.as_str()), "{name} {address}");
        }
        assert_eq!(n["selfSize"].as_u64(), Some(*shallow), "{name} {address} {class}: shallow");
        assert_eq!(n["retainedSize"].as_u64(), Some(*retained), "{name} {address} {class}: retained");
        let view = analyzer.retainers(&parsed, &Target::Address(address), 0).unwrap();
        assert_eq!(n["distance"].as_u64(), view.object.distance, "{name} {address} {class}: distance");
        let mut expected: Vec<(u64, String, String)> = view
            .retainers
            .iter()
            .map(|r| match r {
                Retainer::Root(RootLabel::Global { name, .. }) => (1, "property".into(), name.clone()),
                Retainer::Root(root) => (1, "property".into(), root.to_string()),
                Retainer::Object { edge, object } => {
                    let (t, n) = devtools_edge(edge);
                    (object.address + 1, t, n)
                }
            })
            .collect();
        let mut got = into.remove(&id).unwrap_or_default();
        expected.sort();
        got.sort();
        assert_eq!(got, expected, "{name} {address} {class}: the edges into it are its retainers");
    }
}

#[test]
fn devtools_reads_the_fixture_snapshots_as_we_analyse_them() {
    let wasm = as_fixture("dwarf_fixture.wasm");
    let dt = check_one("dwarf_fixture", &as_fixture("dwarf_fixture.1.dump"), &wasm);
    // DevTools' Summary aggregates: the hand-derived counts and sizes of the program's
    // classes (tests/heap_assemblyscript.rs derives the same from the source).
    let agg: BTreeMap<String, (u64, u64)> = dt["aggregates"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| {
            (
                a["name"].as_str().unwrap().to_string(),
                (a["count"].as_u64().unwrap(), a["self"].as_u64().unwrap()),
            )
        })
        .collect();
    // 31 TreeNodes of 12-byte payloads (32 bytes each); 5 ListNodes; the one String (a 48-byte
    // block) under DevTools' "(string)".
    assert_eq!(agg["dwarf_fixture/TreeNode"], (31, 31 * 32));
    assert_eq!(agg["dwarf_fixture/ListNode"], (5, 5 * 32));
    assert_eq!(agg["(string)"], (1, 48));
}

#[test]
fn devtools_comparison_equals_our_diff() {
    let wasm = as_fixture("alloc_free.wasm");
    let (before, after) = (as_fixture("alloc_free.1.dump"), as_fixture("alloc_free.2.dump"));
    let a = snapshot_file("alloc_free.1", &before, &wasm);
    let b = snapshot_file("alloc_free.2", &after, &wasm);
    check_one("alloc_free.1", &before, &wasm);
    let dt = devtools(&[&a, &b]);
    check_nodes("alloc_free.2", &dt, &after, &wasm);
    let ours = diff(&before, &after, &wasm).unwrap();
    let mut expected: Vec<(String, u64, u64, u64, u64)> = ours
        .constructors
        .iter()
        .map(|r| (r.class_name.clone(), r.new_count, r.deleted_count, r.allocated_size, r.freed_size))
        .collect();
    let mut got: Vec<(String, u64, u64, u64, u64)> = dt["diff"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            let n = |k: &str| r[k].as_u64().unwrap();
            (
                r["name"].as_str().unwrap().to_string(),
                n("addedCount"),
                n("removedCount"),
                n("addedSize"),
                n("removedSize"),
            )
        })
        .collect();
    expected.sort();
    got.sort();
    assert_eq!(got, expected);
    assert!(!got.is_empty());
}

#[test]
fn devtools_reads_the_synthetic_heaps() {
    // S1 and S2 (a global, a stack word, a pinned object, garbage), and the retainers test's
    // heap: a Map's values, StaticArray elements, a Function's closure, a field, garbage
    // pointing into live data.
    use fixtures::*;
    check_one("s1", &s1_dump(), &syn_wasm(false));
    check_one("s2", &s2_dump(), &syn_wasm(true));
    let (dump, wasm, _) = retained_heap();
    let dt = check_one("retained", &dump, &wasm);
    let types: std::collections::BTreeSet<(String, String)> = dt["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|n| n["edges"].as_array().unwrap())
        .map(|e| (e["type"].as_str().unwrap().to_string(), e["name"].as_str().unwrap().to_string()))
        .collect();
    for edge in [
        ("internal", "value #1"),
        ("internal", "context"),
        ("element", "0"),
        ("property", "name"),
        ("property", "x/cache"),
    ] {
        assert!(types.contains(&(edge.0.to_string(), edge.1.to_string())), "{edge:?} in {types:?}");
    }
}
