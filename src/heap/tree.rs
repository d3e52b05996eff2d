//! The dominator tree view (docs/heap.md, "Dominator tree"): the tree of immediate
//! dominators below the virtual root, as Eclipse MAT shows it grouped by class. Siblings of
//! one class are merged into one node with their count and summed sizes; the children of a
//! merged node are the dominated objects of all its members, grouped the same way.

use alloc::string::{String, ToString};
use alloc::vec;
use alloc::vec::Vec;
use core::cmp::Ordering;

use super::collate::locale_compare;
use super::dominators::{DominatorTree, UNREACHABLE, VIRTUAL_ROOT};
use super::text::columns;
pub use super::text::size;
use super::tlsf::ObjectIndex;

/// One node of the view: one object, or several siblings of one class.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TreeNode {
    /// Class name of the objects.
    pub class_name: String,
    /// How many sibling objects the node stands for (at least 1).
    pub count: u64,
    /// The payload address when `count` is 1.
    pub address: Option<u64>,
    /// Σ shallow sizes of the objects, in bytes.
    pub shallow_size: u64,
    /// Σ retained sizes of the objects, in bytes (siblings in the dominator tree retain
    /// disjoint sets, so the sum is what the node retains).
    pub retained_size: u64,
    /// Children (up to the requested depth and count), most retained first.
    pub children: Vec<TreeNode>,
    /// Child nodes not shown: past the per-node limit, or all of them at the depth limit.
    pub omitted_children: u64,
}

/// The dominator tree view of one dump.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DominatorView {
    /// Σ shallow sizes of the live objects, in bytes: the retained size of the virtual root.
    pub total_live_size: u64,
    /// The virtual root's children: the objects that no single other object keeps alive.
    pub roots: Vec<TreeNode>,
    /// Root nodes left out by the limit.
    pub omitted_roots: u64,
}

/// What one object contributes to a view.
pub struct Sizes<'a> {
    /// Shallow size per object.
    pub shallow: &'a [u64],
    /// Retained size per object.
    pub retained: &'a [u64],
    /// Payload address per object.
    pub address: &'a [u64],
}

/// The deepest view [`dominator_view`] builds: a deeper request is cut here (the view is
/// built recursively, one level per call).
pub const MAX_DEPTH: usize = 256;

/// Builds the view: `depth` levels below the virtual root (1…[`MAX_DEPTH`]), at most `top`
/// child nodes under each node (at least 1); `class_name(i)` names object `i`. Children are ordered
/// by retained size, then shallow size (both descending), then class name (JavaScript
/// `localeCompare`, then bytes; siblings never share a name).
pub fn dominator_view(
    tree: &DominatorTree,
    sizes: &Sizes<'_>,
    class_name: impl Fn(ObjectIndex) -> String,
    depth: usize,
    top: usize,
) -> DominatorView {
    // Children lists of the dominator tree (`n` = the virtual root), in preorder.
    let n = tree.idom.len();
    let mut first = vec![u32::MAX; n + 1];
    let mut next = vec![u32::MAX; n];
    for &v in tree.preorder.iter().rev() {
        let parent = match tree.idom[v as usize] {
            VIRTUAL_ROOT => n,
            UNREACHABLE => continue,
            p => p as usize,
        };
        next[v as usize] = first[parent];
        first[parent] = v;
    }
    let children_of = |members: &[ObjectIndex]| -> Vec<ObjectIndex> {
        let mut out = Vec::new();
        for &m in members {
            let mut c = first[m as usize];
            while c != u32::MAX {
                out.push(c);
                c = next[c as usize];
            }
        }
        out
    };
    let view = Builder { sizes, class_name: &class_name, top: top.max(1) };
    let mut root_children = Vec::new();
    let mut c = first[n];
    while c != u32::MAX {
        root_children.push(c);
        c = next[c as usize];
    }
    let total_live_size = root_children.iter().map(|&r| sizes.retained[r as usize]).sum();
    let (roots, omitted_roots) = view.level(&root_children, depth.clamp(1, MAX_DEPTH), &children_of);
    DominatorView { total_live_size, roots, omitted_roots }
}

struct Builder<'a, F> {
    sizes: &'a Sizes<'a>,
    class_name: &'a F,
    top: usize,
}

impl<F: Fn(ObjectIndex) -> String> Builder<'_, F> {
    /// `objects` grouped by class name (in byte order of the names), members ascending.
    fn groups(&self, objects: &[ObjectIndex]) -> Vec<(String, Vec<ObjectIndex>)> {
        let mut named: Vec<(String, ObjectIndex)> =
            objects.iter().map(|&o| ((self.class_name)(o), o)).collect();
        named.sort_by(|a, b| a.0.cmp(&b.0).then(a.1.cmp(&b.1)));
        let mut groups: Vec<(String, Vec<ObjectIndex>)> = Vec::new();
        for (name, o) in named {
            match groups.last_mut() {
                Some((n, members)) if *n == name => members.push(o),
                _ => groups.push((name, vec![o])),
            }
        }
        groups
    }

    /// The nodes for `objects` (siblings), `depth` levels deep; and how many were left out.
    fn level(
        &self,
        objects: &[ObjectIndex],
        depth: usize,
        children_of: &dyn Fn(&[ObjectIndex]) -> Vec<ObjectIndex>,
    ) -> (Vec<TreeNode>, u64) {
        let groups = self.groups(objects);
        let s = self.sizes;
        let mut nodes: Vec<(TreeNode, Vec<ObjectIndex>)> = groups
            .into_iter()
            .map(|(class_name, members)| {
                let address = members.iter().map(|&m| s.address[m as usize]).min();
                let node = TreeNode {
                    class_name,
                    count: members.len() as u64,
                    address: if members.len() == 1 { address } else { None },
                    shallow_size: members.iter().map(|&m| s.shallow[m as usize]).sum(),
                    retained_size: members.iter().map(|&m| s.retained[m as usize]).sum(),
                    children: Vec::new(),
                    omitted_children: 0,
                };
                (node, members)
            })
            .collect();
        // Sibling nodes have distinct class names, so the order is total without addresses.
        nodes.sort_by(|(a, _), (b, _)| {
            b.retained_size.cmp(&a.retained_size).then(b.shallow_size.cmp(&a.shallow_size)).then_with(|| {
                match locale_compare(&a.class_name, &b.class_name) {
                    Ordering::Equal => a.class_name.cmp(&b.class_name),
                    o => o,
                }
            })
        });
        let omitted = nodes.len().saturating_sub(self.top) as u64;
        nodes.truncate(self.top);
        let out = nodes
            .into_iter()
            .map(|(mut node, members)| {
                let children = children_of(&members);
                if depth > 1 {
                    let (c, o) = self.level(&children, depth - 1, children_of);
                    node.children = c;
                    node.omitted_children = o;
                } else {
                    node.omitted_children = self.groups(&children).len() as u64;
                }
                node
            })
            .collect();
        (out, omitted)
    }
}

impl TreeNode {
    fn to_value(&self) -> serde_json::Value {
        serde_json::json!({
            "className": self.class_name,
            "count": self.count,
            "address": self.address,
            "shallowSize": self.shallow_size,
            "retainedSize": self.retained_size,
            "children": self.children.iter().map(TreeNode::to_value).collect::<Vec<_>>(),
            "omittedChildren": self.omitted_children,
        })
    }
}

impl DominatorView {
    /// The view as JSON (two-space indentation, no final newline): `totalLiveSize`, `roots`
    /// (nodes with `className`, `count`, `address` (null for merged siblings), `shallowSize`,
    /// `retainedSize`, `children`, `omittedChildren`) and `omittedRoots`; sizes in bytes.
    pub fn to_json(&self) -> String {
        let v = serde_json::json!({
            "totalLiveSize": self.total_live_size,
            "roots": self.roots.iter().map(TreeNode::to_value).collect::<Vec<_>>(),
            "omittedRoots": self.omitted_roots,
        });
        serde_json::to_string_pretty(&v).expect("a value serializes")
    }

    /// The view as an aligned text table, one node per line, children indented under their
    /// dominator; sizes in bytes with KiB/MiB beside them; a `…` line where nodes were left out.
    pub fn to_table(&self) -> String {
        fn walk(rows: &mut Vec<Vec<String>>, nodes: &[TreeNode], omitted: u64, level: usize) {
            let pad = "  ".repeat(level);
            for n in nodes {
                let what = match n.address {
                    Some(a) if n.count == 1 => alloc::format!("{pad}{} @ {a}", n.class_name),
                    _ => alloc::format!("{pad}{} ×{}", n.class_name, n.count),
                };
                rows.push(vec![size(n.retained_size), size(n.shallow_size), n.count.to_string(), what]);
                walk(rows, &n.children, n.omitted_children, level + 1);
            }
            if omitted > 0 {
                let more = if omitted == 1 { "node" } else { "nodes" };
                rows.push(vec![
                    String::new(),
                    String::new(),
                    String::new(),
                    alloc::format!("{pad}… {omitted} more {more}"),
                ]);
            }
        }
        let mut rows = vec![["retained", "shallow", "count", "class @ address"].map(String::from).to_vec()];
        walk(&mut rows, &self.roots, self.omitted_roots, 0);
        alloc::format!("total live size {}\n{}", size(self.total_live_size), columns(&rows, 3))
    }
}
