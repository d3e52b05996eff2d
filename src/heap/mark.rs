//! Marking (docs/heap.md, "Liveness and sizes"): the reference graph and the roots in, the live set
//! out.

use alloc::vec;
use alloc::vec::Vec;

use super::graph::Graph;
use super::tlsf::ObjectIndex;

/// The root objects without duplicates, in first-occurrence order.
pub fn unique_roots(roots: impl IntoIterator<Item = ObjectIndex>, node_count: usize) -> Vec<ObjectIndex> {
    let mut seen = vec![false; node_count];
    roots
        .into_iter()
        .filter(|&r| {
            let s = &mut seen[r as usize];
            !core::mem::replace(s, true)
        })
        .collect()
}

/// Marks every node reachable from `roots` with a FIFO worklist; `live[i]` tells whether
/// node `i` is live.
pub fn mark(graph: &Graph, roots: &[ObjectIndex]) -> Vec<bool> {
    let mut live = vec![false; graph.node_count()];
    let mut queue: Vec<ObjectIndex> = roots.to_vec();
    let mut head = 0;
    while let Some(&v) = queue.get(head) {
        head += 1;
        if core::mem::replace(&mut live[v as usize], true) {
            continue;
        }
        queue.extend(graph.successors(v).iter().filter(|&&w| !live[w as usize]));
        // Keep the queue from growing without bound on dense graphs: drop what was popped.
        if head > 1 << 16 && head * 2 > queue.len() {
            queue.drain(..head);
            head = 0;
        }
    }
    live
}
