//! Function names for people (docs/report.md, "Names").
//!
//! A function's name is, in this order of preference: its entry in the module's `name` custom
//! section (WebAssembly 3.0, appendix "Name Section", subsection 1), demangled when it is a Rust
//! symbol (legacy `_ZN…E` or v0 `_R…` mangling, read by `rustc-demangle`, hash suffix dropped);
//! else the first export name of the function; else `func[N]` with its index, the notation of
//! the WebAssembly text format's disassemblers. Imported functions come first in the index
//! space, and an import without either name is `module.field`.
//!
//! The `name` section is optional and often malformed in the wild; a malformed one is ignored
//! from the first bad entry on (names read before it are kept), never an error.

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use crate::wasm::Names;
use crate::wasm::binary::reader::Reader;
use crate::wasm::binary::sections::{Sections, id};

/// Where a [`FunctionNames`] entry came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NameSource {
    /// The `name` section (demangled if it was a Rust symbol).
    NameSection,
    /// An export of the function.
    Export,
    /// The import's `module.field`.
    Import,
    /// Neither: `func[N]`.
    Index,
}

/// The names of a module's functions, indexed by function index.
#[derive(Debug, Clone, Default)]
pub struct FunctionNames {
    names: Vec<(String, NameSource)>,
}

impl FunctionNames {
    /// Reads the names of every function of `module` (the bytes of a core module). A module
    /// that does not parse gives what was read before the error; indices past that are
    /// `func[N]`.
    pub fn read(module: &[u8]) -> Self {
        let mut imports: Vec<String> = Vec::new();
        let mut defined = 0u32;
        let mut exports: Vec<(u32, String)> = Vec::new();
        let mut section: Vec<(u32, String)> = Vec::new();
        if let Ok(mut sections) = Sections::new(module) {
            while let Ok(Some(s)) = sections.next_section() {
                let mut r = s.contents.clone();
                match s.id {
                    id::IMPORT => {
                        let _ = read_imports(&mut r, &mut imports);
                    }
                    id::FUNCTION => defined = r.u32().unwrap_or(0),
                    id::EXPORT => {
                        let _ = read_exports(&mut r, &mut exports);
                    }
                    id::CUSTOM if s.name == "name" => {
                        let names = Names::parse(s.data());
                        section = names.functions.into_iter().map(|(i, n)| (i, n.into())).collect();
                    }
                    _ => {}
                }
            }
        }
        let total = imports.len() + defined as usize;
        let mut names: Vec<(String, NameSource)> = (0..total)
            .map(|i| match imports.get(i) {
                Some(n) => (n.clone(), NameSource::Import),
                None => (format!("func[{i}]"), NameSource::Index),
            })
            .collect();
        // The first export of a function names it.
        for (i, n) in exports.into_iter().rev() {
            if let Some(slot) = names.get_mut(i as usize) {
                *slot = (n, NameSource::Export);
            }
        }
        for (i, n) in section {
            if let Some(slot) = names.get_mut(i as usize) {
                *slot = (demangle(&n), NameSource::NameSection);
            }
        }
        FunctionNames { names }
    }

    /// The name of function `index`; `func[N]` past the module's functions.
    pub fn get(&self, index: u32) -> String {
        match self.names.get(index as usize) {
            Some((n, _)) => n.clone(),
            None => format!("func[{index}]"),
        }
    }

    /// Where the name of function `index` came from.
    pub fn source(&self, index: u32) -> NameSource {
        self.names.get(index as usize).map_or(NameSource::Index, |(_, s)| *s)
    }

    /// Number of functions (imported and defined).
    pub fn len(&self) -> usize {
        self.names.len()
    }

    /// `true` for a module without functions.
    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }
}

/// The `module.field` names of the function imports, up to the first malformed entry.
fn read_imports(r: &mut Reader<'_>, out: &mut Vec<String>) -> Option<()> {
    for _ in 0..r.len().ok()? {
        let module = r.name().ok()?;
        let field = r.name().ok()?;
        match r.u8().ok()? {
            0x00 => {
                r.u32().ok()?;
                out.push(format!("{module}.{field}"));
            }
            0x01 => {
                r.table_type().ok()?;
            }
            0x02 => {
                r.memory_type().ok()?;
            }
            0x03 => {
                r.global_type().ok()?;
            }
            _ => return None,
        }
    }
    Some(())
}

/// The `(function index, name)` of the function exports, up to the first malformed entry.
fn read_exports(r: &mut Reader<'_>, out: &mut Vec<(u32, String)>) -> Option<()> {
    for _ in 0..r.len().ok()? {
        let name = r.name().ok()?;
        let kind = r.u8().ok()?;
        let index = r.u32().ok()?;
        if kind == 0x00 {
            out.push((index, name.into()));
        }
    }
    Some(())
}

/// `name` demangled when it is a Rust symbol, without the hash suffix; else unchanged.
pub fn demangle(name: &str) -> String {
    match rustc_demangle::try_demangle(name) {
        Ok(d) => format!("{d:#}"),
        Err(_) => name.into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rust_legacy_and_v0_symbols_are_demangled() {
        // Legacy: `_ZN` + length-prefixed path + `17h<16 hex digits>E` (the hash is dropped).
        assert_eq!(demangle("_ZN4core3fmt5write17h0123456789abcdefE"), "core::fmt::write");
        // v0: `_R` + `Nv` (value namespace) + crate root `C` + identifiers.
        assert_eq!(demangle("_RNvCs1234_7mycrate3foo"), "mycrate::foo");
        assert_eq!(demangle("render"), "render");
        assert_eq!(demangle("_ZN_not_really"), "_ZN_not_really");
    }
}
