//! Attribution by calling context (docs/report.md, "Call tree"): who did the memory work, and
//! on whose behalf.
//!
//! [`CallTreeRecorder`] follows the interpreter's [`Observer::enter`] and [`Observer::leave`]
//! events and keeps one node per distinct call path (a calling-context tree): the path `main
//! → parse → alloc` is one node, `main → render → alloc` another. Between two events the
//! instructions belong to the node on top of the shadow stack (its *self* instructions); every
//! load, store, `memory.copy`, `memory.fill` and call belongs to the node executing it, and the
//! bytes a host function reads or writes to the host function's node. [`CallTree`] then has,
//! per node, its self costs and its inclusive ones (itself and every node below it), and per
//! function its self and inclusive costs and its pages, with the caller → callee edges.
//!
//! Invariants, relied on by every renderer and checked by the tests: the self costs of all
//! nodes add up to the run's counters (docs/counting.md: `instructions`, `calls`,
//! `memory_reads` as loads, `memory_writes` as stores); a node's inclusive cost is its self
//! cost plus its children's inclusive costs.
//!
//! Recursion is counted as callgrind counts it: `f → f → f` is three nodes, each node's
//! inclusive cost counts its subtree once, and a function's inclusive cost sums only its
//! outermost nodes on each path (those with no ancestor of the same function), so no cost is
//! counted twice for one function.
//!
//! Memory stays bounded: a call deeper than [`MAX_DEPTH`] frames is merged into the node at
//! that depth (it keeps counting there, as if the deeper frames were inlined), and once
//! [`MAX_NODES`] nodes exist a new path is merged into its caller's node. Merged nodes say so
//! ([`Node::merged`]).

use alloc::vec;
use alloc::vec::Vec;

use super::functions::FunctionCosts;
use super::lines::{LineCosts, LineRecorder, LineTable, Site};
use super::pages::PAGE_SIZE;
use crate::wasm::{Module, Observer};

/// Deepest path kept as its own node, in frames (the entry function is depth 1).
pub const MAX_DEPTH: usize = 256;
/// Most nodes kept; paths past this are merged into their callers.
pub const MAX_NODES: usize = 1 << 16;

/// No node (the parent of a root).
pub const NO_NODE: u32 = u32::MAX;
/// No instruction offset known.
pub const NO_OFFSET: u32 = u32::MAX;

/// What code did, in events and bytes; the same measures for a node's self and inclusive costs.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Costs {
    /// Instructions executed (docs/counting.md).
    pub instructions: u64,
    /// Loads plus `memory.copy` reads (one per copy), as the `memory_reads` counter.
    pub loads: u64,
    /// Stores, `memory.copy` writes, `memory.fill`s and `memory.init`s, as `memory_writes`.
    pub stores: u64,
    /// Bytes read by loads and copies, and by host functions (WASI buffers).
    pub bytes_read: u64,
    /// Bytes written by stores, copies and fills, and by host functions.
    pub bytes_written: u64,
    /// `call` and `call_indirect` executions, as the `calls` counter.
    pub calls: u64,
    /// Instructions attributed to its writes under the heat-map rule (docs/heat-map.md,
    /// "Channels"), on the tiles; zero unless a heat map with attribution was recorded.
    pub write_instructions: u64,
}

impl Costs {
    fn add(&mut self, o: &Costs) {
        self.instructions += o.instructions;
        self.loads += o.loads;
        self.stores += o.stores;
        self.bytes_read += o.bytes_read;
        self.bytes_written += o.bytes_written;
        self.calls += o.calls;
        self.write_instructions += o.write_instructions;
    }
}

/// One node of the tree: a function in one calling context.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Node {
    /// The caller's node, or [`NO_NODE`] for a root (an invocation of an export, a setter, a
    /// start function).
    pub parent: u32,
    /// The function (index in the module's function index space, imports first).
    pub function: u32,
    /// Frames from the root, 1 for a root.
    pub depth: u32,
    /// The module offset of the call instruction that first entered this path, or
    /// [`NO_OFFSET`] for a root or without line tables (the offsets come from [`crate::profile::lines::LineRecorder`]).
    pub call_site: u32,
    /// Times this path was entered.
    pub entries: u64,
    /// Its own costs.
    pub self_costs: Costs,
    /// Its costs and all of its descendants' (filled by [`CallTreeRecorder::finish`]).
    pub total: Costs,
    /// Deeper or further paths were merged into this node ([`MAX_DEPTH`], [`MAX_NODES`]).
    pub merged: bool,
}

/// A node while recording: its children as a linked list, most recently entered first.
#[derive(Debug, Clone)]
struct Live {
    node: Node,
    first_child: u32,
    next_sibling: u32,
}

/// Records the calling-context tree of a run. Feed it the run's events (it is an
/// [`Observer`]), then call [`CallTreeRecorder::finish`] with the run's final instruction count.
#[derive(Debug, Clone)]
pub struct CallTreeRecorder {
    nodes: Vec<Live>,
    /// The first root, then its siblings (a list like `first_child`).
    first_root: u32,
    /// The shadow stack: the node of each active frame, innermost last. A frame merged into
    /// its caller repeats the caller's node.
    stack: Vec<u32>,
    /// The node on top of `stack`, or [`NO_NODE`] between invocations.
    top: u32,
    /// The instruction count at the last enter or leave.
    last: u64,
    /// Per function: the pages its code read or wrote (bit `p % 64` of word `p / 64`).
    pages: Vec<Vec<u64>>,
    /// The run's source lines: fed every event, it records the costs per line and names the
    /// instruction of any event (call sites, writers) when the module has line tables.
    lines: LineRecorder,
}

impl Default for CallTreeRecorder {
    fn default() -> Self {
        Self::new()
    }
}

impl CallTreeRecorder {
    /// An empty recorder.
    pub fn new() -> Self {
        CallTreeRecorder {
            nodes: Vec::new(),
            first_root: NO_NODE,
            stack: Vec::new(),
            top: NO_NODE,
            last: 0,
            pages: Vec::new(),
            lines: LineRecorder::new(None),
        }
    }

    /// A recorder that also records the run's costs per source line of `table`
    /// ([`CallTreeRecorder::finish_lines`]) and the line of every call site.
    pub fn with_lines(table: Option<&LineTable>) -> Self {
        CallTreeRecorder { lines: LineRecorder::new(table), ..Self::new() }
    }

    /// The node executing now, or [`NO_NODE`] between invocations.
    #[inline]
    pub fn current(&self) -> u32 {
        self.top
    }

    /// The module offset of the instruction counted `instructions`-th (an event's exact count),
    /// when the recorder has a line table and it lies in the running fuel block; else
    /// [`NO_OFFSET`].
    #[inline]
    pub fn offset_at(&self, instructions: u64) -> u32 {
        self.lines.offset_at(instructions)
    }

    /// Adds `work` instructions of a write under the heat-map rule to node `node`.
    pub fn credit_write(&mut self, node: u32, work: u64) {
        if let Some(n) = self.nodes.get_mut(node as usize) {
            n.node.self_costs.write_instructions += work;
        }
    }

    /// Gives the instructions since the last event to the running node.
    #[inline]
    fn switch(&mut self, instructions: u64) {
        if let Some(n) = self.nodes.get_mut(self.top as usize) {
            n.node.self_costs.instructions += instructions.saturating_sub(self.last);
        }
        self.last = instructions;
    }

    /// The child of `parent` (a root when [`NO_NODE`]) for `func`, made if new; the parent
    /// itself when a limit forbids a new node.
    fn child(&mut self, parent: u32, func: u32, call_site: u32) -> u32 {
        let (mut at, depth) = match self.nodes.get(parent as usize) {
            Some(p) => (p.first_child, p.node.depth + 1),
            None => (self.first_root, 1),
        };
        let mut prev = NO_NODE;
        while at != NO_NODE {
            let next = self.nodes[at as usize].next_sibling;
            if self.nodes[at as usize].node.function == func {
                // Move to the front: the callee entered last is the likeliest next.
                if prev != NO_NODE {
                    self.nodes[prev as usize].next_sibling = next;
                    self.link_first(parent, at);
                }
                return at;
            }
            prev = at;
            at = next;
        }
        if parent != NO_NODE && (depth as usize > MAX_DEPTH || self.nodes.len() >= MAX_NODES) {
            self.nodes[parent as usize].node.merged = true;
            return parent;
        }
        let id = self.nodes.len() as u32;
        self.nodes.push(Live {
            node: Node {
                parent,
                function: func,
                depth,
                call_site,
                entries: 0,
                self_costs: Costs::default(),
                total: Costs::default(),
                merged: false,
            },
            first_child: NO_NODE,
            next_sibling: NO_NODE,
        });
        self.link_first(parent, id);
        id
    }

    /// Makes `node` the first child of `parent` (the first root for [`NO_NODE`]).
    fn link_first(&mut self, parent: u32, node: u32) {
        let head = match self.nodes.get_mut(parent as usize) {
            Some(p) => &mut p.first_child,
            None => &mut self.first_root,
        };
        let old = core::mem::replace(head, node);
        self.nodes[node as usize].next_sibling = old;
    }

    #[inline]
    fn costs(&mut self) -> Option<&mut Costs> {
        self.nodes.get_mut(self.top as usize).map(|n| &mut n.node.self_costs)
    }

    #[inline]
    fn access(&mut self, addr: u64, len: u64, write: bool, counted: bool) {
        let Some(top) = self.nodes.get_mut(self.top as usize) else { return };
        let c = &mut top.node.self_costs;
        match (write, counted) {
            (false, true) => c.loads += 1,
            (true, true) => c.stores += 1,
            _ => {}
        }
        if write {
            c.bytes_written += len;
        } else {
            c.bytes_read += len;
        }
        let f = top.node.function as usize;
        let (first, last) = (addr / PAGE_SIZE, (addr + len.max(1) - 1) / PAGE_SIZE);
        // Most accesses lie in one page whose word the function has already.
        if first == last
            && let Some(w) = self.pages.get_mut(f).and_then(|p| p.get_mut((first / 64) as usize))
        {
            *w |= 1 << (first % 64);
            return;
        }
        if f >= self.pages.len() {
            self.pages.resize_with(f + 1, Vec::new);
        }
        let pages = &mut self.pages[f];
        for p in first..=last {
            let w = (p / 64) as usize;
            if w >= pages.len() {
                pages.resize(w + 1, 0);
            }
            pages[w] |= 1 << (p % 64);
        }
    }

    /// Ends the recording: the instructions since the last event go to the node that was
    /// running (the one that trapped or ran out of budget); fills the inclusive costs.
    /// `instructions` is the run's final instruction count.
    pub fn finish(self, instructions: u64) -> CallTree {
        self.finish_lines(instructions).0
    }

    /// [`CallTreeRecorder::finish`], with the run's costs per source line (sites that ran, and
    /// the costs of code without a line; see [`LineRecorder::finish`]).
    pub fn finish_lines(mut self, instructions: u64) -> (CallTree, (Vec<(Site, LineCosts)>, LineCosts)) {
        self.switch(instructions);
        let lines = core::mem::take(&mut self.lines).finish(instructions);
        let mut nodes: Vec<Node> = self.nodes.into_iter().map(|l| l.node).collect();
        // Children come after their parents (a node is made while its parent is on the
        // stack), so one backward pass adds every subtree up.
        for i in (0..nodes.len()).rev() {
            let own = nodes[i].self_costs;
            nodes[i].total.add(&own);
            let (total, parent) = (nodes[i].total, nodes[i].parent as usize);
            if let Some(p) = nodes.get_mut(parent) {
                p.total.add(&total);
            }
        }
        (CallTree { nodes, pages: self.pages }, lines)
    }
}

impl Observer for CallTreeRecorder {
    const BLOCKS: bool = <LineRecorder as Observer>::BLOCKS;

    #[inline]
    fn block(&mut self, module: &Module, func: u32, pc: u32, before: u64) {
        self.lines.block(module, func, pc, before);
    }
    fn enter(&mut self, func: u32, instructions: u64) {
        self.switch(instructions);
        let site = if self.top == NO_NODE { NO_OFFSET } else { self.lines.offset_at(instructions) };
        let node = self.child(self.top, func, site);
        self.nodes[node as usize].node.entries += 1;
        self.stack.push(node);
        self.top = node;
    }
    fn leave(&mut self, instructions: u64) {
        self.switch(instructions);
        self.stack.pop();
        self.top = self.stack.last().copied().unwrap_or(NO_NODE);
    }
    #[inline]
    fn call(&mut self, _: bool) {
        if let Some(c) = self.costs() {
            c.calls += 1;
        }
    }
    #[inline]
    fn load(&mut self, addr: u64, len: u32, n: u64) {
        self.lines.load(addr, len, n);
        self.access(addr, u64::from(len), false, true);
    }
    #[inline]
    fn store(&mut self, addr: u64, len: u32, n: u64) {
        self.lines.store(addr, len, n);
        self.access(addr, u64::from(len), true, true);
    }
    fn copy(&mut self, dst: u64, src: u64, len: u64, n: u64) {
        self.lines.copy(dst, src, len, n);
        self.access(src, len, false, true);
        self.access(dst, len, true, true);
    }
    fn fill(&mut self, dst: u64, len: u64, n: u64) {
        self.lines.fill(dst, len, n);
        self.access(dst, len, true, true);
    }
    fn host_read(&mut self, addr: u64, len: u64, n: u64) {
        self.lines.host_read(addr, len, n);
        self.access(addr, len, false, false);
    }
    fn host_write(&mut self, addr: u64, len: u64, n: u64) {
        self.lines.host_write(addr, len, n);
        self.access(addr, len, true, false);
    }
}

/// The calling-context tree of a finished run.
#[derive(Debug, Clone, Default)]
pub struct CallTree {
    /// The nodes; a parent always comes before its children.
    pub nodes: Vec<Node>,
    /// Per function: its pages (see [`FunctionCosts::pages`]).
    pages: Vec<Vec<u64>>,
}

/// One caller → callee edge: how often the callee was entered from the caller, and the
/// inclusive costs of those calls.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Edge {
    /// The calling function.
    pub caller: u32,
    /// The called function.
    pub callee: u32,
    /// Calls along the edge (entries of the callee's nodes under the caller's).
    pub calls: u64,
    /// The inclusive costs of the callee's nodes under this edge.
    pub total: Costs,
}

impl CallTree {
    /// The sum of every node's self costs: the run's counters (see the module documentation).
    pub fn self_sum(&self) -> Costs {
        let mut sum = Costs::default();
        for n in &self.nodes {
            sum.add(&n.self_costs);
        }
        sum
    }

    /// Whether node `n` has an ancestor of its own function (a recursive call's node).
    fn recursive(&self, n: usize) -> bool {
        let f = self.nodes[n].function;
        let mut p = self.nodes[n].parent;
        while let Some(node) = self.nodes.get(p as usize) {
            if node.function == f {
                return true;
            }
            p = node.parent;
        }
        false
    }

    /// Per function index: (entries, self costs, inclusive costs), the inclusive costs summed
    /// over its outermost nodes only (the module documentation's recursion rule). Functions
    /// that never ran are all zeros.
    pub fn functions(&self) -> Vec<(u64, Costs, Costs)> {
        let len = self.nodes.iter().map(|n| n.function as usize + 1).max().unwrap_or(0);
        let mut out = vec![(0u64, Costs::default(), Costs::default()); len];
        for (i, n) in self.nodes.iter().enumerate() {
            let f = &mut out[n.function as usize];
            f.0 += n.entries;
            f.1.add(&n.self_costs);
            if !self.recursive(i) {
                f.2.add(&n.total);
            }
        }
        out
    }

    /// Per function index, the costs of the functions table (docs/report.md, "Functions"):
    /// entries, self instructions, loads, stores, bytes and pages.
    pub fn function_costs(&self) -> Vec<FunctionCosts> {
        self.functions()
            .into_iter()
            .enumerate()
            .map(|(f, (entries, c, _))| FunctionCosts {
                entries,
                self_instructions: c.instructions,
                loads: c.loads,
                stores: c.stores,
                bytes_read: c.bytes_read,
                bytes_written: c.bytes_written,
                pages: self.pages.get(f).cloned().unwrap_or_default(),
            })
            .collect()
    }

    /// The caller → callee edges, ordered by caller, then callee.
    pub fn edges(&self) -> Vec<Edge> {
        let mut edges: alloc::collections::BTreeMap<(u32, u32), Edge> = alloc::collections::BTreeMap::new();
        for n in &self.nodes {
            let Some(parent) = self.nodes.get(n.parent as usize) else { continue };
            let (caller, callee) = (parent.function, n.function);
            let e = edges.entry((caller, callee)).or_insert(Edge {
                caller,
                callee,
                calls: 0,
                total: Costs::default(),
            });
            e.calls += n.entries;
            e.total.add(&n.total);
        }
        edges.into_values().collect()
    }

    /// The path of node `n`, outermost first: function indices from its root to it.
    pub fn path(&self, n: u32) -> Vec<u32> {
        let mut path = Vec::new();
        let mut at = n;
        while let Some(node) = self.nodes.get(at as usize) {
            path.push(node.function);
            at = node.parent;
        }
        path.reverse();
        path
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `main` calls `a` twice and `b` once; `a` calls `b`; `b` recurses once.
    fn tree() -> CallTree {
        let mut r = CallTreeRecorder::new();
        r.enter(0, 0); // main
        r.enter(1, 2); //   a
        r.store(0, 4, 3);
        r.enter(2, 4); //     b
        r.leave(7); //      b: 3
        r.leave(8); //    a: 2 + 1
        r.enter(1, 10); //  a again (same node)
        r.leave(12); //   a: 2 more
        r.enter(2, 13); //  b under main
        r.call(false);
        r.enter(2, 14); //    b under b
        r.load(100, 8, 15);
        r.leave(16);
        r.leave(18);
        r.leave(20);
        r.finish(20)
    }

    #[test]
    fn one_node_per_path_with_self_and_inclusive_costs() {
        let t = tree();
        let paths: Vec<Vec<u32>> = (0..t.nodes.len() as u32).map(|n| t.path(n)).collect();
        assert_eq!(paths, [vec![0], vec![0, 1], vec![0, 1, 2], vec![0, 2], vec![0, 2, 2]]);
        let selfs: Vec<u64> = t.nodes.iter().map(|n| n.self_costs.instructions).collect();
        // main: 0-2, 8-10, 12-13, 18-20 = 2+2+1+2; a: 2-4, 7-8, 10-12 = 5; b under a: 3;
        // b under main: 13-14, 16-18 = 3; b under b: 2.
        assert_eq!(selfs, [7, 5, 3, 3, 2]);
        assert_eq!(t.self_sum().instructions, 20);
        assert_eq!(t.nodes[0].total.instructions, 20);
        assert_eq!(t.nodes[1].total.instructions, 8);
        assert_eq!(t.nodes[3].total.instructions, 5);
        assert_eq!((t.nodes[1].entries, t.nodes[2].entries, t.nodes[3].entries), (2, 1, 1));
        assert_eq!((t.nodes[1].self_costs.stores, t.nodes[1].self_costs.bytes_written), (1, 4));
        assert_eq!(t.nodes[4].self_costs.loads, 1);
        assert_eq!(t.nodes[3].self_costs.calls, 1);
        assert_eq!(t.nodes[0].total.loads, 1);
    }

    #[test]
    fn a_recursive_function_counts_its_outermost_nodes_once() {
        let t = tree();
        let f = t.functions();
        // b: self 3 + 3 + 2; inclusive: the node under a (3) and the outer one under main
        // (5), not the inner one again.
        assert_eq!((f[2].0, f[2].1.instructions, f[2].2.instructions), (3, 8, 8));
        assert_eq!((f[0].1.instructions, f[0].2.instructions), (7, 20));
        let edges: Vec<(u32, u32, u64, u64)> =
            t.edges().iter().map(|e| (e.caller, e.callee, e.calls, e.total.instructions)).collect();
        assert_eq!(edges, [(0, 1, 2, 8), (0, 2, 1, 5), (1, 2, 1, 3), (2, 2, 1, 2)]);
    }

    #[test]
    fn paths_past_the_depth_limit_merge() {
        let mut r = CallTreeRecorder::new();
        for d in 0..MAX_DEPTH as u64 + 10 {
            r.enter(7, d);
        }
        for d in 0..MAX_DEPTH as u64 + 10 {
            r.leave(MAX_DEPTH as u64 + 10 + d);
        }
        // The last leave at 2n - 1 ends the invocation: nothing runs after it.
        let t = r.finish(2 * (MAX_DEPTH as u64 + 10) - 1);
        assert_eq!(t.nodes.len(), MAX_DEPTH);
        assert!(t.nodes[MAX_DEPTH - 1].merged);
        assert_eq!(t.nodes[MAX_DEPTH - 1].entries, 11);
        assert_eq!(t.self_sum().instructions, 2 * (MAX_DEPTH as u64 + 10) - 1);
        assert_eq!(t.nodes[0].total.instructions, t.self_sum().instructions);
    }
}
