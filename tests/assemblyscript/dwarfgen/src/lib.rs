//! WARPO-shaped DWARF for asc-compiled modules (docs/heap.md, "The wasm binary and its DWARF",
//! "Fixtures").
//!
//! Input: the JSON that `../layout.mjs` writes (classes with runtime ids, bases, own fields,
//! type arguments, entry-class sizes; globals with their types) and the module asc wrote.
//! Output: the module with three custom sections appended, named `debug_abbrev`, `debug_info`
//! and `debug_str` (no leading dot, as WARPO names them), holding one DWARF 4 compile unit in
//! the 32-bit format with address size 4, written with gimli's `write` module.
//!
//! The DIE tree follows WARPO's: a compile unit whose `DW_AT_producer` is the string `warpo` at
//! offset 0 of `debug_str`; one `base_type` per primitive keyword; one `class_type` per class
//! in byte order of the name, with `DW_AT_signature` (data4) = runtime id (0 for the
//! unmanaged Map/Set entry classes, which also get `DW_AT_byte_size` (data4) = their real
//! stride), children `inheritance`, the class's own `member`s (`DW_AT_data_member_location`
//! data4) and `template_type_parameter`s; then one `variable` per typed global in name order
//! with `DW_AT_location` (data4) = global index. Names are inline strings (`DW_FORM_string`),
//! type links `DW_FORM_ref4`. No other form appears (WARPO's five: addr, data4, string, strp,
//! ref4).
//!
//! Where the result differs from WARPO's own emitter (none of it matters to the analyzer,
//! which reads the abbreviation table and skips unresolvable links):
//! * abbreviation codes are gimli's (numbered by first use), not WARPO's fixed 1–15;
//! * a class without members, base or type arguments is written without children (gimli sets
//!   the children flag from the actual children), where WARPO writes an empty child list;
//! * a field, type argument or global whose type has no DIE is left out, where WARPO writes a
//!   `ref4` of 0xDEADBEEF (gimli cannot express a dangling reference); the analyzer drops such
//!   fields and globals either way;
//! * no subprograms, parameters or locals (the heap analyzer ignores them).

use std::collections::HashMap;

use gimli::constants as dw;
use gimli::write::{AttributeValue, DwarfUnit, EndianVec, Sections, UnitEntryId};
use gimli::{Encoding, Format, LittleEndian};

/// One field of a class, as the transform recorded it.
#[derive(Debug, Clone, PartialEq)]
pub struct Field {
    /// Field name.
    pub name: String,
    /// Byte offset in the payload.
    pub offset: u32,
    /// Class internal name or primitive keyword.
    pub ty: String,
}

/// One class (managed, or a Map/Set entry class with id 0).
#[derive(Debug, Clone, PartialEq)]
pub struct Class {
    /// AssemblyScript internal name.
    pub name: String,
    /// Runtime class id (`idof<T>()`), 0 for unmanaged entry classes.
    pub id: u32,
    /// Internal name of the base class.
    pub base: Option<String>,
    /// Fields the class declares itself (inherited ones are reached through `base`).
    pub fields: Vec<Field>,
    /// Type arguments by name.
    pub type_arguments: Vec<String>,
    /// Real byte size, recorded for the entry classes only.
    pub byte_size: Option<u32>,
}

/// One global of the module.
#[derive(Debug, Clone, PartialEq)]
pub struct Global {
    /// Internal name (also its name in the wasm name section).
    pub name: String,
    /// Index as binaryen numbered it when the transform ran.
    pub index: u32,
    /// Type name, absent for compiler placeholders.
    pub ty: Option<String>,
}

/// Everything the transform recorded.
#[derive(Debug, Clone, PartialEq)]
pub struct Layout {
    /// Primitive type keywords (become `base_type` DIEs).
    pub base_types: Vec<String>,
    /// Classes.
    pub classes: Vec<Class>,
    /// Globals in module order.
    pub globals: Vec<Global>,
}

/// The three section bodies.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DwarfSections {
    /// `debug_abbrev`.
    pub abbrev: Vec<u8>,
    /// `debug_info`.
    pub info: Vec<u8>,
    /// `debug_str`.
    pub str: Vec<u8>,
}

fn field<'a>(v: &'a serde_json::Value, key: &str, what: &str) -> Result<&'a serde_json::Value, String> {
    v.get(key).ok_or_else(|| format!("layout JSON: {what} has no `{key}`"))
}

fn string(v: &serde_json::Value, key: &str, what: &str) -> Result<String, String> {
    field(v, key, what)?
        .as_str()
        .map(str::to_owned)
        .ok_or_else(|| format!("layout JSON: `{key}` of {what} is not a string"))
}

fn opt_string(v: &serde_json::Value, key: &str, what: &str) -> Result<Option<String>, String> {
    match v.get(key) {
        None | Some(serde_json::Value::Null) => Ok(None),
        Some(_) => string(v, key, what).map(Some),
    }
}

fn number(v: &serde_json::Value, key: &str, what: &str) -> Result<u32, String> {
    field(v, key, what)?
        .as_u64()
        .and_then(|n| u32::try_from(n).ok())
        .ok_or_else(|| format!("layout JSON: `{key}` of {what} is not a u32"))
}

fn array<'a>(v: &'a serde_json::Value, key: &str, what: &str) -> Result<&'a Vec<serde_json::Value>, String> {
    field(v, key, what)?.as_array().ok_or_else(|| format!("layout JSON: `{key}` of {what} is not an array"))
}

/// Parses the transform's JSON.
pub fn parse_layout(json: &str) -> Result<Layout, String> {
    let v: serde_json::Value = serde_json::from_str(json).map_err(|e| format!("layout JSON: {e}"))?;
    let base_types = array(&v, "baseTypes", "the document")?
        .iter()
        .map(|t| t.as_str().map(str::to_owned).ok_or("layout JSON: a base type is not a string".to_owned()))
        .collect::<Result<Vec<_>, _>>()?;
    let mut classes = Vec::new();
    for c in array(&v, "classes", "the document")? {
        let name = string(c, "name", "a class")?;
        let what = format!("class {name}");
        let mut fields = Vec::new();
        for f in array(c, "fields", &what)? {
            fields.push(Field {
                name: string(f, "name", &what)?,
                offset: number(f, "offset", &what)?,
                ty: string(f, "type", &what)?,
            });
        }
        let type_arguments = array(c, "typeArguments", &what)?
            .iter()
            .map(|t| {
                t.as_str()
                    .map(str::to_owned)
                    .ok_or(format!("layout JSON: a type argument of {what} is not a string"))
            })
            .collect::<Result<Vec<_>, _>>()?;
        let byte_size = match c.get("byteSize") {
            None | Some(serde_json::Value::Null) => None,
            Some(_) => Some(number(c, "byteSize", &what)?),
        };
        classes.push(Class {
            id: number(c, "id", &what)?,
            base: opt_string(c, "base", &what)?,
            name,
            fields,
            type_arguments,
            byte_size,
        });
    }
    let mut globals = Vec::new();
    for g in array(&v, "globals", "the document")? {
        let name = string(g, "name", "a global")?;
        let what = format!("global {name}");
        globals.push(Global { index: number(g, "index", &what)?, ty: opt_string(g, "type", &what)?, name });
    }
    Ok(Layout { base_types, classes, globals })
}

/// Builds the DWARF sections. `global_index` maps a global's name to its index in the module's
/// global section; globals missing from it are left out.
pub fn generate(layout: &Layout, global_index: &HashMap<String, u32>) -> Result<DwarfSections, String> {
    let encoding = Encoding { format: Format::Dwarf32, version: 4, address_size: 4 };
    let mut dwarf = DwarfUnit::new(encoding);
    // The first string added sits at offset 0 of debug_str.
    let producer = dwarf.strings.add("warpo");
    let unit = &mut dwarf.unit;
    let root = unit.root();
    unit.get_mut(root).set(dw::DW_AT_producer, AttributeValue::StringRef(producer));

    let name = |s: &str| AttributeValue::String(s.as_bytes().to_vec());
    let mut dies: HashMap<&str, UnitEntryId> = HashMap::new();

    let mut base_types: Vec<&str> = layout.base_types.iter().map(String::as_str).collect();
    base_types.sort_unstable();
    base_types.dedup();
    for bt in base_types {
        let id = unit.add(root, dw::DW_TAG_base_type);
        unit.get_mut(id).set(dw::DW_AT_name, name(bt));
        dies.insert(bt, id);
    }

    let mut classes: Vec<&Class> = layout.classes.iter().collect();
    classes.sort_by(|a, b| a.name.as_bytes().cmp(b.name.as_bytes()));
    for pair in classes.windows(2) {
        if pair[0].name == pair[1].name {
            return Err(format!("class {} recorded twice", pair[0].name));
        }
    }
    let mut class_dies = Vec::with_capacity(classes.len());
    for c in &classes {
        if dies.contains_key(c.name.as_str()) {
            return Err(format!("class {} has the name of a base type", c.name));
        }
        let id = unit.add(root, dw::DW_TAG_class_type);
        let die = unit.get_mut(id);
        die.set(dw::DW_AT_name, name(&c.name));
        die.set(dw::DW_AT_signature, AttributeValue::Data4(c.id));
        if let Some(size) = c.byte_size {
            die.set(dw::DW_AT_byte_size, AttributeValue::Data4(size));
        }
        dies.insert(&c.name, id);
        class_dies.push(id);
    }

    let mut globals: Vec<&Global> = layout.globals.iter().collect();
    globals.sort_by(|a, b| a.name.as_bytes().cmp(b.name.as_bytes()));
    for g in globals {
        let (Some(ty), Some(&index)) = (g.ty.as_deref(), global_index.get(&g.name)) else {
            continue;
        };
        let Some(&ty) = dies.get(ty) else { continue };
        let id = unit.add(root, dw::DW_TAG_variable);
        let die = unit.get_mut(id);
        die.set(dw::DW_AT_name, name(&g.name));
        die.set(dw::DW_AT_type, AttributeValue::UnitRef(ty));
        die.set(dw::DW_AT_location, AttributeValue::Data4(index));
    }

    for (c, &class_die) in classes.iter().zip(&class_dies) {
        if let Some(&base) = c.base.as_deref().and_then(|b| dies.get(b)) {
            let id = unit.add(class_die, dw::DW_TAG_inheritance);
            unit.get_mut(id).set(dw::DW_AT_type, AttributeValue::UnitRef(base));
        }
        for f in &c.fields {
            let Some(&ty) = dies.get(f.ty.as_str()) else { continue };
            let id = unit.add(class_die, dw::DW_TAG_member);
            let die = unit.get_mut(id);
            die.set(dw::DW_AT_name, name(&f.name));
            die.set(dw::DW_AT_type, AttributeValue::UnitRef(ty));
            die.set(dw::DW_AT_data_member_location, AttributeValue::Data4(f.offset));
        }
        for t in &c.type_arguments {
            let Some(&ty) = dies.get(t.as_str()) else { continue };
            let id = unit.add(class_die, dw::DW_TAG_template_type_parameter);
            unit.get_mut(id).set(dw::DW_AT_type, AttributeValue::UnitRef(ty));
        }
    }

    let mut sections = Sections::new(EndianVec::new(LittleEndian));
    dwarf.write(&mut sections).map_err(|e| format!("gimli write: {e}"))?;
    Ok(DwarfSections {
        abbrev: sections.debug_abbrev.slice().to_vec(),
        info: sections.debug_info.slice().to_vec(),
        str: sections.debug_str.slice().to_vec(),
    })
}

fn uleb(bytes: &[u8], pos: &mut usize) -> Result<u64, String> {
    let mut result = 0u64;
    let mut shift = 0;
    loop {
        let b = *bytes.get(*pos).ok_or("wasm: LEB128 past the end")?;
        *pos += 1;
        if shift < 64 {
            result |= u64::from(b & 0x7f) << shift;
        }
        if b & 0x80 == 0 {
            return Ok(result);
        }
        shift += 7;
        if shift > 63 {
            return Err("wasm: LEB128 too long".into());
        }
    }
}

fn name_at<'a>(bytes: &'a [u8], pos: &mut usize) -> Result<&'a str, String> {
    let len = uleb(bytes, pos)? as usize;
    let end = pos.checked_add(len).filter(|&e| e <= bytes.len()).ok_or("wasm: name past the end")?;
    let s = std::str::from_utf8(&bytes[*pos..end]).map_err(|_| "wasm: name is not UTF-8")?;
    *pos = end;
    Ok(s)
}

fn write_uleb(out: &mut Vec<u8>, mut v: u64) {
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

/// What the generator needs from the module: global names by index from the name section
/// (subsection 7). Fails when the module already has DWARF sections or imports a global
/// (binaryen would then number globals differently from the analyzer).
pub fn global_names(wasm: &[u8]) -> Result<HashMap<String, u32>, String> {
    if wasm.len() < 8 || wasm[0..4] != *b"\0asm" || wasm[4..8] != [1, 0, 0, 0] {
        return Err("not a wasm module (version 1)".into());
    }
    let mut names = HashMap::new();
    let mut pos = 8;
    while pos < wasm.len() {
        let id = wasm[pos];
        pos += 1;
        let size = uleb(wasm, &mut pos)? as usize;
        let end = pos.checked_add(size).filter(|&e| e <= wasm.len()).ok_or("wasm: section past the end")?;
        let body = &wasm[pos..end];
        let mut p = 0;
        match id {
            0 => {
                let name = name_at(body, &mut p)?;
                if name.starts_with("debug_") || name.starts_with(".debug_") {
                    return Err(format!("the module already has a `{name}` section"));
                }
                if name == "name" {
                    while p < body.len() {
                        let sub = body[p];
                        p += 1;
                        let len = uleb(body, &mut p)? as usize;
                        let sub_end = p
                            .checked_add(len)
                            .filter(|&e| e <= body.len())
                            .ok_or("wasm: name subsection past the end")?;
                        if sub == 7 {
                            let count = uleb(body, &mut p)?;
                            for _ in 0..count {
                                let index = u32::try_from(uleb(body, &mut p)?)
                                    .map_err(|_| "wasm: global index too large")?;
                                let name = name_at(body, &mut p)?;
                                names.insert(name.to_owned(), index);
                            }
                        }
                        p = sub_end;
                    }
                }
            }
            2 => {
                let count = uleb(body, &mut p)?;
                for _ in 0..count {
                    let module = name_at(body, &mut p)?.to_owned();
                    let field = name_at(body, &mut p)?.to_owned();
                    match body.get(p).copied() {
                        Some(0) => {
                            p += 1;
                            uleb(body, &mut p)?;
                        }
                        Some(3) => return Err(format!("the module imports a global ({module}.{field})")),
                        Some(kind) => {
                            return Err(format!(
                                "import {module}.{field} of kind {kind}: only function imports are expected from asc"
                            ));
                        }
                        None => return Err("wasm: import section past the end".into()),
                    }
                }
            }
            _ => {}
        }
        pos = end;
    }
    Ok(names)
}

/// Appends a custom section.
pub fn append_custom_section(wasm: &mut Vec<u8>, name: &str, data: &[u8]) {
    let mut body = Vec::with_capacity(name.len() + data.len() + 5);
    write_uleb(&mut body, name.len() as u64);
    body.extend_from_slice(name.as_bytes());
    body.extend_from_slice(data);
    wasm.push(0);
    write_uleb(wasm, body.len() as u64);
    wasm.extend_from_slice(&body);
}

/// The whole step: the module with the three DWARF sections appended. Checks that the
/// transform's global indices agree with the name section of the final binary.
pub fn run(layout_json: &str, wasm: &[u8]) -> Result<Vec<u8>, String> {
    let layout = parse_layout(layout_json)?;
    let names = global_names(wasm)?;
    for g in &layout.globals {
        if let Some(&index) = names.get(&g.name)
            && index != g.index
        {
            return Err(format!(
                "global {}: index {} in the name section, {} in the layout JSON",
                g.name, index, g.index
            ));
        }
    }
    let sections = generate(&layout, &names)?;
    let mut out = wasm.to_vec();
    append_custom_section(&mut out, "debug_abbrev", &sections.abbrev);
    append_custom_section(&mut out, "debug_info", &sections.info);
    append_custom_section(&mut out, "debug_str", &sections.str);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use gimli::read::{self, AttributeValue as R};

    const LAYOUT: &str = r#"{
      "baseTypes": ["i32", "f64", "usize"],
      "classes": [
        {"name": "p/Node", "id": 5, "base": "p/Base",
         "fields": [{"name": "next", "offset": 4, "type": "p/Node"},
                    {"name": "lost", "offset": 8, "type": "p/Missing"},
                    {"name": "weight", "offset": 12, "type": "f64"}],
         "typeArguments": [], "byteSize": null},
        {"name": "p/Base", "id": 4, "base": "~lib/object/Object",
         "fields": [{"name": "id", "offset": 0, "type": "i32"}], "typeArguments": [], "byteSize": null},
        {"name": "~lib/object/Object", "id": 0, "base": null, "fields": [], "typeArguments": [], "byteSize": null},
        {"name": "~lib/map/MapEntry<p/Node,f64>", "id": 0, "base": null,
         "fields": [{"name": "key", "offset": 0, "type": "p/Node"}, {"name": "value", "offset": 8, "type": "f64"},
                    {"name": "taggedNext", "offset": 16, "type": "usize"}],
         "typeArguments": ["p/Node", "f64"], "byteSize": 24}
      ],
      "globals": [
        {"name": "p/root", "index": 1, "mutable": true, "type": "p/Node"},
        {"name": "p/count", "index": 0, "mutable": true, "type": "i32"},
        {"name": "~lib/memory/__data_end", "index": 2, "mutable": false, "type": null}
      ]
    }"#;

    fn sections() -> DwarfSections {
        let layout = parse_layout(LAYOUT).unwrap();
        let index = HashMap::from([
            ("p/root".to_owned(), 1),
            ("p/count".to_owned(), 0),
            ("~lib/memory/__data_end".to_owned(), 2),
        ]);
        generate(&layout, &index).unwrap()
    }

    /// A DIE read back: tag, attributes as (name, form, raw value), children.
    #[derive(Debug)]
    struct Die {
        offset: usize,
        tag: gimli::DwTag,
        attrs: Vec<(gimli::DwAt, gimli::DwForm, R<read::EndianSlice<'static, LittleEndian>>)>,
        children: Vec<Die>,
    }

    impl Die {
        fn attr(&self, at: gimli::DwAt) -> Option<&R<read::EndianSlice<'static, LittleEndian>>> {
            self.attrs.iter().find(|a| a.0 == at).map(|a| &a.2)
        }
        fn form(&self, at: gimli::DwAt) -> Option<gimli::DwForm> {
            self.attrs.iter().find(|a| a.0 == at).map(|a| a.1)
        }
        fn name(&self) -> Option<&'static str> {
            match self.attr(gimli::DW_AT_name)? {
                R::String(s) => Some(s.to_string().unwrap()),
                _ => None,
            }
        }
    }

    fn tree(node: read::EntriesTreeNode<read::EndianSlice<'static, LittleEndian>>) -> Die {
        let entry = node.entry();
        let mut attrs = Vec::new();
        for a in entry.attrs() {
            attrs.push((a.name(), a.form(), a.raw_value()));
        }
        let (offset, tag) = (entry.offset().0, entry.tag());
        let mut children = Vec::new();
        let mut iter = node.children();
        while let Some(child) = iter.next().unwrap() {
            children.push(tree(child));
        }
        Die { offset, tag, attrs, children }
    }

    fn read_back(
        s: &DwarfSections,
    ) -> (read::UnitHeader<read::EndianSlice<'static, LittleEndian>>, Die, Vec<gimli::DwForm>) {
        let leak = |v: &Vec<u8>| -> &'static [u8] { Box::leak(v.clone().into_boxed_slice()) };
        let info = read::DebugInfo::new(leak(&s.info), LittleEndian);
        let abbrev = read::DebugAbbrev::new(leak(&s.abbrev), LittleEndian);
        let mut units = info.units();
        let header = units.next().unwrap().expect("one unit");
        assert!(units.next().unwrap().is_none(), "exactly one unit");
        let abbrevs = header.abbreviations(&abbrev).unwrap();
        let mut forms = Vec::new();
        for code in 1..=64 {
            if let Some(a) = abbrevs.get(code) {
                forms.extend(a.attributes().iter().map(|spec| spec.form()));
            }
        }
        let mut t = header.entries_tree(&abbrevs, None).unwrap();
        let root = tree(t.root().unwrap());
        (header, root, forms)
    }

    #[test]
    fn unit_header_and_forms_are_warpos() {
        let s = sections();
        let (header, root, forms) = read_back(&s);
        assert_eq!(header.version(), 4);
        assert_eq!(header.address_size(), 4);
        assert_eq!(header.format(), Format::Dwarf32);
        assert_eq!(header.debug_abbrev_offset().0, 0);
        let allowed = [
            gimli::DW_FORM_addr,
            gimli::DW_FORM_data4,
            gimli::DW_FORM_string,
            gimli::DW_FORM_strp,
            gimli::DW_FORM_ref4,
        ];
        assert!(!forms.is_empty());
        for f in &forms {
            assert!(allowed.contains(f), "form {f} is not one of WARPO's five");
        }
        // The producer: strp at offset 0 of debug_str, which holds "warpo\0".
        assert_eq!(root.tag, gimli::DW_TAG_compile_unit);
        assert_eq!(root.attrs.len(), 1);
        assert_eq!(root.attrs[0].0, gimli::DW_AT_producer);
        assert_eq!(root.attrs[0].1, gimli::DW_FORM_strp);
        assert!(matches!(root.attrs[0].2, R::DebugStrRef(gimli::DebugStrOffset(0))));
        assert_eq!(s.str, b"warpo\0");
        // Section bodies carry no dot prefix issue here; names are checked in `appends_sections`.
    }

    #[test]
    fn die_tree_follows_b2() {
        let s = sections();
        let (_, root, _) = read_back(&s);
        let unit_start = 0; // one unit at the start of debug_info; ref4 values are unit-relative
        let by_offset = |off: usize| -> &Die {
            root.children.iter().find(|d| d.offset == unit_start + off).expect("ref4 target")
        };
        let ref_name = |d: &Die| -> &'static str {
            match d.attr(gimli::DW_AT_type) {
                Some(R::UnitRef(o)) => by_offset(o.0).name().unwrap(),
                other => panic!("type attribute {other:?}"),
            }
        };
        let tags: Vec<_> = root.children.iter().map(|d| (d.tag, d.name().unwrap())).collect();
        assert_eq!(
            tags,
            [
                (gimli::DW_TAG_base_type, "f64"),
                (gimli::DW_TAG_base_type, "i32"),
                (gimli::DW_TAG_base_type, "usize"),
                (gimli::DW_TAG_class_type, "p/Base"),
                (gimli::DW_TAG_class_type, "p/Node"),
                (gimli::DW_TAG_class_type, "~lib/map/MapEntry<p/Node,f64>"),
                (gimli::DW_TAG_class_type, "~lib/object/Object"),
                (gimli::DW_TAG_variable, "p/count"),
                (gimli::DW_TAG_variable, "p/root"),
            ]
        );
        for bt in &root.children[..3] {
            assert_eq!(bt.attrs.len(), 1, "base types carry only a name");
            assert_eq!(bt.attrs[0].1, gimli::DW_FORM_string);
        }
        let node = &root.children[4];
        assert!(matches!(node.attr(gimli::DW_AT_signature), Some(R::Data4(5))));
        assert!(node.attr(gimli::DW_AT_byte_size).is_none());
        let kids: Vec<_> = node.children.iter().map(|d| d.tag).collect();
        // `lost` has a type without a DIE and is left out.
        assert_eq!(kids, [gimli::DW_TAG_inheritance, gimli::DW_TAG_member, gimli::DW_TAG_member]);
        assert_eq!(ref_name(&node.children[0]), "p/Base");
        assert_eq!(node.children[1].name(), Some("next"));
        assert_eq!(ref_name(&node.children[1]), "p/Node");
        assert!(matches!(node.children[1].attr(gimli::DW_AT_data_member_location), Some(R::Data4(4))));
        assert_eq!(node.children[2].name(), Some("weight"));
        assert!(matches!(node.children[2].attr(gimli::DW_AT_data_member_location), Some(R::Data4(12))));
        assert_eq!(ref_name(&node.children[2]), "f64");

        let entry = &root.children[5];
        assert!(matches!(entry.attr(gimli::DW_AT_signature), Some(R::Data4(0))));
        assert!(matches!(entry.attr(gimli::DW_AT_byte_size), Some(R::Data4(24))));
        let kids: Vec<_> = entry.children.iter().map(|d| (d.tag, d.name())).collect();
        assert_eq!(
            kids,
            [
                (gimli::DW_TAG_member, Some("key")),
                (gimli::DW_TAG_member, Some("value")),
                (gimli::DW_TAG_member, Some("taggedNext")),
                (gimli::DW_TAG_template_type_parameter, None),
                (gimli::DW_TAG_template_type_parameter, None),
            ]
        );
        assert_eq!(ref_name(&entry.children[3]), "p/Node");
        assert_eq!(ref_name(&entry.children[4]), "f64");

        let object = &root.children[6];
        assert!(matches!(object.attr(gimli::DW_AT_signature), Some(R::Data4(0))));
        assert!(object.children.is_empty());

        let root_var = &root.children[8];
        // gimli's reader reports a data4 DW_AT_location as a section offset (a DWARF 3 loclistptr);
        // the form is what WARPO's reader sees.
        assert_eq!(root_var.form(gimli::DW_AT_location), Some(gimli::DW_FORM_data4));
        assert!(matches!(root_var.attr(gimli::DW_AT_location), Some(R::SecOffset(1) | R::Data4(1))));
        assert_eq!(ref_name(root_var), "p/Node");
        let count_var = &root.children[7];
        assert_eq!(count_var.form(gimli::DW_AT_location), Some(gimli::DW_FORM_data4));
        assert!(matches!(count_var.attr(gimli::DW_AT_location), Some(R::SecOffset(0) | R::Data4(0))));
        assert_eq!(ref_name(count_var), "i32");
    }

    // A module with one function import, one global named `p/root` (index 1) and `p/count` (0).
    fn module() -> Vec<u8> {
        let mut m = b"\0asm\x01\0\0\0".to_vec();
        // import section: "env" "f" func type 0
        let imports = [1u8, 3, b'e', b'n', b'v', 1, b'f', 0, 0];
        m.push(2);
        m.push(imports.len() as u8);
        m.extend_from_slice(&imports);
        let mut names = Vec::new();
        names.push(7u8);
        let sub =
            [2u8, 0, 7, b'p', b'/', b'c', b'o', b'u', b'n', b't', 1, 6, b'p', b'/', b'r', b'o', b'o', b't'];
        names.push(sub.len() as u8);
        names.extend_from_slice(&sub);
        append_custom_section(&mut m, "name", &names);
        m
    }

    #[test]
    fn appends_sections_without_dots() {
        let m = module();
        assert_eq!(
            global_names(&m).unwrap(),
            HashMap::from([("p/count".to_owned(), 0), ("p/root".to_owned(), 1)])
        );
        let out = run(LAYOUT, &m).unwrap();
        assert_eq!(&out[..m.len()], &m[..]);
        let mut pos = m.len();
        let s = sections();
        for (name, body) in [("debug_abbrev", &s.abbrev), ("debug_info", &s.info), ("debug_str", &s.str)] {
            assert_eq!(out[pos], 0);
            pos += 1;
            let size = uleb(&out, &mut pos).unwrap() as usize;
            let end = pos + size;
            assert_eq!(name_at(&out, &mut pos).unwrap(), name);
            assert_eq!(&out[pos..end], &body[..]);
            pos = end;
        }
        assert_eq!(pos, out.len());
        // A second run refuses: the module already has DWARF.
        assert!(run(LAYOUT, &out).unwrap_err().contains("debug_abbrev"));
    }

    #[test]
    fn disagreeing_global_index_is_an_error() {
        let json = LAYOUT.replace(r#""index": 1,"#, r#""index": 3,"#);
        assert!(run(&json, &module()).unwrap_err().contains("p/root"));
    }
}
