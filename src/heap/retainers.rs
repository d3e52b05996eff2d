//! The retainers view (docs/heap.md, "Retainers"): why one object is still alive. Its
//! retainers are the roots that hold it and the live objects with an edge to it, each edge
//! named by the slot it is read from (a field, an array index, a map key or value, a set
//! element, a closure's environment, a tuple slot); its paths are shortest chains of edges
//! from roots to it, one per root object, nearest first: what Chrome DevTools' Retainers
//! panel and Eclipse MAT's "paths to GC roots" show.
//!
//! Distances are counted like DevTools': an object held by a root is at distance 1, every
//! edge adds 1, garbage has none.

use alloc::collections::BTreeMap;
use alloc::string::{String, ToString};
use alloc::vec;
use alloc::vec::Vec;

use super::HeapError;
use super::class_names;
use super::graph::{Graph, Slot, labelled_edges};
use super::layout::DebugInfo;
use super::roots::{GlobalRoot, Root, RootKind};
use super::text::{columns, size};
use super::tlsf::{Object, ObjectIndex, PtrIndex};

/// Which object to explain.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    /// The object with this payload address (the `address` of `analyze`'s instances).
    Address(u64),
    /// The live object of this class with the largest retained size (the lowest address
    /// among equals). The name is the class's in full, or with module paths left out when
    /// that names one live class (`Session` for `leak/Session`).
    Class(String),
}

/// The slot of its source object an edge is read from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EdgeLabel {
    /// A class field, by name.
    Field(String),
    /// An element of an Array or StaticArray, by index.
    Element(u64),
    /// The key of the Map entry at this position of the entries buffer.
    MapKey(u64),
    /// The value of the Map entry at this position.
    MapValue(u64),
    /// The Set entry at this position.
    SetElement(u64),
    /// Another reference field of a Map or Set entry.
    EntryField {
        /// Position of the entry.
        entry: u64,
        /// The entry field's name.
        name: String,
    },
    /// A Function's closure environment (`_env`).
    Closure,
    /// A SmallTuple slot, by index.
    TupleSlot(u64),
    /// Without DWARF: the word at this payload offset, a field without a getter to name it.
    Offset(u64),
    /// Without DWARF: a reference read at this address outside the object; `None` when the
    /// read was not seen.
    Read(Option<u64>),
}

/// A root, named.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RootLabel {
    /// A global variable.
    Global {
        /// Its internal name, e.g. `assembly/index/cache`.
        name: String,
        /// Its wasm global index.
        global_index: u64,
    },
    /// A shadow-stack word.
    Stack {
        /// The word's linear-memory address.
        address: u64,
    },
    /// A pinned object (`__pin`).
    Pinned,
}

/// One object as the view shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ObjectInfo {
    /// Payload address.
    pub address: u64,
    /// Class name.
    pub class_name: String,
    /// Shallow size, in bytes.
    pub shallow_size: u64,
    /// Retained size, in bytes (0 for garbage).
    pub retained_size: u64,
    /// Edges from the nearest root (1 for an object a root holds); `None` for garbage.
    pub distance: Option<u64>,
}

/// One incoming edge of the object.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Retainer {
    /// A root holds the object.
    Root(RootLabel),
    /// A live object holds it in a slot.
    Object {
        /// The slot of `object` that holds the explained object.
        edge: EdgeLabel,
        /// The holding object.
        object: ObjectInfo,
    },
}

/// One object on a path, with the edge that leads to it from the previous one; or a run of
/// such steps folded into one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PathStep {
    /// The previous step's slot that holds this object; `None` for the first step, which the
    /// root holds.
    pub edge: Option<EdgeLabel>,
    /// The object.
    pub object: ObjectInfo,
    /// How many objects of the path the step stands for: 1, or more when a run of more than
    /// [`FOLD`] consecutive edges with the same label into objects of the same class (a
    /// linked list) is folded into its first step and one step for the rest, whose `object`
    /// is the run's last.
    pub repeat: u64,
}

/// Runs of up to this many like steps are shown step by step.
pub const FOLD: usize = 4;

/// A shortest path from a root to the object.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RootPath {
    /// The root (the first root entry that holds the first step's object).
    pub root: RootLabel,
    /// From the root's object to the explained object, which is the last step.
    pub steps: Vec<PathStep>,
}

/// Why one object is alive.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RetainerView {
    /// The object explained.
    pub object: ObjectInfo,
    /// Roots holding it (in root order: globals, shadow stack, pinned), then live objects
    /// holding it, nearest to a root first, then by address; one entry per edge.
    pub retainers: Vec<Retainer>,
    /// Up to the requested number of paths, one per root object that reaches the object,
    /// shortest first (then in root order).
    pub paths: Vec<RootPath>,
    /// Root objects that reach the object but whose paths were left out.
    pub omitted_paths: u64,
}

/// What the view is computed from: one analysed dump.
pub struct Heap<'a> {
    /// The memory image.
    pub memory: &'a [u8],
    /// The objects of the walk, by address.
    pub objects: &'a [Object],
    /// Payload pointer → object.
    pub index: &'a PtrIndex,
    /// The reference graph over all objects.
    pub graph: &'a Graph,
    /// The global roots, for their names.
    pub globals: &'a [GlobalRoot],
    /// The roots, in order.
    pub roots: &'a [Root],
    /// Liveness per object.
    pub live: &'a [bool],
    /// Shallow size per object.
    pub shallow: &'a [u64],
    /// Retained size per object.
    pub retained: &'a [u64],
    /// Layouts, for class and field names.
    pub info: &'a DebugInfo,
    /// Without DWARF: the slot of each edge, parallel to `graph.targets` (the scan that
    /// found the edges named them; with DWARF they are read again per object).
    pub slots: Option<&'a [Slot]>,
}

const FAR: u32 = u32::MAX;

impl Heap<'_> {
    /// The object `target` names.
    ///
    /// # Errors
    /// [`HeapError::NoObjectAt`] when no object has that payload address,
    /// [`HeapError::NoLiveInstance`] when no live object has that class,
    /// [`HeapError::AmbiguousClass`] when the name, without its module paths, is short for
    /// several live classes (docs/heap.md, "Retainers").
    pub fn find(&self, target: &Target) -> Result<ObjectIndex, HeapError> {
        match target {
            Target::Address(a) => u32::try_from(*a)
                .ok()
                .and_then(|p| self.index.get(p))
                .ok_or(HeapError::NoObjectAt { address: *a }),
            Target::Class(asked) => {
                // The live classes' names, once per class id.
                let mut names: BTreeMap<u32, String> = BTreeMap::new();
                for (i, o) in self.objects.iter().enumerate() {
                    if self.live[i] {
                        names.entry(o.rtid).or_insert_with(|| self.info.class_name(o.rtid));
                    }
                }
                let mut distinct: Vec<&str> = names.values().map(String::as_str).collect();
                distinct.sort_unstable();
                distinct.dedup();
                let name = class_names::resolve(asked, &distinct)?;
                let mut best: Option<usize> = None;
                for (i, o) in self.objects.iter().enumerate() {
                    if !self.live[i] || names.get(&o.rtid).map(String::as_str) != Some(name) {
                        continue;
                    }
                    if best.is_none_or(|b| self.retained[i] > self.retained[b]) {
                        best = Some(i);
                    }
                }
                // A resolved name is a live class's, so it has an object.
                best.map(|b| b as ObjectIndex).ok_or_else(|| HeapError::NoLiveInstance {
                    class_name: asked.clone(),
                    suggestions: Vec::new(),
                })
            }
        }
    }

    fn info(&self, i: ObjectIndex, distance: &[u32]) -> ObjectInfo {
        let o = &self.objects[i as usize];
        let d = distance[i as usize];
        ObjectInfo {
            address: o.payload,
            class_name: self.info.class_name(o.rtid),
            shallow_size: self.shallow[i as usize],
            retained_size: if self.live[i as usize] { self.retained[i as usize] } else { 0 },
            distance: (d != FAR).then_some(u64::from(d)),
        }
    }

    pub(crate) fn root_label(&self, r: &Root) -> RootLabel {
        match r.kind {
            RootKind::Global => RootLabel::Global {
                name: self
                    .globals
                    .iter()
                    .find(|g| g.global_index == r.source_address)
                    .map_or_else(String::new, |g| g.name.clone()),
                global_index: r.source_address,
            },
            RootKind::Local => RootLabel::Stack { address: r.source_address },
            RootKind::Pinned => RootLabel::Pinned,
        }
    }

    /// The name of `slot` of object `source`.
    pub(crate) fn label(&self, source: ObjectIndex, slot: Slot) -> EdgeLabel {
        let info = self.info;
        match slot {
            Slot::Field { node, field } => EdgeLabel::Field(
                info.fields
                    .get(node as usize)
                    .and_then(|n| n.own.get(field as usize))
                    .map_or_else(String::new, |f| f.name.clone()),
            ),
            Slot::Element(i) => EdgeLabel::Element(i),
            Slot::Entry { entry, field } => {
                let layout = info.layouts.get(&u64::from(self.objects[source as usize].rtid));
                let name = layout
                    .and_then(|l| l.entry.as_ref())
                    .and_then(|e| e.references.get(field as usize))
                    .map_or("", |f| f.name.as_str());
                let is_set = layout.is_some_and(|l| l.name.starts_with("~lib/set/"));
                match (is_set, name) {
                    (false, "key") => EdgeLabel::MapKey(entry),
                    (false, "value") => EdgeLabel::MapValue(entry),
                    (true, "key") => EdgeLabel::SetElement(entry),
                    _ => EdgeLabel::EntryField { entry, name: name.to_string() },
                }
            }
            Slot::Closure => EdgeLabel::Closure,
            Slot::TupleSlot(i) => EdgeLabel::TupleSlot(i),
            Slot::Offset(k) => EdgeLabel::Offset(k),
            Slot::MapEntry { entry, set: true, .. } => EdgeLabel::SetElement(entry),
            Slot::MapEntry { entry, key: true, .. } => EdgeLabel::MapKey(entry),
            Slot::MapEntry { entry, .. } => EdgeLabel::MapValue(entry),
            Slot::Read(a) => EdgeLabel::Read((a != u64::MAX).then_some(a)),
        }
    }

    /// The edges of object `i` with their slots, in graph order.
    pub(crate) fn edges(&self, i: ObjectIndex) -> Result<Vec<(ObjectIndex, Slot)>, HeapError> {
        if let Some(slots) = self.slots {
            let range = self.graph.offsets[i as usize]..self.graph.offsets[i as usize + 1];
            return Ok(self.graph.targets[range.clone()]
                .iter()
                .copied()
                .zip(slots[range].iter().copied())
                .collect());
        }
        labelled_edges(self.memory, &self.objects[i as usize], self.index, self.info)
    }
}

/// Breadth-first distances over `next(v)` from `starts` (at `first`), [`FAR`] where none.
fn bfs<'g>(
    n: usize,
    starts: impl IntoIterator<Item = ObjectIndex>,
    first: u32,
    next: impl Fn(ObjectIndex) -> &'g [ObjectIndex],
) -> Vec<u32> {
    let mut dist = vec![FAR; n];
    let mut queue = Vec::new();
    for s in starts {
        if dist[s as usize] == FAR {
            dist[s as usize] = first;
            queue.push(s);
        }
    }
    let mut head = 0;
    while let Some(&v) = queue.get(head) {
        head += 1;
        let d = dist[v as usize] + 1;
        for &w in next(v) {
            if dist[w as usize] == FAR {
                dist[w as usize] = d;
                queue.push(w);
            }
        }
    }
    dist
}

/// The graph's edges from live objects, reversed: `(offsets, sources)` in compressed sparse
/// row form, each node's sources in ascending order.
fn predecessors(graph: &Graph, live: &[bool]) -> (Vec<usize>, Vec<ObjectIndex>) {
    let n = graph.node_count();
    let mut offsets = vec![0usize; n + 1];
    for v in (0..n).filter(|&v| live[v]) {
        for &w in graph.successors(v as ObjectIndex) {
            offsets[w as usize + 1] += 1;
        }
    }
    for i in 0..n {
        offsets[i + 1] += offsets[i];
    }
    let mut fill = offsets.clone();
    let mut sources = vec![0; offsets[n]];
    for v in (0..n).filter(|&v| live[v]) {
        for &w in graph.successors(v as ObjectIndex) {
            sources[fill[w as usize]] = v as ObjectIndex;
            fill[w as usize] += 1;
        }
    }
    (offsets, sources)
}

/// Builds a path's steps, folding long runs of like steps as they come, so that a path of a
/// million edges costs memory for its runs only.
struct Folder<'h, 'a> {
    heap: &'h Heap<'a>,
    distance: &'h [u32],
    steps: Vec<PathStep>,
    /// The current run: its first objects (up to `FOLD + 1`) with their edge, and its last.
    run: Vec<(Option<EdgeLabel>, ObjectIndex)>,
    run_len: usize,
}

impl Folder<'_, '_> {
    fn push(&mut self, edge: Option<EdgeLabel>, object: ObjectIndex) {
        let rtid = |o: ObjectIndex| self.heap.objects[o as usize].rtid;
        let like =
            edge.is_some() && self.run.first().is_some_and(|(e, o)| *e == edge && rtid(*o) == rtid(object));
        if !like {
            self.flush();
        }
        self.run_len += 1;
        if self.run.len() <= FOLD {
            self.run.push((edge, object));
        } else if let Some(last) = self.run.last_mut() {
            *last = (edge, object);
        }
    }

    fn flush(&mut self) {
        let step = |(edge, o): (Option<EdgeLabel>, ObjectIndex), repeat: u64| PathStep {
            edge,
            object: self.heap.info(o, self.distance),
            repeat,
        };
        let mut run = core::mem::take(&mut self.run).into_iter();
        if self.run_len <= FOLD {
            self.steps.extend(run.map(|s| step(s, 1)));
        } else if let (Some(first), Some(last)) = (run.next(), run.next_back()) {
            self.steps.push(step(first, 1));
            self.steps.push(step(last, self.run_len as u64 - 1));
        }
        self.run_len = 0;
    }

    fn finish(mut self) -> Vec<PathStep> {
        self.flush();
        self.steps
    }
}

/// The view of object `target`, with up to `paths` paths from roots.
///
/// # Errors
/// As the reference scan ([`labelled_edges`]) of the objects it names.
pub fn retainer_view(heap: &Heap<'_>, target: ObjectIndex, paths: usize) -> Result<RetainerView, HeapError> {
    let n = heap.objects.len();
    let g = heap.graph;
    let distance = bfs(n, heap.roots.iter().map(|r| r.object), 1, |v| g.successors(v));
    let (offsets, sources) = predecessors(g, heap.live);
    let preds = |v: ObjectIndex| &sources[offsets[v as usize]..offsets[v as usize + 1]];

    let mut retainers: Vec<Retainer> = heap
        .roots
        .iter()
        .filter(|r| r.object == target)
        .map(|r| Retainer::Root(heap.root_label(r)))
        .collect();
    let mut from = preds(target).to_vec();
    from.dedup();
    from.sort_by_key(|&s| (distance[s as usize], s));
    for s in from {
        for (w, slot) in heap.edges(s)? {
            if w == target {
                retainers
                    .push(Retainer::Object { edge: heap.label(s, slot), object: heap.info(s, &distance) });
            }
        }
    }

    // Distance of every live object to the target, then one path per root object reaching
    // it: each step goes to the first successor one edge nearer.
    let to_target = bfs(n, [target], 0, preds);
    drop((offsets, sources));
    let mut starts: Vec<(u32, usize)> = Vec::new();
    let mut seen = vec![false; n];
    for (k, r) in heap.roots.iter().enumerate() {
        let o = r.object as usize;
        if to_target[o] != FAR && !core::mem::replace(&mut seen[o], true) {
            starts.push((to_target[o], k));
        }
    }
    starts.sort_unstable();
    let omitted_paths = starts.len().saturating_sub(paths) as u64;
    let mut out = Vec::new();
    for &(_, k) in starts.iter().take(paths) {
        let r = &heap.roots[k];
        let mut cur = r.object;
        let mut steps = Folder { heap, distance: &distance, steps: Vec::new(), run: Vec::new(), run_len: 0 };
        steps.push(None, cur);
        while cur != target {
            let want = to_target[cur as usize] - 1;
            let Some((w, slot)) = heap.edges(cur)?.into_iter().find(|&(w, _)| to_target[w as usize] == want)
            else {
                break;
            };
            steps.push(Some(heap.label(cur, slot)), w);
            cur = w;
        }
        out.push(RootPath { root: heap.root_label(r), steps: steps.finish() });
    }
    Ok(RetainerView { object: heap.info(target, &distance), retainers, paths: out, omitted_paths })
}

impl core::fmt::Display for EdgeLabel {
    /// `.name`, `[3]`, `key #2`, `value #2`, `element #2`, `#2.name`, `closure`, `slot 1`,
    /// `+8` (a payload offset), `@ 1234` (an address read), `@ ?`.
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            EdgeLabel::Field(name) => write!(f, ".{name}"),
            EdgeLabel::Element(i) => write!(f, "[{i}]"),
            EdgeLabel::MapKey(e) => write!(f, "key #{e}"),
            EdgeLabel::MapValue(e) => write!(f, "value #{e}"),
            EdgeLabel::SetElement(e) => write!(f, "element #{e}"),
            EdgeLabel::EntryField { entry, name } => write!(f, "#{entry}.{name}"),
            EdgeLabel::Closure => f.write_str("closure"),
            EdgeLabel::TupleSlot(i) => write!(f, "slot {i}"),
            EdgeLabel::Offset(k) => write!(f, "+{k}"),
            EdgeLabel::Read(Some(a)) => write!(f, "@ {a}"),
            EdgeLabel::Read(None) => f.write_str("@ ?"),
        }
    }
}

impl core::fmt::Display for RootLabel {
    /// `global NAME (global N)`, `stack word @ ADDRESS`, `pinned`.
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            RootLabel::Global { name, global_index } => write!(f, "global {name} (global {global_index})"),
            RootLabel::Stack { address } => write!(f, "stack word @ {address}"),
            RootLabel::Pinned => f.write_str("pinned"),
        }
    }
}

impl EdgeLabel {
    fn to_value(&self) -> serde_json::Value {
        use serde_json::json;
        match self {
            EdgeLabel::Field(name) => json!({"kind": "field", "name": name}),
            EdgeLabel::Element(i) => json!({"kind": "element", "index": i}),
            EdgeLabel::MapKey(e) => json!({"kind": "map-key", "entry": e}),
            EdgeLabel::MapValue(e) => json!({"kind": "map-value", "entry": e}),
            EdgeLabel::SetElement(e) => json!({"kind": "set-element", "entry": e}),
            EdgeLabel::EntryField { entry, name } => {
                json!({"kind": "entry-field", "entry": entry, "name": name})
            }
            EdgeLabel::Closure => json!({"kind": "closure"}),
            EdgeLabel::TupleSlot(i) => json!({"kind": "tuple-slot", "index": i}),
            EdgeLabel::Offset(k) => json!({"kind": "offset", "offset": k}),
            EdgeLabel::Read(a) => json!({"kind": "read", "address": a}),
        }
    }
}

impl RootLabel {
    fn to_value(&self) -> serde_json::Value {
        use serde_json::json;
        match self {
            RootLabel::Global { name, global_index } => {
                json!({"kind": "global", "name": name, "globalIndex": global_index})
            }
            RootLabel::Stack { address } => json!({"kind": "stack", "address": address}),
            RootLabel::Pinned => json!({"kind": "pinned"}),
        }
    }
}

impl ObjectInfo {
    fn to_value(&self) -> serde_json::Value {
        serde_json::json!({
            "address": self.address,
            "className": self.class_name,
            "shallowSize": self.shallow_size,
            "retainedSize": self.retained_size,
            "distance": self.distance,
        })
    }

    fn text(&self) -> String {
        alloc::format!("{} @ {}", self.class_name, self.address)
    }
}

impl RetainerView {
    /// The view as JSON (two-space indentation, no final newline), shape in docs/heap.md:
    /// `object`, `retainers` (`{"root": …}` or `{"edge": …, "object": …}`), `paths`
    /// (`root` and `steps` of `edge` and `object`) and `omittedPaths`; sizes in bytes.
    pub fn to_json(&self) -> String {
        let retainers: Vec<serde_json::Value> = self
            .retainers
            .iter()
            .map(|r| match r {
                Retainer::Root(root) => serde_json::json!({"root": root.to_value()}),
                Retainer::Object { edge, object } => {
                    serde_json::json!({"edge": edge.to_value(), "object": object.to_value()})
                }
            })
            .collect();
        let paths: Vec<serde_json::Value> = self
            .paths
            .iter()
            .map(|p| {
                let steps: Vec<serde_json::Value> = p
                    .steps
                    .iter()
                    .map(|s| {
                        serde_json::json!({
                            "edge": s.edge.as_ref().map(EdgeLabel::to_value),
                            "object": s.object.to_value(),
                            "repeat": s.repeat,
                        })
                    })
                    .collect();
                serde_json::json!({"root": p.root.to_value(), "steps": steps})
            })
            .collect();
        let v = serde_json::json!({
            "object": self.object.to_value(),
            "retainers": retainers,
            "paths": paths,
            "omittedPaths": self.omitted_paths,
        });
        serde_json::to_string_pretty(&v).expect("a value serializes")
    }

    /// The view for people: the object, its retainers as aligned columns (distance, retained
    /// and shallow size of the holder, the edge, the holder), then each path one step per
    /// line.
    pub fn to_table(&self) -> String {
        let o = &self.object;
        let distance = |d: Option<u64>| d.map_or_else(|| String::from("-"), |d| d.to_string());
        let mut out = alloc::format!(
            "object {}\nshallow {}, retained {}, distance {}\n",
            o.text(),
            size(o.shallow_size),
            size(o.retained_size),
            match o.distance {
                Some(d) => d.to_string(),
                None => String::from("none (garbage: no root reaches it)"),
            }
        );
        out.push_str(&alloc::format!("\nretainers: {}\n", self.retainers.len()));
        if !self.retainers.is_empty() {
            let mut rows =
                vec![["distance", "retained", "shallow", "edge", "held by"].map(String::from).to_vec()];
            for r in &self.retainers {
                rows.push(match r {
                    Retainer::Root(root) => {
                        vec!["0".into(), String::new(), String::new(), "root".into(), root.to_string()]
                    }
                    Retainer::Object { edge, object } => vec![
                        distance(object.distance),
                        size(object.retained_size),
                        size(object.shallow_size),
                        edge.to_string(),
                        object.text(),
                    ],
                });
            }
            out.push_str(&columns(&rows, 3));
        }
        let shown = self.paths.len() as u64;
        out.push_str(&alloc::format!("\npaths from roots: {} of {}\n", shown, shown + self.omitted_paths));
        for (k, p) in self.paths.iter().enumerate() {
            out.push_str(&alloc::format!("{}. {}\n", k + 1, p.root));
            for s in &p.steps {
                match &s.edge {
                    None => out.push_str(&alloc::format!("   {}\n", s.object.text())),
                    Some(e) if s.repeat > 1 => out.push_str(&alloc::format!(
                        "   {e} ×{} → {}\n",
                        super::text::grouped(s.repeat),
                        s.object.text()
                    )),
                    Some(e) => out.push_str(&alloc::format!("   {e} → {}\n", s.object.text())),
                }
            }
        }
        out
    }
}
