//! Chrome DevTools heap snapshots (docs/heap.md, "DevTools snapshots"): one analysed dump
//! written in the V8 heap snapshot format (`.heapsnapshot`: the `snapshot.meta` field
//! descriptions, flat `nodes` and `edges` arrays and a `strings` table), which DevTools'
//! Memory panel loads with "Load profile".
//!
//! The graph is the analysis's: node 0 is a synthetic root whose edges are the roots (globals
//! by name, shadow-stack words, pinned objects), then one node per live object in address
//! order with its edges in scan order, named like the retainers view. DevTools computes its
//! own distances, dominators and retained sizes from it, and they are ours: an object a root
//! holds is at distance 1 in both, and both trees hang from the same virtual root.

use alloc::collections::BTreeMap;
use alloc::string::String;
use alloc::vec::Vec;
use core::fmt::Write;

use super::HeapError;
use super::json::push_json_string;
use super::retainers::{EdgeLabel, Heap, RootLabel};
use super::tlsf::ObjectIndex;

/// V8's node types, in V8's order (the `type` field is an index into this list).
const NODE_TYPES: [&str; 15] = [
    "hidden",
    "array",
    "string",
    "object",
    "code",
    "closure",
    "regexp",
    "number",
    "native",
    "synthetic",
    "concatenated string",
    "sliced string",
    "symbol",
    "bigint",
    "object shape",
];
const STRING: usize = 2;
const OBJECT: usize = 3;
const SYNTHETIC: usize = 9;

/// V8's edge types, in V8's order.
const EDGE_TYPES: [&str; 7] = ["context", "element", "property", "internal", "hidden", "shortcut", "weak"];
const ELEMENT: usize = 1;
const PROPERTY: usize = 2;
const INTERNAL: usize = 3;

/// Fields per node: type, name, id, self_size, edge_count, trace_node_id, detachedness.
const NODE_FIELDS: usize = 7;

/// The class whose objects become `string` nodes named by their contents.
const STRING_CLASS: &str = "~lib/string/String";
/// String contents longer than this many UTF-16 code units are cut, with `…` appended.
pub const MAX_STRING_UNITS: usize = 256;

/// The node id of a live object: its payload address + 1. V8 gives JavaScript objects odd
/// ids and DevTools skips even ones in some views; payload addresses are multiples of 16, so
/// the ids are odd and distinct, and the same address in two dumps is the same id (DevTools'
/// Comparison view matches objects by id, as `diff` matches them by address).
pub fn node_id(address: u64) -> u64 {
    address + 1
}

/// The id of the synthetic root node.
pub const ROOT_ID: u64 = 1;

/// The strings table, each string once.
#[derive(Default)]
struct Strings {
    index: BTreeMap<String, u32>,
    list: Vec<String>,
}

impl Strings {
    fn get(&mut self, s: &str) -> u32 {
        if let Some(&i) = self.index.get(s) {
            return i;
        }
        let i = self.list.len() as u32;
        self.list.push(s.into());
        self.index.insert(s.into(), i);
        i
    }
}

/// The contents of an AssemblyScript string (UTF-16LE payload of `rt_size` bytes), cut at
/// [`MAX_STRING_UNITS`] code units; unpaired surrogates become U+FFFD.
fn string_contents(memory: &[u8], payload: u64, rt_size: u32) -> String {
    let start = usize::try_from(payload).unwrap_or(usize::MAX);
    let units = (rt_size as usize / 2).min(MAX_STRING_UNITS + 1);
    let bytes = memory.get(start..).unwrap_or(&[]);
    let code_units =
        bytes.chunks_exact(2).take(units.min(MAX_STRING_UNITS)).map(|b| u16::from_le_bytes([b[0], b[1]]));
    let mut s: String = char::decode_utf16(code_units).map(|c| c.unwrap_or('\u{fffd}')).collect();
    if units > MAX_STRING_UNITS {
        s.push('…');
    }
    s
}

/// Type and name of an edge for its label: fields are `property` edges, array and tuple
/// slots `element` edges by index, entries and the closure environment `internal` edges
/// named as in the retainers table (`value #2`, `context`).
fn edge_kind(label: &EdgeLabel, strings: &mut Strings) -> (usize, u64) {
    match label {
        EdgeLabel::Field(name) => (PROPERTY, u64::from(strings.get(name))),
        EdgeLabel::Element(i) | EdgeLabel::TupleSlot(i) => (ELEMENT, *i),
        EdgeLabel::Closure => (INTERNAL, u64::from(strings.get("context"))),
        other => (INTERNAL, u64::from(strings.get(&alloc::format!("{other}")))),
    }
}

/// The name of a root edge: the global's name, `stack word @ ADDRESS`, `pinned`.
fn root_edge_name(root: &RootLabel) -> String {
    match root {
        RootLabel::Global { name, .. } => name.clone(),
        other => alloc::format!("{other}"),
    }
}

/// Writes the snapshot of `heap` to `out`.
///
/// # Errors
/// [`HeapError::Write`] when `out` fails; the reference scan's errors (which cannot happen
/// for a heap whose graph was built, as the same scan built it).
pub fn write_heapsnapshot(heap: &Heap<'_>, out: &mut impl Write) -> Result<(), HeapError> {
    write(heap, out).map_err(|e| match e {
        Failure::Heap(h) => h,
        Failure::Write => HeapError::Write,
    })
}

enum Failure {
    Heap(HeapError),
    Write,
}

impl From<core::fmt::Error> for Failure {
    fn from(_: core::fmt::Error) -> Failure {
        Failure::Write
    }
}

impl From<HeapError> for Failure {
    fn from(e: HeapError) -> Failure {
        Failure::Heap(e)
    }
}

fn write(heap: &Heap<'_>, out: &mut impl Write) -> Result<(), Failure> {
    let n = heap.objects.len();
    // Node ordinal of every live object (0 is the root).
    let mut ordinal = alloc::vec![u32::MAX; n];
    let mut live_count = 0u32;
    let mut edge_count = heap.roots.len() as u64;
    for (i, o) in ordinal.iter_mut().enumerate() {
        if heap.live[i] {
            live_count += 1;
            *o = live_count;
            edge_count += heap.graph.successors(i as ObjectIndex).len() as u64;
        }
    }
    let mut strings = Strings::default();
    let list = |items: &[&str]| -> String {
        let mut s = String::new();
        for (k, item) in items.iter().enumerate() {
            if k > 0 {
                s.push(',');
            }
            push_json_string(&mut s, item);
        }
        s
    };
    write!(
        out,
        "{{\"snapshot\":{{\"meta\":{{\"node_fields\":[\"type\",\"name\",\"id\",\"self_size\",\"edge_count\",\
         \"trace_node_id\",\"detachedness\"],\"node_types\":[[{}],\"string\",\"number\",\"number\",\"number\",\
         \"number\",\"number\"],\"edge_fields\":[\"type\",\"name_or_index\",\"to_node\"],\"edge_types\":[[{}],\
         \"string_or_number\",\"node\"],\"trace_function_info_fields\":[\"function_id\",\"name\",\"script_name\",\
         \"script_id\",\"line\",\"column\"],\"trace_node_fields\":[\"id\",\"function_info_index\",\"count\",\
         \"size\",\"children\"],\"sample_fields\":[\"timestamp_us\",\"last_assigned_id\"],\"location_fields\":\
         [\"object_index\",\"script_id\",\"line\",\"column\"]}},\"node_count\":{},\"edge_count\":{},\
         \"trace_function_count\":0}},\n\"nodes\":[",
        list(&NODE_TYPES),
        list(&EDGE_TYPES),
        u64::from(live_count) + 1,
        edge_count
    )?;

    // Nodes: the root, then the live objects.
    let root_name = strings.get("(GC roots)");
    write!(out, "{SYNTHETIC},{root_name},{ROOT_ID},0,{},0,0", heap.roots.len())?;
    for (i, o) in heap.objects.iter().enumerate() {
        if !heap.live[i] {
            continue;
        }
        let class = heap.info.class_name(o.rtid);
        let (ty, name) = if class == STRING_CLASS {
            (STRING, strings.get(&string_contents(heap.memory, o.payload, o.rt_size)))
        } else {
            (OBJECT, strings.get(&class))
        };
        write!(
            out,
            ",\n{ty},{name},{},{},{},0,0",
            node_id(o.payload),
            heap.shallow[i],
            heap.graph.successors(i as ObjectIndex).len()
        )?;
    }

    // Edges: the root's, then each live object's in scan order, named by the labelled scan.
    out.write_str("],\n\"edges\":[")?;
    let mut first = true;
    let mut sep = |out: &mut dyn Write| -> core::fmt::Result {
        let s = if first { "" } else { ",\n" };
        first = false;
        out.write_str(s)
    };
    for r in heap.roots {
        let name = strings.get(&root_edge_name(&heap.root_label(r)));
        sep(out)?;
        write!(out, "{PROPERTY},{name},{}", ordinal[r.object as usize] as usize * NODE_FIELDS)?;
    }
    for i in 0..n {
        if !heap.live[i] {
            continue;
        }
        let v = i as ObjectIndex;
        let slots = heap.edges(v)?;
        for (k, &w) in heap.graph.successors(v).iter().enumerate() {
            let (ty, name) = match slots.get(k) {
                Some(&(_, slot)) => edge_kind(&heap.label(v, slot), &mut strings),
                None => (INTERNAL, u64::from(strings.get("?"))),
            };
            sep(out)?;
            write!(out, "{ty},{name},{}", ordinal[w as usize] as usize * NODE_FIELDS)?;
        }
    }
    out.write_str("],\n\"trace_function_infos\":[],\n\"trace_tree\":[],\n\"samples\":[],\n\"locations\":[],\n\"strings\":[")?;
    let mut buf = String::new();
    for (k, s) in strings.list.iter().enumerate() {
        buf.clear();
        if k > 0 {
            buf.push_str(",\n");
        }
        push_json_string(&mut buf, s);
        out.write_str(&buf)?;
    }
    out.write_str("]}\n")?;
    Ok(())
}
