//! A run's profile in the formats people already read (docs/report.md, "pprof and callgrind"):
//! its calling-context tree ([`crate::profile::calltree`]) and, for a module with DWARF line
//! tables, its costs per source line ([`crate::profile::lines`]), written as
//!
//! * [`pprof()`]: pprof's `profile.proto` (github.com/google/pprof, `proto/profile.proto`),
//!   gzip'd, for `go tool pprof`: one sample per tree node with its self costs and its stack;
//! * [`callgrind()`]: callgrind's text format (valgrind's "Callgrind Format Specification"),
//!   for `callgrind_annotate` and KCachegrind: self costs per function and source line, and per
//!   call site the calls and their inclusive costs.
//!
//! Both take one [`Profile`], made from a finished report ([`Report::profile`]) or from a
//! plain run's recorders (`qip-memory count`), and drop nothing: every tree node's self costs
//! are in them, so each measure adds up to the run's counter (docs/counting.md: instructions,
//! `memory_reads` as loads, `memory_writes` as stores, `calls`).
//!
//! Only with the `std` feature (the gzip of pprof needs it); the Content components build
//! without it and do not link `prost` or `flate2`.

pub mod callgrind;
pub mod pprof;

pub use callgrind::callgrind;
pub use pprof::pprof;

use alloc::collections::BTreeMap;
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use super::report::Report;
use crate::profile::calltree::{CallTree, NO_OFFSET};
use crate::profile::lines::{LineCosts, LineTable, Site, SourceLine};
use crate::profile::names::FunctionNames;
use crate::wasm::Module;

/// What the exports read: one run's tree, the module's names and code, its source lines.
#[derive(Debug, Clone, Copy)]
pub struct Profile<'a> {
    /// The run's calling-context tree; its nodes' self costs add up to the run's counters.
    pub tree: &'a CallTree,
    /// The module's function names ([`FunctionNames`], demangled), by function index.
    pub names: &'a FunctionNames,
    /// The module that ran: the module offset of each function's first instruction
    /// ([`Module::code_offset`]) and the imported function count (for [`Site::function`]).
    pub module: &'a Module,
    /// The module's line table and the run's costs per site (a source line of one defined
    /// function), when the module has DWARF line tables.
    pub lines: Option<(&'a LineTable, &'a [(Site, LineCosts)])>,
    /// The run's instruction count (docs/counting.md), stated in both files' headers.
    pub instructions: u64,
    /// What the target is called (a program's file name, as its `argv[0]`); may be empty.
    pub name: &'a str,
}

impl Report {
    /// The report's run as a [`Profile`] for [`pprof()`] and [`callgrind()`]: its tree, names,
    /// module, source lines and instruction count, named by [`Report::subject`] (empty when
    /// the target has no name).
    pub fn profile(&self) -> Profile<'_> {
        Profile {
            tree: &self.tree,
            names: &self.names,
            module: &self.finished.module,
            lines: self.source.as_ref().map(|s| (&s.table, &s.lines[..])),
            instructions: self.counters.instructions,
            name: self.subject.name.as_deref().unwrap_or(""),
        }
    }
}

impl Profile<'_> {
    /// The functions of the tree's nodes, by index, each once.
    fn functions(&self) -> Vec<u32> {
        let mut seen: Vec<u32> = self.tree.nodes.iter().map(|n| n.function).collect();
        seen.sort_unstable();
        seen.dedup();
        seen
    }

    /// The name of each function of the tree, by index: its [`FunctionNames`] name, and when
    /// two of them share one, each of those followed by ` (func[N])` with its index, so that
    /// no tool merges two functions.
    fn display_names(&self) -> BTreeMap<u32, String> {
        let functions = self.functions();
        let mut uses: BTreeMap<String, u32> = BTreeMap::new();
        let plain: Vec<String> = functions.iter().map(|&f| self.names.get(f)).collect();
        for n in &plain {
            *uses.entry(n.clone()).or_insert(0) += 1;
        }
        functions
            .into_iter()
            .zip(plain)
            .map(|(f, n)| if uses[&n] > 1 { (f, format!("{n} (func[{f}])")) } else { (f, n) })
            .collect()
    }

    /// The source line of the instruction at module offset `offset` ([`NO_OFFSET`]: none).
    fn line_at(&self, offset: u32) -> Option<SourceLine> {
        if offset == NO_OFFSET {
            return None;
        }
        self.lines.and_then(|(table, _)| table.lookup(offset))
    }

    /// The source line of function `f`'s first instruction, if the line table has one (an
    /// import has none).
    fn first_line(&self, f: u32) -> Option<SourceLine> {
        self.module.code_offset(f).and_then(|o| self.line_at(o))
    }

    /// The path of file `file` of the line table.
    fn file(&self, file: u32) -> Option<&str> {
        self.lines.and_then(|(table, _)| table.files.get(file as usize)).map(String::as_str)
    }
}
