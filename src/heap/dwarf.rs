//! DWARF reading (docs/heap.md, "The wasm binary and its DWARF") with `gimli`: the sections
//! `debug_abbrev`, `debug_info` and `debug_str` in, a flat pre-order table of [`Die`]s out, holding
//! only the attributes the analyzer uses, with WARPO's non-standard meanings: `DW_AT_signature` is
//! the runtime class id (`DW_FORM_data4`), `DW_AT_location` a plain global or local index.
//!
//! Compatibility rules kept from WARPO's reader: one abbreviation table read from offset 0 of
//! `debug_abbrev` for every unit; `DW_FORM_strp` must point at the start of a string; the
//! first attribute of a name wins; a DIE is identified by its absolute `debug_info` offset.
//! `gimli` accepts a superset of WARPO's five forms.

use alloc::string::String;
use alloc::vec::Vec;

use gimli::{
    AttributeValue, DebugAbbrev, DebugAbbrevOffset, DebugInfo, DwAt, EndianSlice, LittleEndian, constants,
};

use super::HeapError;

/// `DW_TAG_compile_unit`.
pub const TAG_COMPILE_UNIT: u16 = 0x11;
/// `DW_TAG_class_type`.
pub const TAG_CLASS_TYPE: u16 = 0x02;
/// `DW_TAG_member`.
pub const TAG_MEMBER: u16 = 0x0d;
/// `DW_TAG_inheritance`.
pub const TAG_INHERITANCE: u16 = 0x1c;
/// `DW_TAG_base_type`.
pub const TAG_BASE_TYPE: u16 = 0x24;
/// `DW_TAG_template_type_parameter`.
pub const TAG_TEMPLATE_TYPE_PARAMETER: u16 = 0x2f;
/// `DW_TAG_variable`.
pub const TAG_VARIABLE: u16 = 0x34;

/// Index of a DIE in [`Dies::dies`]; `u32::MAX` means none.
pub type DieIndex = u32;
/// No DIE (the parent of a unit root).
pub const NO_DIE: DieIndex = u32::MAX;

/// One debugging information entry, reduced to what the heap analyzer reads.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Die {
    /// Absolute offset of the DIE from the start of `debug_info`, in bytes (its identity).
    pub offset: u64,
    /// The `DW_TAG_*` value.
    pub tag: u16,
    /// The parent DIE ([`NO_DIE`] for a unit root).
    pub parent: DieIndex,
    /// Index of the root DIE of this DIE's unit.
    pub unit_root: DieIndex,
    /// `DW_AT_name` (`DW_FORM_string` or `DW_FORM_strp`), UTF-8 decoded lossily.
    pub name: Option<String>,
    /// `DW_AT_signature` as an integer: WARPO's runtime class id (rtId).
    pub signature: Option<u64>,
    /// `DW_AT_location` as an integer: a wasm global index on global variables.
    pub location: Option<u64>,
    /// `DW_AT_data_member_location` as an integer: a field's byte offset in the payload.
    pub data_member_location: Option<u64>,
    /// `DW_AT_byte_size` as an integer, in bytes.
    pub byte_size: Option<u64>,
    /// `DW_AT_type` as an absolute `debug_info` offset (`DW_FORM_ref*` are unit-relative and
    /// converted by adding the unit's start offset). May dangle.
    pub type_ref: Option<u64>,
}

/// All DIEs of all units, in pre-order (so in increasing offset order).
#[derive(Debug, Clone, Default)]
pub struct Dies {
    /// The DIEs; `parent` and `unit_root` index into this vector.
    pub dies: Vec<Die>,
    /// The root DIE of each unit, in unit order.
    pub unit_roots: Vec<DieIndex>,
}

impl Dies {
    /// The DIE at absolute `debug_info` offset `offset`, if one starts there.
    pub fn at_offset(&self, offset: u64) -> Option<&Die> {
        self.dies.binary_search_by_key(&offset, |d| d.offset).ok().map(|i| &self.dies[i])
    }

    /// Reads the three sections. `debug_str` may be absent (then every `DW_FORM_strp`
    /// fails).
    ///
    /// # Errors
    /// [`HeapError::UnknownAbbreviation`], [`HeapError::UnsupportedForm`],
    /// [`HeapError::StringNotFound`], [`HeapError::UnsupportedAddressSize`] with WARPO's
    /// messages, or [`HeapError::Dwarf`] for any other malformation.
    pub fn read(debug_abbrev: &[u8], debug_info: &[u8], debug_str: &[u8]) -> Result<Dies, HeapError> {
        let abbrevs = DebugAbbrev::new(debug_abbrev, LittleEndian)
            .abbreviations(DebugAbbrevOffset(0))
            .map_err(|reason| dwarf_error("debug_abbrev", 0, reason))?;
        let mut out = Dies::default();
        let mut units = DebugInfo::new(debug_info, LittleEndian).units();
        let mut unit_start = 0u64;
        let mut stack: Vec<DieIndex> = Vec::new();
        loop {
            let header = match units.next() {
                Ok(Some(h)) => h,
                Ok(None) => break,
                Err(reason) => return Err(dwarf_error("debug_info", unit_start, reason)),
            };
            let start = header.offset().0 as u64;
            unit_start = start + header.length_including_self() as u64;
            let address_size = header.address_size();
            let mut raw =
                header.entries_raw(&abbrevs, None).map_err(|r| dwarf_error("debug_info", start, r))?;
            let root = out.dies.len() as DieIndex;
            let mut first = true;
            stack.clear();
            while !raw.is_empty() {
                let depth = raw.next_depth();
                let offset = start + raw.next_offset().0 as u64;
                let abbrev = match raw.read_abbreviation() {
                    Ok(Some(a)) => a,
                    Ok(None) => continue,
                    Err(gimli::Error::InvalidAbbreviationCode(code)) => {
                        return Err(HeapError::UnknownAbbreviation { code, offset });
                    }
                    Err(reason) => return Err(dwarf_error("debug_info", offset, reason)),
                };
                let parent = match usize::try_from(depth) {
                    Ok(d) if d >= 1 && d - 1 < stack.len() => stack[d - 1],
                    _ => NO_DIE,
                };
                let mut die = Die {
                    offset,
                    tag: abbrev.tag().0,
                    parent: if first { NO_DIE } else { parent },
                    unit_root: root,
                    ..Die::default()
                };
                first = false;
                for spec in abbrev.attributes() {
                    if spec.form() == constants::DW_FORM_addr && address_size != 4 {
                        return Err(HeapError::UnsupportedAddressSize { size: address_size });
                    }
                    let attr = raw.read_attribute(*spec).map_err(|reason| match reason {
                        gimli::Error::UnknownForm(f) => HeapError::UnsupportedForm { form: u64::from(f.0) },
                        reason => dwarf_error("debug_info", offset, reason),
                    })?;
                    record(&mut die, attr.name(), attr.raw_value(), start, debug_str)?;
                }
                let index = out.dies.len() as DieIndex;
                out.dies.push(die);
                if abbrev.has_children() {
                    stack.truncate(usize::try_from(depth).unwrap_or(0));
                    stack.push(index);
                }
            }
            if !first {
                out.unit_roots.push(root);
            }
        }
        Ok(out)
    }
}

#[cold]
fn dwarf_error(section: &'static str, offset: u64, reason: gimli::Error) -> HeapError {
    HeapError::Dwarf { section, offset, reason }
}

/// An attribute value read as an unsigned integer (constant and address forms).
fn as_uint(v: &AttributeValue<EndianSlice<'_, LittleEndian>>) -> Option<u64> {
    match *v {
        AttributeValue::Data1(x) => Some(u64::from(x)),
        AttributeValue::Data2(x) => Some(u64::from(x)),
        AttributeValue::Data4(x) => Some(u64::from(x)),
        AttributeValue::Data8(x) => Some(x),
        AttributeValue::Udata(x) => Some(x),
        AttributeValue::Sdata(x) => u64::try_from(x).ok(),
        AttributeValue::Addr(x) => Some(x),
        AttributeValue::SecOffset(x) => Some(x as u64),
        _ => None,
    }
}

/// The string starting at `offset` in `debug_str`, which must be the start of a string
/// (offset 0 or just after a NUL).
fn str_at(debug_str: &[u8], offset: u64) -> Result<String, HeapError> {
    let at =
        usize::try_from(offset).ok().filter(|&o| o < debug_str.len() && (o == 0 || debug_str[o - 1] == 0));
    let at = at.ok_or(HeapError::StringNotFound { offset })?;
    let rest = &debug_str[at..];
    let end = rest.iter().position(|&b| b == 0).unwrap_or(rest.len());
    Ok(String::from_utf8_lossy(&rest[..end]).into_owned())
}

fn record(
    die: &mut Die,
    name: DwAt,
    value: AttributeValue<EndianSlice<'_, LittleEndian>>,
    unit_start: u64,
    debug_str: &[u8],
) -> Result<(), HeapError> {
    // WARPO decodes every `DW_FORM_strp` while reading the DIE, whatever the attribute.
    let strp = match value {
        AttributeValue::DebugStrRef(o) => Some(str_at(debug_str, o.0 as u64)?),
        _ => None,
    };
    match name {
        constants::DW_AT_name => {
            let s = match value {
                AttributeValue::String(s) => Some(String::from_utf8_lossy(s.slice()).into_owned()),
                AttributeValue::DebugStrRef(_) => strp,
                _ => None,
            };
            if die.name.is_none() {
                die.name = s;
            }
        }
        constants::DW_AT_type => {
            let r = match value {
                AttributeValue::UnitRef(o) => Some(unit_start + o.0 as u64),
                AttributeValue::DebugInfoRef(o) => Some(o.0 as u64),
                _ => None,
            };
            die.type_ref = die.type_ref.or(r);
        }
        constants::DW_AT_signature => die.signature = die.signature.or(as_uint(&value)),
        constants::DW_AT_location => die.location = die.location.or(as_uint(&value)),
        constants::DW_AT_data_member_location => {
            die.data_member_location = die.data_member_location.or(as_uint(&value));
        }
        constants::DW_AT_byte_size => die.byte_size = die.byte_size.or(as_uint(&value)),
        _ => {}
    }
    Ok(())
}
