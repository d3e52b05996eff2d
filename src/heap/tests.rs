//! Unit tests of the analysis stages with the expectations of WARPO's own unit tests (docs/heap.md,
//! "Test heaps") (`dominator.test.ts`, `retainedSize.test.ts`, `comparison.test.ts`,
//! `roots.test.ts`), re-derived by hand.

use alloc::string::{String, ToString};
use alloc::vec;
use alloc::vec::Vec;

use super::dominators::{UNREACHABLE, VIRTUAL_ROOT, dominators, retained_sizes};
use super::graph::Graph;
use super::mark::{mark, unique_roots};
use super::roots::{GlobalRoot, Root, RootKind, roots};
use super::tlsf::{Object, PtrIndex};
use super::views::{
    ChangeKind, ChangedInstance, Comparison, ComparisonRow, ComparisonSort, ConstructorRow, Instance,
    Snapshot, compare,
};
use super::{HeapError, parse_top};

/// A graph over nodes `0..n` from an edge list.
fn graph(n: usize, edges: &[(u32, u32)]) -> Graph {
    let mut lists = vec![Vec::new(); n];
    for &(a, b) in edges {
        lists[a as usize].push(b);
    }
    Graph::from_lists(&lists)
}

/// Immediate dominators of the nodes `expect` lists (`VIRTUAL_ROOT` written as `VR`).
fn check(n: usize, edges: &[(u32, u32)], roots: &[u32], expect: &[(u32, u32)]) {
    let t = dominators(&graph(n, edges), roots);
    for &(node, idom) in expect {
        assert_eq!(t.idom[node as usize], idom, "idom of {node}");
    }
    // Every other node is unreachable.
    let listed: Vec<u32> = expect.iter().map(|e| e.0).collect();
    for i in 0..n as u32 {
        if !listed.contains(&i) {
            assert_eq!(t.idom[i as usize], UNREACHABLE, "node {i} should be unreachable");
        }
    }
}

const VR: u32 = VIRTUAL_ROOT;

#[test]
fn dominators_small_graphs() {
    // Empty graph: nothing.
    let t = dominators(&graph(0, &[]), &[]);
    assert!(t.idom.is_empty() && t.preorder.is_empty());
    // Single root 10.
    check(11, &[], &[10], &[(10, VR)]);
    // Chain 10→20→30.
    check(31, &[(10, 20), (20, 30)], &[10], &[(10, VR), (20, 10), (30, 20)]);
    // Roots {1, 2}, 1→10, 2→20.
    check(21, &[(1, 10), (2, 20)], &[1, 2], &[(1, VR), (2, VR), (10, 1), (20, 2)]);
    // Diamond 10→{20,30}→40.
    check(41, &[(10, 20), (10, 30), (20, 40), (30, 40)], &[10], &[(10, VR), (20, 10), (30, 10), (40, 10)]);
    // Cycle 10→20→30→20.
    check(31, &[(10, 20), (20, 30), (30, 20)], &[10], &[(10, VR), (20, 10), (30, 20)]);
    // Node 30 exists but is unreachable.
    check(31, &[(10, 20), (30, 20)], &[10], &[(10, VR), (20, 10)]);
    // A root also reachable from another root keeps VR as idom (two disjoint paths).
    check(3, &[(0, 1), (1, 2)], &[0, 2], &[(0, VR), (1, 0), (2, VR)]);
}

#[test]
fn dominators_lengauer_tarjan_paper_graph() {
    let e = [
        (1, 2),
        (1, 3),
        (1, 4),
        (2, 5),
        (3, 6),
        (4, 6),
        (4, 7),
        (5, 8),
        (6, 9),
        (7, 9),
        (8, 10),
        (9, 10),
        (10, 11),
        (11, 12),
        (12, 1),
    ];
    check(
        13,
        &e,
        &[1],
        &[
            (1, VR),
            (2, 1),
            (3, 1),
            (4, 1),
            (6, 1),
            (9, 1),
            (10, 1),
            (5, 2),
            (7, 4),
            (8, 5),
            (11, 10),
            (12, 11),
        ],
    );
}

#[test]
fn dominators_semi_differs_from_idom() {
    let e = [(1, 2), (2, 3), (2, 4), (3, 5), (4, 6), (4, 8), (5, 7), (6, 5), (7, 8)];
    check(9, &e, &[1], &[(1, VR), (2, 1), (3, 2), (4, 2), (5, 2), (8, 2), (6, 4), (7, 5)]);
}

#[test]
fn dominators_branching_loop_paper_transitive() {
    // Branching.
    let e = [(0, 1), (0, 2), (1, 3), (1, 4), (2, 5), (3, 6), (4, 7), (5, 7), (6, 8), (7, 8)];
    check(9, &e, &[0], &[(0, VR), (1, 0), (2, 0), (3, 1), (4, 1), (5, 2), (6, 3), (7, 0), (8, 0)]);
    // Loop case.
    let e = [(0, 1), (1, 2), (1, 3), (2, 4), (3, 5), (4, 7), (5, 6), (5, 7), (6, 3), (7, 8)];
    check(9, &e, &[0], &[(0, VR), (1, 0), (2, 1), (3, 1), (4, 2), (5, 3), (6, 5), (7, 1), (8, 7)]);
    // rustc's "paper" graph from 6.
    let e = [(6, 5), (6, 4), (5, 1), (4, 2), (4, 3), (1, 2), (2, 3), (2, 1), (3, 2)];
    check(7, &e, &[6], &[(6, VR), (1, 6), (2, 6), (3, 6), (4, 6), (5, 6)]);
    // Transitive case.
    let e = [(0, 1), (0, 7), (1, 2), (1, 5), (2, 3), (3, 4), (5, 6), (5, 3), (7, 2)];
    check(8, &e, &[0], &[(0, VR), (1, 0), (7, 0), (2, 0), (3, 0), (4, 3), (5, 1), (6, 5)]);
}

#[test]
fn dominators_of_a_long_list_are_linear() {
    // 1,000,000 nodes in a chain: each node's idom is its predecessor; no recursion.
    let n = 1_000_000u32;
    let lists: Vec<Vec<u32>> = (0..n).map(|i| if i + 1 < n { vec![i + 1] } else { vec![] }).collect();
    let t = dominators(&Graph::from_lists(&lists), &[0]);
    assert_eq!(t.idom[0], VR);
    assert!((1..n).all(|i| t.idom[i as usize] == i - 1));
    let r = retained_sizes(&t, &vec![8; n as usize]);
    // Node 0 retains all million 8-byte nodes.
    assert_eq!(r[0], 8_000_000);
    assert_eq!(r[n as usize - 1], 8);
}

#[test]
fn retained_sizes_chain_and_diamond() {
    // Chain 10→20→30, block sizes 16/24/32 → shallow 20/28/36.
    let mut shallow = vec![0u64; 31];
    shallow[10] = 20;
    shallow[20] = 28;
    shallow[30] = 36;
    let t = dominators(&graph(31, &[(10, 20), (20, 30)]), &[10]);
    let r = retained_sizes(&t, &shallow);
    assert_eq!((r[30], r[20], r[10]), (36, 28 + 36, 20 + 28 + 36));
    // Diamond with four 16-byte blocks (shallow 20): leaves 20 each, root 80.
    let mut shallow = vec![0u64; 41];
    for i in [10, 20, 30, 40] {
        shallow[i] = 20;
    }
    let t = dominators(&graph(41, &[(10, 20), (10, 30), (20, 40), (30, 40)]), &[10]);
    let r = retained_sizes(&t, &shallow);
    assert_eq!((r[20], r[30], r[40], r[10]), (20, 20, 20, 80));
}

fn object(payload: u64, color: u8) -> Object {
    Object { payload, mm_info: 12, rtid: 0, rt_size: 0, color }
}

#[test]
fn roots_unit_cases() {
    // Unit 1: memory of 64 bytes, objects at 16 (color 0) and 32 (color 3), the word at 0 is
    // 16, stackPointer 0, heapBase 4 → local {16, 0}, pinned {32, 0}.
    let mut memory = vec![0u8; 64];
    memory[0] = 16;
    let objects = [object(16, 0), object(32, 3)];
    let index = PtrIndex::new(&objects);
    let r = roots(&memory, 4, 0, &objects, &index, &[]);
    assert_eq!(
        r,
        vec![
            Root { object: 0, object_ptr: 16, kind: RootKind::Local, source_address: 0 },
            Root { object: 1, object_ptr: 32, kind: RootKind::Pinned, source_address: 0 },
        ]
    );
    // Unit 2: objects 16 and 32 (color 0), no stack, globals 2 → 32, 3 → 0, 4 → 48:
    // only {32, global, 2}.
    let objects = [object(16, 0), object(32, 0)];
    let index = PtrIndex::new(&objects);
    let g = |i: u64, v: u32| GlobalRoot {
        name: String::new(),
        class_name: String::new(),
        global_index: i,
        value: v,
    };
    let r = roots(&memory, 0, 0, &objects, &index, &[g(2, 32), g(3, 0), g(4, 48)]);
    assert_eq!(r, vec![Root { object: 1, object_ptr: 32, kind: RootKind::Global, source_address: 2 }]);
}

#[test]
fn stack_scan_stops_at_end_of_memory() {
    // heapBase far beyond an 8-byte memory: words at 0 and 4 only.
    let mut memory = vec![0u8; 8];
    memory[4] = 16;
    let objects = [object(16, 0)];
    let index = PtrIndex::new(&objects);
    let r = roots(&memory, u32::MAX, 0, &objects, &index, &[]);
    assert_eq!(r, vec![Root { object: 0, object_ptr: 16, kind: RootKind::Local, source_address: 4 }]);
}

#[test]
fn marking_follows_edges_from_unique_roots() {
    let g = graph(5, &[(0, 1), (1, 0), (3, 4)]);
    let r = unique_roots([1, 1, 0], 5);
    assert_eq!(r, vec![1, 0]);
    assert_eq!(mark(&g, &r), vec![true, true, false, false, false]);
}

#[test]
fn pointer_index_dense_and_sparse() {
    let objs = [object(32, 0), object(64, 0)];
    let i = PtrIndex::new(&objs);
    assert_eq!(
        (i.get(32), i.get(64), i.get(48), i.get(33), i.get(0), i.get(u32::MAX)),
        (Some(0), Some(1), None, None, None, None)
    );
    // A payload that is not 16-aligned switches to binary search.
    let objs = [object(36, 0), object(40, 0)];
    let i = PtrIndex::new(&objs);
    assert_eq!((i.get(36), i.get(40), i.get(32)), (Some(0), Some(1), None));
}

/// One class of a hand-made snapshot: its name and its instances' `(address, shallow, retained)`.
type Row<'a> = (&'a str, &'a [(u64, u64, u64)]);

fn snap(heap: i64, rows: &[Row<'_>]) -> Snapshot {
    let constructors: Vec<ConstructorRow> = rows
        .iter()
        .map(|(name, inst)| ConstructorRow {
            class_name: name.to_string(),
            count: inst.len() as u64,
            total_shallow_size: inst.iter().map(|i| i.1).sum(),
            total_retained_size: inst.iter().map(|i| i.2).sum(),
            instances: inst
                .iter()
                .map(|&(a, s, r)| Instance { address: a, shallow_size: s, retained_size: r })
                .collect(),
        })
        .collect();
    let live = constructors.iter().map(|r| r.total_shallow_size).sum();
    Snapshot { total_heap_size: heap, total_live_size: live, constructors }
}

fn changed(address: u64, s: u64, r: u64, k: ChangeKind) -> ChangedInstance {
    ChangedInstance { address, shallow_size: s, retained_size: r, change_kind: k }
}

#[test]
fn comparison_example() {
    let before = snap(1024, &[("Foo", &[(100, 32, 64), (101, 16, 16)]), ("Bar", &[(200, 24, 24)])]);
    let after = snap(1152, &[("Foo", &[(101, 16, 16), (102, 48, 80)]), ("Baz", &[(300, 40, 40)])]);
    let c = compare(&before, &after);
    let expect = Comparison {
        before_total_heap_size: 1024,
        after_total_heap_size: 1152,
        total_heap_size_delta: 128,
        before_total_live_size: 72,
        after_total_live_size: 104,
        total_live_size_delta: 32,
        constructors: vec![
            ComparisonRow {
                class_name: "Baz".into(),
                new_count: 1,
                deleted_count: 0,
                count_delta: 1,
                allocated_size: 40,
                freed_size: 0,
                size_delta: 40,
                instances: vec![changed(300, 40, 40, ChangeKind::New)],
            },
            ComparisonRow {
                class_name: "Foo".into(),
                new_count: 1,
                deleted_count: 1,
                count_delta: 0,
                allocated_size: 48,
                freed_size: 32,
                size_delta: 16,
                instances: vec![
                    changed(102, 48, 80, ChangeKind::New),
                    changed(100, 32, 64, ChangeKind::Delete),
                ],
            },
            ComparisonRow {
                class_name: "Bar".into(),
                new_count: 0,
                deleted_count: 1,
                count_delta: -1,
                allocated_size: 0,
                freed_size: 24,
                size_delta: -24,
                instances: vec![changed(200, 24, 24, ChangeKind::Delete)],
            },
        ],
    };
    assert_eq!(c, expect);
    // --sort freed: freedSize desc (Foo 32, Bar 24, Baz 0).
    let mut f = c.clone();
    f.sort_and_truncate(ComparisonSort::Freed, Some(2));
    let names: Vec<&str> = f.constructors.iter().map(|r| r.class_name.as_str()).collect();
    assert_eq!(names, ["Foo", "Bar"]);
    // --sort count: countDelta desc (Baz 1, Foo 0, Bar −1).
    let mut k = c.clone();
    k.sort_and_truncate(ComparisonSort::Count, None);
    let names: Vec<&str> = k.constructors.iter().map(|r| r.class_name.as_str()).collect();
    assert_eq!(names, ["Baz", "Foo", "Bar"]);
}

#[test]
fn comparison_identical_and_resized() {
    let s = snap(1024, &[("Foo", &[(100, 32, 64)])]);
    let c = compare(&s, &s);
    assert_eq!((c.total_heap_size_delta, c.total_live_size_delta), (0, 0));
    assert!(c.constructors.is_empty());
    // Same class and address with other sizes: unchanged, no row.
    let t = snap(1024, &[("Foo", &[(100, 48, 96)])]);
    assert!(compare(&s, &t).constructors.is_empty());
    // An address that changed class: delete under the old, new under the new.
    let u = snap(1024, &[("Bar", &[(100, 32, 64)])]);
    let c = compare(&s, &u);
    assert_eq!(c.constructors.len(), 2);
    // Both rows have |sizeDelta| 32: Bar (+32) first, then Foo (−32).
    assert_eq!(c.constructors[0].class_name, "Bar");
    assert_eq!(c.constructors[1].instances, vec![changed(100, 32, 64, ChangeKind::Delete)]);
}

#[test]
fn top_parses_like_javascript_parse_int() {
    assert_eq!(parse_top("5"), Ok(5));
    assert_eq!(parse_top("5x"), Ok(5));
    assert_eq!(parse_top("1e3"), Ok(1));
    assert_eq!(parse_top("  +7"), Ok(7));
    assert_eq!(parse_top("99999999999999999999999"), Ok(usize::MAX));
    for bad in ["0", "0x10", "-3", "", "x", "+", " -0"] {
        assert_eq!(parse_top(bad), Err(HeapError::InvalidTop), "{bad:?}");
    }
    assert_eq!(HeapError::InvalidTop.to_string(), "--top must be a positive integer");
}
