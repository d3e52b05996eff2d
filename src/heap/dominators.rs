//! Immediate dominators and retained sizes (docs/heap.md, "Liveness and sizes").
//!
//! The graph gets a virtual root `VR` with an edge to every root. Dominators are computed
//! with the Lengauer–Tarjan algorithm (path compression, no balancing: O(E log V)) on a
//! preorder numbering from an iterative depth-first search. Nothing recurses, so a linked
//! list of millions of nodes costs the same per node as a tree.

use alloc::vec;
use alloc::vec::Vec;

use super::graph::Graph;
use super::tlsf::ObjectIndex;

/// `idom` value of a node whose immediate dominator is the virtual root.
pub const VIRTUAL_ROOT: u32 = u32::MAX - 1;
/// `idom` value of a node not reachable from the virtual root.
pub const UNREACHABLE: u32 = u32::MAX;

const NONE: u32 = u32::MAX;

/// The dominator tree of the nodes reachable from the roots.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DominatorTree {
    /// `idom[i]`: the immediate dominator of node `i`, [`VIRTUAL_ROOT`] or [`UNREACHABLE`].
    pub idom: Vec<u32>,
    /// The reachable nodes in depth-first preorder from the virtual root: every node comes
    /// after its immediate dominator.
    pub preorder: Vec<ObjectIndex>,
}

/// Computes the immediate dominators of `graph` with a virtual root whose successors are
/// `roots` (duplicates allowed).
pub fn dominators(graph: &Graph, roots: &[ObjectIndex]) -> DominatorTree {
    let n = graph.node_count();
    // Preorder numbering; number 0 is the virtual root.
    let mut dfnum = vec![NONE; n];
    let mut vertex: Vec<u32> = vec![NONE];
    let mut parent: Vec<u32> = vec![NONE];
    let mut is_root_child = vec![false];
    let mut stack: Vec<(ObjectIndex, usize)> = Vec::new();
    for &r in roots {
        if dfnum[r as usize] != NONE {
            // Already reached; still a successor of VR.
            is_root_child[dfnum[r as usize] as usize] = true;
            continue;
        }
        dfnum[r as usize] = vertex.len() as u32;
        vertex.push(r);
        parent.push(0);
        is_root_child.push(true);
        stack.push((r, graph.offsets[r as usize]));
        while let Some(top) = stack.last_mut() {
            let v = top.0;
            if top.1 < graph.offsets[v as usize + 1] {
                let w = graph.targets[top.1];
                top.1 += 1;
                if dfnum[w as usize] == NONE {
                    dfnum[w as usize] = vertex.len() as u32;
                    vertex.push(w);
                    parent.push(dfnum[v as usize]);
                    is_root_child.push(false);
                    stack.push((w, graph.offsets[w as usize]));
                }
            } else {
                stack.pop();
            }
        }
    }
    let count = vertex.len();

    // Predecessors in preorder numbers (compressed rows), VR included.
    let mut pred_start = vec![0usize; count + 1];
    for d in 1..count {
        let v = vertex[d];
        for &w in graph.successors(v) {
            pred_start[dfnum[w as usize] as usize + 1] += 1;
        }
        if is_root_child[d] {
            pred_start[d + 1] += 1;
        }
    }
    for i in 0..count {
        pred_start[i + 1] += pred_start[i];
    }
    let mut fill = pred_start.clone();
    let mut preds = vec![0u32; pred_start[count]];
    for d in 1..count {
        if is_root_child[d] {
            preds[fill[d]] = 0;
            fill[d] += 1;
        }
        for &w in graph.successors(vertex[d]) {
            let t = dfnum[w as usize] as usize;
            preds[fill[t]] = d as u32;
            fill[t] += 1;
        }
    }
    drop(fill);

    let mut semi = vec![NONE; count];
    let mut idom = vec![NONE; count];
    let mut samedom = vec![NONE; count];
    let mut ancestor = vec![NONE; count];
    let mut best: Vec<u32> = (0..count as u32).collect();
    let mut bucket_head = vec![NONE; count];
    let mut bucket_next = vec![NONE; count];
    let mut path: Vec<u32> = Vec::new();
    if count > 0 {
        semi[0] = 0;
    }

    // The linked ancestor of `v` with the lowest semidominator, compressing the path
    // iteratively.
    let mut eval = |v: u32, ancestor: &mut [u32], best: &mut [u32], semi: &[u32]| -> u32 {
        path.clear();
        let mut x = v;
        while ancestor[ancestor[x as usize] as usize] != NONE {
            path.push(x);
            x = ancestor[x as usize];
        }
        for &x in path.iter().rev() {
            let a = ancestor[x as usize] as usize;
            let b = best[a];
            ancestor[x as usize] = ancestor[a];
            if semi[b as usize] < semi[best[x as usize] as usize] {
                best[x as usize] = b;
            }
        }
        best[v as usize]
    };

    for i in (1..count).rev() {
        let p = parent[i];
        let mut s = p;
        for &v in &preds[pred_start[i]..pred_start[i + 1]] {
            let s2 =
                if v as usize <= i { v } else { semi[eval(v, &mut ancestor, &mut best, &semi) as usize] };
            s = s.min(s2);
        }
        semi[i] = s;
        bucket_next[i] = bucket_head[s as usize];
        bucket_head[s as usize] = i as u32;
        ancestor[i] = p;
        best[i] = i as u32;
        let mut v = core::mem::replace(&mut bucket_head[p as usize], NONE);
        while v != NONE {
            let y = eval(v, &mut ancestor, &mut best, &semi);
            if semi[y as usize] == semi[v as usize] {
                idom[v as usize] = p;
            } else {
                samedom[v as usize] = y;
            }
            v = bucket_next[v as usize];
        }
    }
    drop((preds, pred_start, bucket_head, bucket_next, ancestor, best, semi));
    let mut out = vec![UNREACHABLE; n];
    for i in 1..count {
        if samedom[i] != NONE {
            idom[i] = idom[samedom[i] as usize];
        }
        out[vertex[i] as usize] = if idom[i] == 0 { VIRTUAL_ROOT } else { vertex[idom[i] as usize] };
    }
    vertex.remove(0);
    DominatorTree { idom: out, preorder: vertex }
}

/// Retained sizes: `retained(x) = shallow(x) + Σ retained(c)` over the dominator-tree
/// children `c` of `x`, computed in reverse preorder (children before their dominator).
/// Unreachable nodes get 0. Sizes in bytes.
pub fn retained_sizes(tree: &DominatorTree, shallow: &[u64]) -> Vec<u64> {
    let mut retained = vec![0u64; shallow.len()];
    for &v in &tree.preorder {
        retained[v as usize] = shallow[v as usize];
    }
    for &v in tree.preorder.iter().rev() {
        let d = tree.idom[v as usize];
        if d != VIRTUAL_ROOT && d != UNREACHABLE {
            retained[d as usize] += retained[v as usize];
        }
    }
    retained
}
