//! The `name` custom section (spec appendix 7.4 "Name Section", with the global names of the
//! extended name section proposal that toolchains such as AssemblyScript and LLVM emit):
//! the module's name and the names of functions and globals by index.
//!
//! A custom section never makes a module invalid, so the reader is lenient: it keeps what it
//! read before the first malformed subsection and ignores the rest.

use alloc::vec::Vec;

use super::reader::Reader;
use super::sections::custom_section;
use crate::wasm::error::Invalid;

/// What a `name` section names.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Names<'a> {
    /// The module's own name (subsection 0).
    pub module: Option<&'a str>,
    /// `(function index, name)` in the section's order (subsection 1).
    pub functions: Vec<(u32, &'a str)>,
    /// `(global index, name)` in the section's order (subsection 7).
    pub globals: Vec<(u32, &'a str)>,
}

impl<'a> Names<'a> {
    /// Reads the `name` section of the module `bytes`; empty when it has none.
    pub fn of_module(bytes: &'a [u8]) -> Names<'a> {
        custom_section(bytes, "name").map(Names::parse).unwrap_or_default()
    }

    /// Reads the contents of a `name` section (what follows the section's name).
    pub fn parse(contents: &'a [u8]) -> Names<'a> {
        let mut names = Names::default();
        let mut r = Reader::new(contents, 0);
        let _ = names.read(&mut r);
        names
    }

    fn read(&mut self, r: &mut Reader<'a>) -> Result<(), Invalid> {
        while !r.eof() {
            let sub = r.u8()?;
            let size = r.len()? as usize;
            let mut s = r.sub(size)?;
            match sub {
                0 => self.module = Some(s.name()?),
                1 => self.functions = name_map(&mut s)?,
                7 => self.globals = name_map(&mut s)?,
                _ => {}
            }
        }
        Ok(())
    }

    /// The name of function `index`, if the section names it.
    pub fn function(&self, index: u32) -> Option<&'a str> {
        self.functions.iter().find(|(i, _)| *i == index).map(|(_, n)| *n)
    }

    /// The name of global `index`, if the section names it.
    pub fn global(&self, index: u32) -> Option<&'a str> {
        self.globals.iter().find(|(i, _)| *i == index).map(|(_, n)| *n)
    }
}

/// A name map (spec 7.4.3): a vector of `(index, name)`.
fn name_map<'a>(r: &mut Reader<'a>) -> Result<Vec<(u32, &'a str)>, Invalid> {
    let n = r.len()?;
    let mut out = Vec::with_capacity(n as usize);
    for _ in 0..n {
        let index = r.u32()?;
        out.push((index, r.name()?));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_module_function_and_global_names() {
        // Subsections: module "m"; functions {0: "f", 2: "g"}; locals (skipped); globals {1: "x"}.
        let contents = [
            0, 2, 1, b'm', //
            1, 7, 2, 0, 1, b'f', 2, 1, b'g', //
            2, 1, 0, //
            7, 4, 1, 1, 1, b'x',
        ];
        let n = Names::parse(&contents);
        assert_eq!(n.module, Some("m"));
        assert_eq!(n.functions, [(0, "f"), (2, "g")]);
        assert_eq!((n.function(2), n.function(1)), (Some("g"), None));
        assert_eq!(n.global(1), Some("x"));
    }

    #[test]
    fn keeps_what_came_before_a_malformed_subsection() {
        let contents = [0, 2, 1, b'm', 1, 9, 2, 0];
        let n = Names::parse(&contents);
        assert_eq!(n.module, Some("m"));
        assert!(n.functions.is_empty());
    }
}
