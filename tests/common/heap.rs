//! Fixtures of the heap analyzer's tests (docs/heap.md, "Test heaps", and more), built in code:
//!
//! * [`syn_wasm`]: the 235-byte `syn.wasm` (and `syn_g.wasm` with its one global),
//!   byte for byte as the spec lists it, with WARPO's abbreviation codes 1, 2, 4, 5, 8;
//! * [`DwarfSpec`] / [`wasm_with_dwarf`]: WARPO-shaped DWARF written with `gimli::write` into a
//!   module built with `wasm-encoder`;
//! * [`HeapBuilder`]: a memory image laid out like the AssemblyScript incremental runtime
//!   (docs/heap.md, "The heap walk"): TLSF blocks from `R + 1580`, object headers, a free block and
//!   the tail sentinel;
//! * the memory and dumps of the test heap and the expected JSON of S1–S3, written by hand.
#![allow(dead_code)]

use gimli::write::{AttributeValue, DwarfUnit, EndianVec, Sections, UnitEntryId};
use qip_memory::heap::dump::write_dump;

/// Appends an unsigned LEB128.
pub fn uleb(out: &mut Vec<u8>, mut v: u64) {
    loop {
        let b = (v & 0x7f) as u8;
        v >>= 7;
        if v == 0 {
            out.push(b);
            return;
        }
        out.push(b | 0x80);
    }
}

/// A custom section (id 0) with `name` and `data`.
pub fn custom_section(name: &str, data: &[u8]) -> Vec<u8> {
    let mut content = Vec::new();
    uleb(&mut content, name.len() as u64);
    content.extend_from_slice(name.as_bytes());
    content.extend_from_slice(data);
    let mut out = vec![0];
    uleb(&mut out, content.len() as u64);
    out.extend(content);
    out
}

/// `debug_abbrev` of `syn.wasm`: codes 1 (compile_unit), 2 (class with signature), 4 (member),
/// 5 (base_type), 8 (global variable), then 0.
pub const SYN_ABBREV: &[u8] = &[
    0x01, 0x11, 0x01, 0x25, 0x0e, 0x00, 0x00, // 1: compile_unit, children, producer strp
    0x02, 0x02, 0x01, 0x03, 0x08, 0x69, 0x06, 0x00,
    0x00, // 2: class_type, children, name string, signature data4
    0x04, 0x0d, 0x00, 0x03, 0x08, 0x49, 0x13, 0x38, 0x06, 0x00,
    0x00, // 4: member, name, type ref4, data_member_location data4
    0x05, 0x24, 0x00, 0x03, 0x08, 0x00, 0x00, // 5: base_type, name
    0x08, 0x34, 0x00, 0x03, 0x08, 0x49, 0x13, 0x02, 0x06, 0x00,
    0x00, // 8: variable, name, type ref4, location data4
    0x00,
];

fn cstr(out: &mut Vec<u8>, s: &str) {
    out.extend_from_slice(s.as_bytes());
    out.push(0);
}

/// `debug_info` of `syn.wasm` with DIEs at offsets 11 (CU), 16 (`i32`), 21 (ArrayBuffer, rtId 1),
/// 56 (`x/TreeNode`, rtId 4, members value→16 @0, left→`left_type` @4, right→56 @8),
/// 117 (`x/root` → 56, location 0). `left_type` is 56 in the spec; tests use other values
/// for dangling references.
pub fn syn_debug_info(left_type: u32) -> Vec<u8> {
    let mut d = Vec::new();
    d.push(1); // CU
    d.extend_from_slice(&0u32.to_le_bytes()); // producer → debug_str 0 ("warpo")
    assert_eq!(d.len() + 11, 16);
    d.push(5);
    cstr(&mut d, "i32");
    assert_eq!(d.len() + 11, 21);
    d.push(2);
    cstr(&mut d, "~lib/arraybuffer/ArrayBuffer");
    d.extend_from_slice(&1u32.to_le_bytes());
    d.push(0); // end of its (empty) children
    assert_eq!(d.len() + 11, 56);
    d.push(2);
    cstr(&mut d, "x/TreeNode");
    d.extend_from_slice(&4u32.to_le_bytes());
    for (name, ty, at) in [("value", 16u32, 0u32), ("left", left_type, 4), ("right", 56, 8)] {
        d.push(4);
        cstr(&mut d, name);
        d.extend_from_slice(&ty.to_le_bytes());
        d.extend_from_slice(&at.to_le_bytes());
    }
    d.push(0);
    assert_eq!(d.len() + 11, 117);
    d.push(8);
    cstr(&mut d, "x/root");
    d.extend_from_slice(&56u32.to_le_bytes());
    d.extend_from_slice(&0u32.to_le_bytes());
    d.push(0);
    let mut unit = Vec::new();
    unit.extend_from_slice(&(7 + d.len() as u32).to_le_bytes()); // unit_length
    unit.extend_from_slice(&4u16.to_le_bytes()); // version
    unit.extend_from_slice(&0u32.to_le_bytes()); // debug_abbrev_offset
    unit.push(4); // address_size
    unit.extend(d);
    unit
}

/// The wasm header.
pub const WASM_HEADER: &[u8] = b"\0asm\x01\0\0\0";

/// The global section of `syn_g.wasm`: one `(mut i32) (i32.const 0)`.
pub const SYN_GLOBAL_SECTION: &[u8] = &[0x06, 0x06, 0x01, 0x7f, 0x01, 0x41, 0x00, 0x0b];

/// `syn.wasm` (`with_global` false, 235 bytes) or `syn_g.wasm`.
pub fn syn_wasm(with_global: bool) -> Vec<u8> {
    syn_wasm_with(with_global, &syn_debug_info(56))
}

/// `syn.wasm`/`syn_g.wasm` with another `debug_info`.
pub fn syn_wasm_with(with_global: bool, debug_info: &[u8]) -> Vec<u8> {
    let mut w = WASM_HEADER.to_vec();
    if with_global {
        w.extend_from_slice(SYN_GLOBAL_SECTION);
    }
    w.extend(custom_section("debug_abbrev", SYN_ABBREV));
    w.extend(custom_section("debug_str", b"warpo\0"));
    w.extend(custom_section("debug_info", debug_info));
    w
}

/// One class DIE for [`DwarfSpec`].
pub struct ClassSpec<'a> {
    /// Internal name.
    pub name: &'a str,
    /// `DW_AT_signature` (rtId); `None` = no signature (WARPO's abbreviation 3).
    pub rtid: Option<u32>,
    /// Parent class name (an inheritance DIE).
    pub base: Option<&'a str>,
    /// Own fields: (name, type name, offset).
    pub fields: &'a [(&'a str, &'a str, u32)],
    /// Template argument type names.
    pub templates: &'a [&'a str],
    /// `DW_AT_byte_size` (data4).
    pub byte_size: Option<u32>,
}

/// A WARPO-shaped compile unit: base types, classes, global variables.
pub struct DwarfSpec<'a> {
    /// Base type names.
    pub base_types: &'a [&'a str],
    /// Classes, in order.
    pub classes: &'a [ClassSpec<'a>],
    /// Global variables: (name, type name, global index).
    pub globals: &'a [(&'a str, &'a str, u32)],
}

/// The three sections (`debug_abbrev`, `debug_info`, `debug_str`) of `spec`, written with
/// `gimli::write` (DWARF 4, 32-bit, address size 4, producer `warpo` at `debug_str` 0).
pub fn dwarf_sections(spec: &DwarfSpec<'_>) -> [Vec<u8>; 3] {
    let encoding = gimli::Encoding { format: gimli::Format::Dwarf32, version: 4, address_size: 4 };
    let mut dwarf = DwarfUnit::new(encoding);
    let producer = dwarf.strings.add("warpo");
    let root = dwarf.unit.root();
    dwarf.unit.get_mut(root).set(gimli::DW_AT_producer, AttributeValue::StringRef(producer));
    let mut by_name: Vec<(String, UnitEntryId)> = Vec::new();
    for b in spec.base_types {
        let id = dwarf.unit.add(root, gimli::DW_TAG_base_type);
        dwarf.unit.get_mut(id).set(gimli::DW_AT_name, AttributeValue::String(b.as_bytes().to_vec()));
        by_name.push((b.to_string(), id));
    }
    let mut class_ids = Vec::new();
    for c in spec.classes {
        let id = dwarf.unit.add(root, gimli::DW_TAG_class_type);
        let e = dwarf.unit.get_mut(id);
        e.set(gimli::DW_AT_name, AttributeValue::String(c.name.as_bytes().to_vec()));
        if let Some(r) = c.rtid {
            e.set(gimli::DW_AT_signature, AttributeValue::Data4(r));
        }
        if let Some(s) = c.byte_size {
            e.set(gimli::DW_AT_byte_size, AttributeValue::Data4(s));
        }
        by_name.push((c.name.to_string(), id));
        class_ids.push(id);
    }
    let lookup = |n: &str| by_name.iter().rev().find(|(k, _)| k == n).map(|(_, id)| *id).expect(n);
    for (c, &id) in spec.classes.iter().zip(&class_ids) {
        if let Some(b) = c.base {
            let t = lookup(b);
            let i = dwarf.unit.add(id, gimli::DW_TAG_inheritance);
            dwarf.unit.get_mut(i).set(gimli::DW_AT_type, AttributeValue::UnitRef(t));
        }
        for (name, ty, at) in c.fields {
            let t = lookup(ty);
            let m = dwarf.unit.add(id, gimli::DW_TAG_member);
            let e = dwarf.unit.get_mut(m);
            e.set(gimli::DW_AT_name, AttributeValue::String(name.as_bytes().to_vec()));
            e.set(gimli::DW_AT_type, AttributeValue::UnitRef(t));
            e.set(gimli::DW_AT_data_member_location, AttributeValue::Data4(*at));
        }
        for ty in c.templates {
            let t = lookup(ty);
            let p = dwarf.unit.add(id, gimli::DW_TAG_template_type_parameter);
            dwarf.unit.get_mut(p).set(gimli::DW_AT_type, AttributeValue::UnitRef(t));
        }
    }
    for (name, ty, index) in spec.globals {
        let t = lookup(ty);
        let v = dwarf.unit.add(root, gimli::DW_TAG_variable);
        let e = dwarf.unit.get_mut(v);
        e.set(gimli::DW_AT_name, AttributeValue::String(name.as_bytes().to_vec()));
        e.set(gimli::DW_AT_type, AttributeValue::UnitRef(t));
        e.set(gimli::DW_AT_location, AttributeValue::Data4(*index));
    }
    let mut sections = Sections::new(EndianVec::new(gimli::LittleEndian));
    dwarf.write(&mut sections).unwrap();
    [
        sections.debug_abbrev.slice().to_vec(),
        sections.debug_info.slice().to_vec(),
        sections.debug_str.slice().to_vec(),
    ]
}

/// A module built with `wasm-encoder`: `globals` = (is mutable, i32 init) i32 globals, then
/// the DWARF of `spec` as custom sections.
pub fn wasm_with_dwarf(spec: &DwarfSpec<'_>, globals: &[(bool, i32)]) -> Vec<u8> {
    use wasm_encoder::{ConstExpr, CustomSection, GlobalSection, GlobalType, Module, ValType};
    let mut m = Module::new();
    if !globals.is_empty() {
        let mut g = GlobalSection::new();
        for &(mutable, init) in globals {
            g.global(
                GlobalType { val_type: ValType::I32, mutable, shared: false },
                &ConstExpr::i32_const(init),
            );
        }
        m.section(&g);
    }
    let [abbrev, info, strs] = dwarf_sections(spec);
    for (name, data) in [("debug_abbrev", abbrev), ("debug_info", info), ("debug_str", strs)] {
        m.section(&CustomSection { name: name.into(), data: data.into() });
    }
    m.finish()
}

/// The DWARF of `syn.wasm` written with `gimli::write` (other abbreviation codes and
/// offsets than WARPO's, same meaning).
pub fn syn_spec() -> DwarfSpec<'static> {
    DwarfSpec {
        base_types: &["i32"],
        classes: &[
            ClassSpec {
                name: "~lib/arraybuffer/ArrayBuffer",
                rtid: Some(1),
                base: None,
                fields: &[],
                templates: &[],
                byte_size: None,
            },
            ClassSpec {
                name: "x/TreeNode",
                rtid: Some(4),
                base: None,
                fields: &[("value", "i32", 0), ("left", "x/TreeNode", 4), ("right", "x/TreeNode", 8)],
                templates: &[],
                byte_size: None,
            },
        ],
        globals: &[("x/root", "x/TreeNode", 0)],
    }
}

/// Lays out TLSF blocks and objects like the AssemblyScript incremental runtime.
pub struct HeapBuilder {
    /// The memory image.
    pub memory: Vec<u8>,
    /// Address of the next block.
    pub cursor: u32,
}

impl HeapBuilder {
    /// An image of `len` zero bytes whose first block is at `R + 1580`, `R = align16(heap_base)`.
    pub fn new(len: usize, heap_base: u32) -> HeapBuilder {
        let r = (heap_base + 15) & !15;
        HeapBuilder { memory: vec![0; len], cursor: r + 1580 }
    }

    /// Writes a little-endian u32.
    pub fn set(&mut self, addr: u32, v: u32) {
        self.memory[addr as usize..addr as usize + 4].copy_from_slice(&v.to_le_bytes());
    }

    /// Reads a little-endian u32.
    pub fn get(&self, addr: u32) -> u32 {
        u32::from_le_bytes(self.memory[addr as usize..addr as usize + 4].try_into().unwrap())
    }

    /// Allocates an object with payload size `rt_size` (block size `max(12, align16(16 + n +
    /// 4) − 4)`) and returns its payload pointer.
    pub fn alloc(&mut self, rtid: u32, rt_size: u32, color: u32) -> u32 {
        let size = (((16 + rt_size + 4 + 15) & !15) - 4).max(12);
        self.alloc_block(size, rtid, rt_size, color)
    }

    /// Allocates a used block of exactly `size` bytes (after `mmInfo`).
    pub fn alloc_block(&mut self, size: u32, rtid: u32, rt_size: u32, color: u32) -> u32 {
        let b = self.cursor;
        self.set(b, size);
        self.set(b + 4, color);
        self.set(b + 12, rtid);
        self.set(b + 16, rt_size);
        self.cursor = b + 4 + size;
        b + 20
    }

    /// Ends the heap: one free block up to `len − 4`, the tail sentinel (mmInfo 2) at `len − 4`.
    pub fn finish(mut self) -> Vec<u8> {
        let len = self.memory.len() as u32;
        let b = self.cursor;
        if b + 4 < len - 4 {
            self.set(b, (len - 4 - b - 4) | 1);
        }
        self.set(len - 4, 2);
        self.memory
    }
}

/// The memory image of the test heap (65,536 bytes, heapBase 1024): TreeNodes A (2624, left = B),
/// B (2656), D (2720, left = A), pinned ArrayBuffer C (2688), a free block from 2732 and the
/// tail at 65532; shadow-stack words [1016] = 0, [1020] = 2624.
pub fn syn_memory() -> Vec<u8> {
    let mut h = HeapBuilder::new(65536, 1024);
    assert_eq!(h.cursor, 2604);
    let a = h.alloc(4, 12, 0);
    let b = h.alloc(4, 12, 0);
    let c = h.alloc(1, 8, 3);
    let d = h.alloc(4, 12, 0);
    assert_eq!((a, b, c, d), (2624, 2656, 2688, 2720));
    h.set(a + 4, b);
    h.set(d + 4, a);
    h.set(1020, a);
    assert_eq!(h.cursor, 2732);
    let m = h.finish();
    assert_eq!(u32::from_le_bytes(m[2732..2736].try_into().unwrap()), (65532 - 2732 - 4) | 1);
    m
}

/// The S1 dump: N = 0.
pub fn s1_dump() -> Vec<u8> {
    write_dump(1000, 1024, 1016, &[], &syn_memory())
}

/// The S2 dump: N = 1, values = [2720].
pub fn s2_dump() -> Vec<u8> {
    write_dump(1000, 1024, 1016, &[2720], &syn_memory())
}

/// S1, written by hand: heap 65536 − 2604 = 62932; live A, B (via A), C (pinned).
pub const S1_JSON: &str = r#"{
  "totalHeapSize": 62932,
  "totalLiveSize": 96,
  "constructors": [
    {
      "className": "x/TreeNode",
      "count": 2,
      "totalShallowSize": 64,
      "totalRetainedSize": 96,
      "instances": [
        {
          "address": 2624,
          "shallowSize": 32,
          "retainedSize": 64
        },
        {
          "address": 2656,
          "shallowSize": 32,
          "retainedSize": 32
        }
      ]
    },
    {
      "className": "~lib/arraybuffer/ArrayBuffer",
      "count": 1,
      "totalShallowSize": 32,
      "totalRetainedSize": 32,
      "instances": [
        {
          "address": 2688,
          "shallowSize": 32,
          "retainedSize": 32
        }
      ]
    }
  ]
}"#;

/// S2: D is a global root; A keeps idom VR (two paths), so D retains only itself.
pub const S2_JSON: &str = r#"{
  "totalHeapSize": 62932,
  "totalLiveSize": 128,
  "constructors": [
    {
      "className": "x/TreeNode",
      "count": 3,
      "totalShallowSize": 96,
      "totalRetainedSize": 128,
      "instances": [
        {
          "address": 2624,
          "shallowSize": 32,
          "retainedSize": 64
        },
        {
          "address": 2656,
          "shallowSize": 32,
          "retainedSize": 32
        },
        {
          "address": 2720,
          "shallowSize": 32,
          "retainedSize": 32
        }
      ]
    },
    {
      "className": "~lib/arraybuffer/ArrayBuffer",
      "count": 1,
      "totalShallowSize": 32,
      "totalRetainedSize": 32,
      "instances": [
        {
          "address": 2688,
          "shallowSize": 32,
          "retainedSize": 32
        }
      ]
    }
  ]
}"#;

/// S3: `diff S1 S2 --wasm syn_g.wasm`.
pub const S3_JSON: &str = r#"{
  "beforeTotalHeapSize": 62932,
  "afterTotalHeapSize": 62932,
  "totalHeapSizeDelta": 0,
  "beforeTotalLiveSize": 96,
  "afterTotalLiveSize": 128,
  "totalLiveSizeDelta": 32,
  "constructors": [
    {
      "className": "x/TreeNode",
      "newCount": 1,
      "deletedCount": 0,
      "countDelta": 1,
      "allocatedSize": 32,
      "freedSize": 0,
      "sizeDelta": 32,
      "instances": [
        {
          "address": 2720,
          "shallowSize": 32,
          "retainedSize": 32,
          "changeKind": "new"
        }
      ]
    }
  ]
}"#;

/// Classes of every scanning kind, rtIds 1 to 15.
pub fn kinds_spec() -> DwarfSpec<'static> {
    DwarfSpec {
        base_types: &["i32", "usize", "u32"],
        classes: &[
            ClassSpec {
                name: "~lib/arraybuffer/ArrayBuffer",
                rtid: Some(1),
                base: None,
                fields: &[],
                templates: &[],
                byte_size: None,
            },
            ClassSpec {
                name: "~lib/string/String",
                rtid: Some(2),
                base: None,
                fields: &[],
                templates: &[],
                byte_size: None,
            },
            ClassSpec {
                name: "~lib/arraybuffer/ArrayBufferView",
                rtid: Some(3),
                base: None,
                fields: &[
                    ("buffer", "~lib/arraybuffer/ArrayBuffer", 0),
                    ("dataStart", "usize", 4),
                    ("byteLength", "i32", 8),
                ],
                templates: &[],
                byte_size: None,
            },
            ClassSpec {
                name: "x/Item",
                rtid: Some(5),
                base: None,
                fields: &[("name", "~lib/string/String", 0), ("weight", "i32", 4)],
                templates: &[],
                byte_size: None,
            },
            ClassSpec {
                name: "~lib/array/Array<x/Item>",
                rtid: Some(6),
                base: None,
                fields: &[
                    ("buffer", "~lib/arraybuffer/ArrayBuffer", 0),
                    ("dataStart", "usize", 4),
                    ("byteLength", "i32", 8),
                    ("length_", "i32", 12),
                ],
                templates: &["x/Item"],
                byte_size: None,
            },
            ClassSpec {
                name: "~lib/staticarray/StaticArray<x/Item>",
                rtid: Some(7),
                base: None,
                fields: &[],
                templates: &["x/Item"],
                byte_size: None,
            },
            ClassSpec {
                name: "~lib/map/Map<i32,x/Item>",
                rtid: Some(8),
                base: None,
                fields: &[
                    ("buckets", "~lib/arraybuffer/ArrayBuffer", 0),
                    ("bucketsMask", "u32", 4),
                    ("entries", "~lib/arraybuffer/ArrayBuffer", 8),
                    ("entriesCapacity", "i32", 12),
                    ("entriesOffset", "i32", 16),
                    ("entriesCount", "i32", 20),
                ],
                templates: &["i32", "x/Item"],
                byte_size: None,
            },
            ClassSpec {
                name: "~lib/map/MapEntry<i32,x/Item>",
                rtid: Some(0),
                base: None,
                fields: &[("key", "i32", 0), ("value", "x/Item", 4), ("taggedNext", "usize", 8)],
                templates: &[],
                byte_size: None,
            },
            ClassSpec {
                name: "~lib/function/Function<()=>void>",
                rtid: Some(9),
                base: None,
                fields: &[("_index", "u32", 0), ("_env", "usize", 4)],
                templates: &[],
                byte_size: None,
            },
            ClassSpec {
                name: "~lib/tuple/SmallTuple",
                rtid: Some(10),
                base: None,
                fields: &[],
                templates: &[],
                byte_size: None,
            },
            ClassSpec {
                name: "x/Base",
                rtid: Some(11),
                base: None,
                fields: &[("a", "x/Item", 0)],
                templates: &[],
                byte_size: None,
            },
            ClassSpec {
                name: "x/Derived",
                rtid: Some(12),
                base: Some("x/Base"),
                fields: &[("b", "x/Item", 4)],
                templates: &[],
                byte_size: None,
            },
            ClassSpec {
                name: "~lib/typedarray/Uint8Array",
                rtid: Some(13),
                base: Some("~lib/arraybuffer/ArrayBufferView"),
                fields: &[],
                templates: &[],
                byte_size: None,
            },
            ClassSpec {
                name: "~lib/array/Array<i32>",
                rtid: Some(14),
                base: None,
                fields: &[
                    ("buffer", "~lib/arraybuffer/ArrayBuffer", 0),
                    ("dataStart", "usize", 4),
                    ("byteLength", "i32", 8),
                    ("length_", "i32", 12),
                ],
                templates: &["i32"],
                byte_size: None,
            },
            ClassSpec {
                name: "~lib/set/Set<x/Item>",
                rtid: Some(15),
                base: None,
                fields: &[
                    ("buckets", "~lib/arraybuffer/ArrayBuffer", 0),
                    ("entries", "~lib/arraybuffer/ArrayBuffer", 8),
                ],
                templates: &["x/Item"],
                byte_size: None,
            },
            ClassSpec {
                name: "~lib/set/SetEntry<x/Item>",
                rtid: Some(0),
                base: None,
                fields: &[("key", "x/Item", 0), ("taggedNext", "usize", 4)],
                templates: &[],
                byte_size: None,
            },
        ],
        globals: &[],
    }
}

/// A Map held by the global `x/cache` (entries: 7 → Item A, 8 → Item B), a StaticArray held
/// by stack word 1020 (slot 0: Item B, slot 1: a Function whose closure environment is B),
/// Item B itself in stack word 1016; A and B name one String. A Derived object that is
/// garbage points at B too. Allocated in the order of the returned addresses:
/// `[holder, map, buckets, entries, a, b, string, func, garbage]`.
pub fn retained_heap() -> (Vec<u8>, Vec<u8>, [u32; 9]) {
    let mut h = HeapBuilder::new(65536, 1024);
    let holder = h.alloc(7, 8, 0); // shallow 32
    let map = h.alloc(8, 24, 0); // 48
    let buckets = h.alloc(1, 16, 0); // 48
    let entries = h.alloc(1, 24, 0); // two entries of stride 12: 48
    let a = h.alloc(5, 8, 0); // 32
    let b = h.alloc(5, 8, 0); // 32
    let string = h.alloc(2, 4, 0); // 32
    let func = h.alloc(9, 8, 0); // 32
    let garbage = h.alloc(12, 8, 0); // 32, x/Derived: b @ 4
    h.set(holder, b);
    h.set(holder + 4, func);
    h.set(map, buckets);
    h.set(map + 8, entries);
    h.set(map + 16, 2);
    for (k, item) in [a, b].into_iter().enumerate() {
        h.set(entries + 12 * k as u32, 7 + k as u32);
        h.set(entries + 12 * k as u32 + 4, item);
    }
    h.set(a, string);
    h.set(b, string);
    h.set(func + 4, b);
    h.set(garbage + 4, b);
    h.set(1016, b);
    h.set(1020, holder);
    let dump = write_dump(1000, 1024, 1016, &[map], &h.finish());
    let spec = DwarfSpec { globals: &[("x/cache", "~lib/map/Map<i32,x/Item>", 0)], ..kinds_spec() };
    let wasm = wasm_with_dwarf(&spec, &[(true, 0)]);
    (dump, wasm, [holder, map, buckets, entries, a, b, string, func, garbage])
}
