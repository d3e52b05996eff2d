//! The outer structure of a module (spec 5.5 "Modules"): the header, then sections, each an
//! id, a size and that many bytes; non-custom sections at most once each and in the order of
//! spec 5.5.16 (the data count section between the element and code sections).

use super::proposals::{self, Proposal, Site};
use super::reader::Reader;
use crate::wasm::error::{Invalid, LoadError};

/// Section ids (spec 5.5.2).
pub(crate) mod id {
    pub(crate) const CUSTOM: u8 = 0;
    pub(crate) const TYPE: u8 = 1;
    pub(crate) const IMPORT: u8 = 2;
    pub(crate) const FUNCTION: u8 = 3;
    pub(crate) const TABLE: u8 = 4;
    pub(crate) const MEMORY: u8 = 5;
    pub(crate) const GLOBAL: u8 = 6;
    pub(crate) const EXPORT: u8 = 7;
    pub(crate) const START: u8 = 8;
    pub(crate) const ELEMENT: u8 = 9;
    pub(crate) const CODE: u8 = 10;
    pub(crate) const DATA: u8 = 11;
    pub(crate) const DATA_COUNT: u8 = 12;
    /// The tag section of the exception-handling proposal, between the memory and global
    /// sections.
    pub(crate) const TAG: u8 = 13;
}

/// The place of a non-custom section in the required order.
fn rank(section: u8) -> u8 {
    match section {
        id::TAG => 11,
        id::DATA_COUNT => 20,
        id::CODE => 22,
        id::DATA => 24,
        other => 2 * other,
    }
}

/// One section.
#[derive(Debug, Clone)]
pub(crate) struct Section<'a> {
    /// The section id.
    pub(crate) id: u8,
    /// A custom section's name (empty for the others).
    pub(crate) name: &'a str,
    /// The contents: for a custom section, what follows its name.
    pub(crate) contents: Reader<'a>,
}

impl<'a> Section<'a> {
    /// The contents as bytes (a custom section's: after its name).
    pub(crate) fn data(&self) -> &'a [u8] {
        self.contents.rest()
    }
}

/// The sections of a module, in order, with the header and the section order checked.
#[derive(Debug, Clone)]
pub(crate) struct Sections<'a> {
    r: Reader<'a>,
    last_rank: u8,
}

impl<'a> Sections<'a> {
    /// Checks the header (`\0asm`, version 1) and starts after it.
    pub(crate) fn new(bytes: &'a [u8]) -> Result<Self, LoadError> {
        let mut r = Reader::new(bytes, 0);
        let magic: [u8; 4] = r.array().map_err(|e| r.error(e))?;
        if magic != *b"\0asm" {
            return Err(LoadError::invalid(0, Invalid::MagicNumber(magic)));
        }
        let version: [u8; 4] = r.array().map_err(|e| r.error(e))?;
        if version != [1, 0, 0, 0] {
            return Err(LoadError::invalid(4, Invalid::Version));
        }
        Ok(Sections { r, last_rank: 0 })
    }

    /// The next section, or `None` after the last.
    pub(crate) fn next_section(&mut self) -> Result<Option<Section<'a>>, LoadError> {
        if self.r.eof() {
            return Ok(None);
        }
        let start = self.r.offset();
        let section = self.r.u8().map_err(|e| self.r.error(e))?;
        let last = if Proposal::ExceptionHandling.runs() { id::TAG } else { id::DATA_COUNT };
        if section > last {
            let why = proposals::or(Invalid::SectionId(section), Site::Section, section.into());
            return Err(LoadError::invalid(start, why));
        }
        let size = self.r.u32().map_err(|e| self.r.error(e))? as usize;
        if size > self.r.remaining() {
            return Err(self.r.error(Invalid::LengthOutOfBounds));
        }
        let mut contents = self.r.sub(size).map_err(|e| self.r.error(e))?;
        let mut name = "";
        if section == id::CUSTOM {
            name = contents.name().map_err(|e| contents.error(e))?;
        } else {
            let rank = rank(section);
            if rank <= self.last_rank {
                return Err(LoadError::invalid(start, Invalid::SectionOrder(section)));
            }
            self.last_rank = rank;
        }
        Ok(Some(Section { id: section, name, contents }))
    }
}

/// A custom section's contents by name, if the module has one: the first of that name.
/// `None` also for a module that is not well framed.
pub(crate) fn custom_section<'a>(bytes: &'a [u8], name: &str) -> Option<&'a [u8]> {
    let mut sections = Sections::new(bytes).ok()?;
    while let Ok(Some(s)) = sections.next_section() {
        if s.id == id::CUSTOM && s.name == name {
            return Some(s.data());
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ids(bytes: &[u8]) -> Result<alloc::vec::Vec<u8>, LoadError> {
        let mut s = Sections::new(bytes)?;
        let mut out = alloc::vec::Vec::new();
        while let Some(x) = s.next_section()? {
            out.push(x.id);
        }
        Ok(out)
    }

    const HEADER: &[u8] = b"\0asm\x01\0\0\0";

    #[test]
    fn header_and_order() {
        assert_eq!(ids(HEADER), Ok(alloc::vec![]));
        assert_eq!(
            ids(b"\0asn\x01\0\0\0").unwrap_err().kind,
            crate::wasm::LoadErrorKind::Invalid(Invalid::MagicNumber(*b"\0asn"))
        );
        assert_eq!(
            ids(b"\0asm\x02\0\0\0").unwrap_err().kind,
            crate::wasm::LoadErrorKind::Invalid(Invalid::Version)
        );
        // data count (12) goes between element (9) and code (10); custom anywhere.
        let m = [HEADER, &[9, 1, 0, 0, 2, 1, b'x', 12, 1, 0, 10, 1, 0]].concat();
        assert_eq!(ids(&m), Ok(alloc::vec![9, 0, 12, 10]));
        let m = [HEADER, &[10, 1, 0, 12, 1, 0]].concat();
        let e = ids(&m).unwrap_err();
        assert_eq!(
            (e.offset.0, e.kind),
            (11, crate::wasm::LoadErrorKind::Invalid(Invalid::SectionOrder(12)))
        );
        let m = [HEADER, &[1, 1, 0, 1, 1, 0]].concat();
        assert!(ids(&m).is_err(), "a repeated section");
        let m = [HEADER, &[14, 0]].concat();
        assert_eq!(ids(&m).unwrap_err().kind, crate::wasm::LoadErrorKind::Invalid(Invalid::SectionId(14)));
        // Section 13 is exception handling's tag section, between memory (5) and global (6).
        let m = [HEADER, &[5, 1, 0, 13, 1, 0, 6, 1, 0]].concat();
        assert_eq!(ids(&m), Ok(alloc::vec![5, 13, 6]));
        let m = [HEADER, &[6, 1, 0, 13, 1, 0]].concat();
        let e = ids(&m).unwrap_err();
        assert_eq!(
            (e.offset.0, e.kind),
            (11, crate::wasm::LoadErrorKind::Invalid(Invalid::SectionOrder(13)))
        );
        let m = [HEADER, &[1, 5, 0]].concat();
        assert_eq!(
            ids(&m).unwrap_err().kind,
            crate::wasm::LoadErrorKind::Invalid(Invalid::LengthOutOfBounds)
        );
    }

    #[test]
    fn custom_sections_by_name() {
        let m = [HEADER, &[0, 4, 3, b'a', b'b', b'c', 0, 3, 1, b'x', 7]].concat();
        assert_eq!(custom_section(&m, "abc"), Some(&[][..]));
        assert_eq!(custom_section(&m, "x"), Some(&[7][..]));
        assert_eq!(custom_section(&m, "y"), None);
    }
}
