//! Class layouts and global-root metadata (docs/heap.md, "Class layouts"): the [`Dies`] table
//! in, a [`DebugInfo`] out: layouts indexed by runtime class id (rtId), with inherited fields
//! flattened in, Map/Set entry layouts attached, and the global variables that can hold
//! objects.

use alloc::collections::{BTreeMap, BTreeSet};
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use super::dwarf::{
    DieIndex, Dies, NO_DIE, TAG_BASE_TYPE, TAG_CLASS_TYPE, TAG_INHERITANCE, TAG_MEMBER,
    TAG_TEMPLATE_TYPE_PARAMETER, TAG_VARIABLE,
};

/// The library types whose payload is scanned specially (docs/heap.md, "References").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BuiltinKind {
    /// `~lib/array/Array<…>`: elements at `dataStart + 4i` for `i < length_`.
    Array,
    /// `~lib/staticarray/StaticArray<…>`: elements in the payload.
    StaticArray,
    /// `~lib/map/Map<…>` or `~lib/set/Set<…>`: entries in the `entries` buffer.
    MapOrSet,
    /// `~lib/function/Function<…>`: the closure environment `_env`.
    Function,
    /// `~lib/tuple/SmallTuple`: slots flagged by a trailing 64-bit bitmap.
    SmallTuple,
}

impl BuiltinKind {
    /// The kind of a class name (first match wins), `None` for ordinary classes.
    pub fn of(name: &str) -> Option<BuiltinKind> {
        if name.starts_with("~lib/array/Array<") {
            Some(BuiltinKind::Array)
        } else if name.starts_with("~lib/staticarray/StaticArray<") {
            Some(BuiltinKind::StaticArray)
        } else if name.starts_with("~lib/map/Map<") || name.starts_with("~lib/set/Set<") {
            Some(BuiltinKind::MapOrSet)
        } else if name.starts_with("~lib/function/Function<") {
            Some(BuiltinKind::Function)
        } else if name == "~lib/tuple/SmallTuple" {
            Some(BuiltinKind::SmallTuple)
        } else {
            None
        }
    }
}

/// One field of a class layout.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Field {
    /// `DW_AT_name` of the member.
    pub name: String,
    /// Name of the field's type DIE.
    pub type_name: String,
    /// Offset in the payload, in bytes (`DW_AT_data_member_location`).
    pub offset: u64,
    /// Size in bytes: the type DIE's `DW_AT_byte_size`, else 4.
    pub size: u64,
    /// Whether the type is not a base type of the unit (so the field holds a pointer).
    pub is_reference: bool,
}

/// The own fields of one class (`DW_TAG_member` children, in DIE order) and the node of the
/// class it inherits from: [`DebugInfo::fields`] holds one node per class, so a hierarchy
/// costs memory linear in its members however deep it is (a flattened copy per class would
/// be quadratic in the depth of a chain).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FieldNode {
    /// The class's own fields.
    pub own: Vec<Field>,
    /// Index in [`DebugInfo::fields`] of the parent class's node. Resolution
    /// never links a cycle (a class whose base is on its own chain gets none).
    pub base: Option<u32>,
}

/// A reference field of a Map or Set entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EntryField {
    /// Offset in the entry, in bytes.
    pub offset: u64,
    /// `DW_AT_name` of the member: `key` or `value` in AssemblyScript's entries.
    pub name: String,
}

/// The entry layout of a Map or Set.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EntryLayout {
    /// The entry's reference fields other than `taggedNext`, in field order.
    pub references: Vec<EntryField>,
    /// Entry stride in bytes (the entry class's byte size, else its field extent); non-zero.
    pub size: u64,
}

/// The layout of one runtime class.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClassLayout {
    /// Runtime class id (`DW_AT_signature`).
    pub rtid: u64,
    /// Internal class name, e.g. `~lib/string/String`.
    pub name: String,
    /// Index in [`DebugInfo::fields`] of its fields' node; [`DebugInfo::chain`] lists them
    /// with the inherited ones first.
    pub fields: u32,
    /// Name of the parent class, if the class has a resolvable `DW_TAG_inheritance`.
    pub base: Option<String>,
    /// `DW_AT_byte_size` of the class, else the extent of its own fields, in bytes.
    pub byte_size: u64,
    /// Name of the first template argument's type, if resolvable.
    pub template_type: Option<String>,
    /// Whether the first template argument is a reference (named, not a base type).
    pub template_is_reference: bool,
    /// Special scanning kind.
    pub kind: Option<BuiltinKind>,
    /// For Map/Set: the entry layout, when the entry class exists and has a size.
    pub entry: Option<EntryLayout>,
}

/// A global variable whose value is a candidate root.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GlobalCandidate {
    /// Internal name of the global.
    pub name: String,
    /// Name of its class.
    pub class_name: String,
    /// Wasm global index (`DW_AT_location`).
    pub index: u64,
}

/// What the analysis needs from the debug info.
#[derive(Debug, Clone, Default)]
pub struct DebugInfo {
    /// Kept layouts (rtId ≠ 0 or `~lib/object/Object`), by rtId.
    pub layouts: BTreeMap<u64, ClassLayout>,
    /// Global variables typed with a kept class, in DIE order.
    pub globals: Vec<GlobalCandidate>,
    /// The field nodes of all classes (kept or not: a kept class may inherit from one that is
    /// not), linked parent to child.
    pub fields: Vec<FieldNode>,
}

impl DebugInfo {
    /// The class name of an rtId: the layout's name or `Class#<rtId>`.
    pub fn class_name(&self, rtid: u32) -> String {
        match self.layouts.get(&u64::from(rtid)) {
            Some(l) => l.name.clone(),
            None => format!("Class#{rtid}"),
        }
    }

    /// The field nodes of `layout` and its ancestors into `out` (cleared first), oldest
    /// ancestor first: their `own` fields in this order are the class's fields.
    /// Iterative, for chains of any depth; a cycle (only in a hand-built `DebugInfo`) ends
    /// after one node per class.
    pub fn chain(&self, layout: &ClassLayout, out: &mut Vec<u32>) {
        chain(&self.fields, layout.fields, out);
    }

    /// Resolves layouts and global candidates from all units.
    pub fn resolve(dies: &Dies) -> DebugInfo {
        let d = &dies.dies;
        let name_of =
            |offset: Option<u64>| offset.and_then(|o| dies.at_offset(o)).and_then(|t| t.name.as_deref());
        // Base-type names per unit root.
        let mut base_types: BTreeMap<DieIndex, BTreeSet<&str>> = BTreeMap::new();
        for die in d.iter().filter(|x| x.tag == TAG_BASE_TYPE) {
            if let Some(n) = &die.name {
                base_types.entry(die.unit_root).or_default().insert(n);
            }
        }
        let empty = BTreeSet::new();
        let is_base =
            |die_unit: DieIndex, name: &str| base_types.get(&die_unit).unwrap_or(&empty).contains(name);

        // Class layouts, in one pre-order pass: a class DIE precedes its children.
        let mut layouts: Vec<ClassLayout> = Vec::new();
        // Per layout: its own fields, until `flatten` links them into chains.
        let mut own: Vec<Vec<Field>> = Vec::new();
        let mut layout_of: BTreeMap<DieIndex, usize> = BTreeMap::new();
        let mut seen_inheritance = Vec::new();
        let mut seen_template = Vec::new();
        let mut has_size = Vec::new();
        for (i, die) in d.iter().enumerate() {
            match die.tag {
                TAG_CLASS_TYPE => {
                    if let (Some(name), Some(rtid)) = (&die.name, die.signature) {
                        layout_of.insert(i as DieIndex, layouts.len());
                        layouts.push(ClassLayout {
                            rtid,
                            name: name.clone(),
                            fields: layouts.len() as u32,
                            base: None,
                            byte_size: die.byte_size.unwrap_or(0),
                            template_type: None,
                            template_is_reference: false,
                            kind: BuiltinKind::of(name),
                            entry: None,
                        });
                        own.push(Vec::new());
                        seen_inheritance.push(false);
                        seen_template.push(false);
                        has_size.push(die.byte_size.is_some());
                    }
                }
                TAG_MEMBER | TAG_INHERITANCE | TAG_TEMPLATE_TYPE_PARAMETER if die.parent != NO_DIE => {
                    let Some(&l) = layout_of.get(&die.parent) else { continue };
                    let layout = &mut layouts[l];
                    if die.tag == TAG_MEMBER {
                        let (Some(name), Some(offset), Some(ty)) =
                            (&die.name, die.data_member_location, die.type_ref)
                        else {
                            continue;
                        };
                        let Some(t) = dies.at_offset(ty) else { continue };
                        let Some(type_name) = &t.name else { continue };
                        own[l].push(Field {
                            name: name.clone(),
                            type_name: type_name.clone(),
                            offset,
                            size: t.byte_size.unwrap_or(4),
                            is_reference: !is_base(die.unit_root, type_name),
                        });
                    } else if die.tag == TAG_INHERITANCE {
                        if !seen_inheritance[l] {
                            seen_inheritance[l] = true;
                            layout.base = name_of(die.type_ref).map(String::from);
                        }
                    } else if !seen_template[l] && die.type_ref.is_some() {
                        seen_template[l] = true;
                        let n = name_of(die.type_ref);
                        layout.template_type = n.map(String::from);
                        layout.template_is_reference = n.is_some_and(|n| !is_base(die.unit_root, n));
                    }
                }
                _ => {}
            }
        }
        // byteSize from own fields when the class has no DW_AT_byte_size (0 counts as absent
        // only for entry strides).
        for ((l, has_size), own) in layouts.iter_mut().zip(has_size).zip(&own) {
            if !has_size {
                l.byte_size = own.iter().map(|f| f.offset.saturating_add(f.size)).max().unwrap_or(0);
            }
        }
        let fields = link(&layouts, own);
        attach_entries(&mut layouts, &fields);

        // Drop the classes of id 0 but Object; index by id.
        let mut out = DebugInfo { fields, ..DebugInfo::default() };
        for l in layouts {
            if l.rtid != 0 || l.name == "~lib/object/Object" {
                out.layouts.insert(l.rtid, l);
            }
        }
        // Global candidates: direct children of unit roots.
        let kept: BTreeSet<&str> = out.layouts.values().map(|l| l.name.as_str()).collect();
        let mut globals = Vec::new();
        for die in d.iter().filter(|x| x.tag == TAG_VARIABLE && x.parent != NO_DIE && x.parent == x.unit_root)
        {
            let (Some(name), Some(index)) = (&die.name, die.location) else { continue };
            let Some(type_name) = die.type_ref.and(name_of(die.type_ref)) else { continue };
            if kept.contains(type_name) {
                globals.push(GlobalCandidate { name: name.clone(), class_name: type_name.into(), index });
            }
        }
        out.globals = globals;
        out
    }
}

/// `fields = parent.fields ++ own fields`, parents first, iteratively (no
/// recursion, so a long or cyclic inheritance chain in broken DWARF is harmless: a class whose
/// base is on its own chain keeps its own fields). Instead of copying the parent's fields,
/// each class's node (same index as its layout) links to its parent's.
fn link(layouts: &[ClassLayout], own: Vec<Vec<Field>>) -> Vec<FieldNode> {
    let by_name: BTreeMap<String, usize> =
        layouts.iter().enumerate().map(|(i, l)| (l.name.clone(), i)).collect();
    let base_of: Vec<Option<usize>> =
        layouts.iter().map(|l| l.base.as_ref().and_then(|b| by_name.get(b).copied())).collect();
    let mut nodes: Vec<FieldNode> = own.into_iter().map(|own| FieldNode { own, base: None }).collect();
    // 0 = pending, 1 = on the current chain, 2 = linked.
    let mut state = alloc::vec![0u8; layouts.len()];
    let mut chain = Vec::new();
    for start in 0..layouts.len() {
        if state[start] == 2 {
            continue;
        }
        chain.clear();
        let mut cur = start;
        loop {
            state[cur] = 1;
            chain.push(cur);
            match base_of[cur] {
                Some(b) if state[b] == 0 => cur = b,
                _ => break,
            }
        }
        for &c in chain.iter().rev() {
            nodes[c].base = base_of[c].filter(|&b| state[b] == 2).map(|b| b as u32);
            state[c] = 2;
        }
    }
    nodes
}

/// [`DebugInfo::chain`] over `nodes`, from node `node`.
fn chain(nodes: &[FieldNode], node: u32, out: &mut Vec<u32>) {
    out.clear();
    let mut n = Some(node);
    while let Some(i) = n
        && out.len() <= nodes.len()
    {
        out.push(i);
        n = nodes.get(i as usize).and_then(|f| f.base);
    }
    out.reverse();
}

/// The entry layout of each Map/Set from the class named `~lib/map/MapEntry<…>`
/// or `~lib/set/SetEntry<…>` (the last one of that name).
fn attach_entries(layouts: &mut [ClassLayout], nodes: &[FieldNode]) {
    let mut links = Vec::new();
    let by_name: BTreeMap<String, usize> =
        layouts.iter().enumerate().map(|(i, l)| (l.name.clone(), i)).collect();
    for i in 0..layouts.len() {
        if layouts[i].kind != Some(BuiltinKind::MapOrSet) {
            continue;
        }
        let name = &layouts[i].name;
        let entry_name = if let Some(rest) = name.strip_prefix("~lib/map/Map<") {
            format!("~lib/map/MapEntry<{rest}")
        } else if let Some(rest) = name.strip_prefix("~lib/set/Set<") {
            format!("~lib/set/SetEntry<{rest}")
        } else {
            continue;
        };
        let Some(&e) = by_name.get(&entry_name) else { continue };
        let entry = &layouts[e];
        chain(nodes, entry.fields, &mut links);
        let fields = || links.iter().flat_map(|&n| &nodes[n as usize].own);
        let references = fields()
            .filter(|f| f.is_reference && f.name != "taggedNext")
            .map(|f| EntryField { offset: f.offset, name: f.name.clone() })
            .collect();
        let size = if entry.byte_size != 0 {
            entry.byte_size
        } else {
            fields().map(|f| f.offset.saturating_add(f.size)).max().unwrap_or(0)
        };
        if size != 0 {
            layouts[i].entry = Some(EntryLayout { references, size });
        }
    }
}
