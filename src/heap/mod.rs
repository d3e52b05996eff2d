//! The AssemblyScript heap analyzer, compatible with WARPO's `as-heap-analyzer`
//! (docs/heap.md). Inputs: a version-2 memory dump and the wasm binary with
//! WARPO-shaped DWARF; outputs: the constructor view (`analyze`) and the comparison view
//! (`diff`) as JSON byte-identical to WARPO's CLI.
//!
//! One module per stage of the analysis, in data-flow order (sections of docs/heap.md):
//!
//! | module | stage | docs/heap.md |
//! | --- | --- | --- |
//! | [`dump`] | dump file → header, global values, memory image | Dump format |
//! | [`module`] | wasm → DWARF sections, globals | The wasm binary and its DWARF |
//! | [`dwarf`] | DWARF sections → DIE table (gimli) | The wasm binary and its DWARF |
//! | [`layout`] | DIEs → class layouts by rtId, global candidates | Class layouts |
//! | [`tlsf`] | memory → objects (TLSF walk), shallow sizes, pointer index | The heap walk |
//! | [`graph`] | objects + layouts → reference graph | References |
//! | `visit` | without DWARF: objects + the program's own visitors, run in the interpreter → reference graph, slots, global roots, class names | Without DWARF |
//! | [`roots`] | globals, shadow stack, pinned objects → roots | Roots |
//! | [`mark`] | graph + roots → live set | Liveness and sizes |
//! | [`dominators`] | live graph + virtual root → idoms, retained sizes | Liveness and sizes |
//! | [`tree`] | idoms + sizes → the dominator tree view | Dominator tree |
//! | [`retainers`] | graph + roots + sizes → one object's retainers and root paths | Retainers |
//! | `class_names` | a class name as typed (`Session`) → the live class it means, or the candidates | Retainers |
//! | [`devtools`] | graph + roots + sizes → a Chrome DevTools `.heapsnapshot` | DevTools snapshots |
//! | [`views`] | sizes → constructor rows, comparison rows, sorts | The two views |
//! | [`json`] | rows → JSON text | JSON |
//!
//! [`capture`] stands apart: it runs an AssemblyScript program in the interpreter and makes
//! the dumps the stages above read.
//!
//! Entry points: [`Analyzer`] (wasm parsed once, then any number of dumps), [`analyze`],
//! [`diff`], and [`parse_top`] for the CLI's `--top`.

pub mod capture;
mod class_names;
pub mod collate;
pub mod devtools;
pub mod dominators;
pub mod dump;
pub mod dwarf;
mod error;
pub mod graph;
pub mod json;
pub mod layout;
pub mod mark;
pub mod module;
pub mod retainers;
pub mod roots;
pub mod text;
pub mod tlsf;
pub mod tree;
pub mod views;
#[cfg(feature = "heap-runtime")]
pub mod visit;
#[cfg(feature = "heap-runtime")]
mod visit_trace;

#[cfg(test)]
mod tests;

pub use dump::{Dump, DumpProblem};
pub use error::HeapError;
pub use json::{comparison_json, snapshot_json};
pub use views::{Comparison, ComparisonSort, ConstructorSort, Snapshot};

use alloc::vec::Vec;

use dwarf::Dies;
use layout::DebugInfo;
use module::ModuleInfo;
use retainers::{RetainerView, Target};
use tlsf::PtrIndex;
use tree::DominatorView;
use views::Instance;

/// The wasm side of an analysis, read once.
#[derive(Debug, Clone)]
pub struct Analyzer<'w> {
    /// What was read from the module.
    pub module: ModuleInfo<'w>,
    /// Layouts and global candidates (without DWARF: the classes the runtime names).
    pub info: DebugInfo,
    /// Without DWARF: the runtime whose visitors give the references and global roots.
    #[cfg(feature = "heap-runtime")]
    pub runtime: Option<visit::Runtime>,
}

impl<'w> Analyzer<'w> {
    /// Reads the wasm binary and its DWARF.
    ///
    /// # Errors
    /// `Failed to parse wasm binary`, `Missing .debug_abbrev section in wasm binary`,
    /// `Missing .debug_info section in wasm binary` (in that order), then the DWARF errors of
    /// [`Dies::read`].
    pub fn new(wasm: &'w [u8]) -> Result<Analyzer<'w>, HeapError> {
        let module = ModuleInfo::read(wasm)?;
        let abbrev = module.debug_abbrev.ok_or(HeapError::MissingDebugAbbrev)?;
        let info = module.debug_info.ok_or(HeapError::MissingDebugInfo)?;
        let dies = Dies::read(abbrev, info, module.debug_str.unwrap_or(&[]))?;
        let info = DebugInfo::resolve(&dies);
        Ok(Analyzer {
            module,
            info,
            #[cfg(feature = "heap-runtime")]
            runtime: None,
        })
    }

    /// Reads the wasm binary: with its DWARF when it has any ([`Analyzer::new`], WARPO's
    /// path), else through AssemblyScript's runtime visitors ([`visit::Runtime`]: a module
    /// built with `asc --debug` and a garbage-collecting runtime).
    ///
    /// # Errors
    /// `Failed to parse wasm binary`; the DWARF errors of [`Analyzer::new`] when a DWARF
    /// section is present; [`HeapError::Visitor`] when the module does not run in the
    /// interpreter; [`HeapError::NoHeapInfo`] when it has neither DWARF nor the visitors.
    #[cfg(feature = "heap-runtime")]
    pub fn load(wasm: &'w [u8]) -> Result<Analyzer<'w>, HeapError> {
        let module = ModuleInfo::read(wasm)?;
        if module.debug_abbrev.is_some() || module.debug_info.is_some() {
            return Analyzer::new(wasm);
        }
        let runtime = visit::Runtime::find(wasm)?.ok_or(HeapError::NoHeapInfo)?;
        Ok(Analyzer { module, info: runtime.debug_info(), runtime: Some(runtime) })
    }

    /// Whether `dump` can be analysed with this module, checked before any analysis
    /// (docs/heap.md, "Command line"), in this order: the file holds a memory image of whole
    /// 64 KiB pages; it holds as many global values as the module has mutable `i32` globals, or
    /// none (the format's own shortcut, docs/heap.md "Dump format"); its header's `__heap_base`
    /// and `__data_end` are the module's globals of those names, where the module has them
    /// ([`ModuleInfo::named_global`]); the image is at least the module's initial memory; the
    /// header's `__data_end`, `__heap_base` and `__stack_pointer` lie within the image; the
    /// heap's first block fits in it. WARPO's tool checks none of these and analyses what it
    /// gets, into negative or meaningless sizes.
    ///
    /// # Errors
    /// The first [`DumpProblem`] found.
    pub fn check_dump(&self, dump: &Dump<'_>) -> Result<(), DumpProblem> {
        let image = dump.memory.len() as u64;
        let page = crate::profile::pages::PAGE_SIZE;
        if image == 0 {
            return Err(DumpProblem::NoMemory {
                header: dump::HEADER_LEN as u64 + 4 * dump.globals.len() as u64,
            });
        }
        if !image.is_multiple_of(page) {
            return Err(DumpProblem::PartialPage { image });
        }
        let (held, defined) = (dump.globals.len() as u64, self.module.mutable_i32_globals() as u64);
        if held != 0 && held != defined {
            return Err(DumpProblem::GlobalCount { held, defined });
        }
        for (name, ours, theirs) in [
            ("__heap_base", self.module.heap_base(), dump.heap_base),
            ("__data_end", self.module.data_end(), dump.data_end),
        ] {
            if let Some(ours) = ours.filter(|v| *v != theirs) {
                return Err(DumpProblem::Header { name, dump: theirs, module: ours });
            }
        }
        if let Some(pages) = self.module.memory_pages.filter(|p| image < p.saturating_mul(page)) {
            return Err(DumpProblem::SmallerThanModule { image, pages });
        }
        for (name, value) in [
            ("__data_end", dump.data_end),
            ("__heap_base", dump.heap_base),
            ("__stack_pointer", dump.stack_pointer),
        ] {
            if u64::from(value) > image {
                return Err(DumpProblem::PastImage { name, value, image });
            }
        }
        let first_block = tlsf::first_block(dump.heap_base);
        if first_block + 4 > image {
            return Err(DumpProblem::HeapPastImage { first_block, heap_base: dump.heap_base, image });
        }
        Ok(())
    }

    /// The reference graph, the slot of each edge when the scan names them (without DWARF)
    /// and the global roots.
    fn references(
        &self,
        dump: &Dump<'_>,
        objects: &[tlsf::Object],
        index: &PtrIndex,
    ) -> Result<References, HeapError> {
        #[cfg(feature = "heap-runtime")]
        if let Some(rt) = &self.runtime {
            let v = rt.scan(&self.module, dump.memory, &dump.globals, objects, index)?;
            return Ok(References { graph: v.graph, reads: Some(v.reads), globals: v.globals });
        }
        let graph = graph::scan(dump.memory, objects, index, &self.info)?;
        let globals = roots::global_roots(&self.info, &self.module, &dump.globals);
        Ok(References { graph, reads: None, globals })
    }

    /// Walks the heap of one dump, scans its references, finds the roots, marks the live
    /// objects and computes the dominator tree.
    fn graph(&self, dump: &Dump<'_>) -> Result<HeapGraph, HeapError> {
        let memory = dump.memory;
        let objects = tlsf::walk(memory, dump.heap_base)?;
        let index = PtrIndex::new(&objects);
        let References { graph, reads, globals } = self.references(dump, &objects, &index)?;
        let roots = roots::roots(memory, dump.heap_base, dump.stack_pointer, &objects, &index, &globals);
        let root_objects = mark::unique_roots(roots.iter().map(|r| r.object), objects.len());
        let live = mark::mark(&graph, &root_objects);
        let tree = dominators::dominators(&graph, &root_objects);
        Ok(HeapGraph { objects, index, graph, reads, globals, roots, live, tree })
    }

    /// [`Analyzer::graph`] and the shallow and retained sizes, without the reference
    /// graph (dropped before the sizes are computed, to keep the peak low).
    fn sizes(&self, dump: &Dump<'_>) -> Result<Sizes, HeapError> {
        let HeapGraph { objects, index, graph, reads, live, tree, .. } = self.graph(dump)?;
        drop(index);
        drop(graph);
        drop(reads);
        let shallow: Vec<u64> = objects.iter().map(|o| o.shallow_size()).collect();
        let retained = dominators::retained_sizes(&tree, &shallow);
        Ok(Sizes { objects, live, tree, shallow, retained })
    }

    /// Runs the whole analysis on one dump: the constructor view in the default order.
    ///
    /// # Errors
    /// [`HeapError::BlockHeaderOutOfBounds`], [`HeapError::PayloadOutOfBounds`],
    /// [`HeapError::ScanLimitExceeded`] for dumps that are not consistent heaps.
    pub fn analyze(&self, dump: &Dump<'_>) -> Result<Snapshot, HeapError> {
        let Sizes { objects, live, tree, shallow, retained } = self.sizes(dump)?;
        drop(tree);
        let total_live_size =
            objects.iter().zip(&live).filter(|(_, l)| **l).map(|(o, _)| o.shallow_size()).sum();
        let live_objects = objects.iter().enumerate().filter(|(i, _)| live[*i]).map(|(i, o)| {
            (o.rtid, Instance { address: o.payload, shallow_size: shallow[i], retained_size: retained[i] })
        });
        let constructors = views::constructor_rows(live_objects, |rtid| self.info.class_name(rtid));
        let total_heap_size = dump.memory.len() as i64 - tlsf::first_block(dump.heap_base) as i64;
        Ok(Snapshot { total_heap_size, total_live_size, constructors })
    }

    /// The dominator tree view of one dump ([`tree::dominator_view`]): `depth` levels, at
    /// most `top` child nodes per node.
    ///
    /// # Errors
    /// As [`Analyzer::analyze`].
    pub fn dominators(&self, dump: &Dump<'_>, depth: usize, top: usize) -> Result<DominatorView, HeapError> {
        let s = self.sizes(dump)?;
        let address: Vec<u64> = s.objects.iter().map(|o| o.payload).collect();
        let sizes = tree::Sizes { shallow: &s.shallow, retained: &s.retained, address: &address };
        let class_name = |i: u32| self.info.class_name(s.objects[i as usize].rtid);
        Ok(tree::dominator_view(&s.tree, &sizes, class_name, depth, top))
    }

    /// The retainers view of one object of one dump ([`retainers::retainer_view`]): its
    /// incoming edges and up to `paths` shortest paths from the roots.
    ///
    /// # Errors
    /// As [`Analyzer::analyze`]; [`HeapError::NoObjectAt`] or [`HeapError::NoLiveInstance`]
    /// when `target` names no object.
    pub fn retainers(
        &self,
        dump: &Dump<'_>,
        target: &Target,
        paths: usize,
    ) -> Result<RetainerView, HeapError> {
        self.with_heap(dump, |heap| {
            let object = heap.find(target)?;
            retainers::retainer_view(heap, object, paths)
        })
    }

    /// Writes the Chrome DevTools heap snapshot of one dump to `out`
    /// ([`devtools::write_heapsnapshot`]).
    ///
    /// # Errors
    /// As [`Analyzer::analyze`]; [`HeapError::Write`] when `out` fails.
    pub fn heapsnapshot(&self, dump: &Dump<'_>, out: &mut impl core::fmt::Write) -> Result<(), HeapError> {
        self.with_heap(dump, |heap| devtools::write_heapsnapshot(heap, out))
    }

    /// Runs `f` on the analysed dump: the graph, roots and liveness of [`Analyzer::graph`]
    /// with the shallow and retained sizes (the dominator tree itself dropped first).
    fn with_heap<R>(
        &self,
        dump: &Dump<'_>,
        f: impl FnOnce(&retainers::Heap<'_>) -> Result<R, HeapError>,
    ) -> Result<R, HeapError> {
        let HeapGraph { objects, index, graph, reads, globals, roots, live, tree } = self.graph(dump)?;
        // Without DWARF, the edges' slots from where the visitors read them.
        #[cfg(feature = "heap-runtime")]
        let slots = reads.map(|reads| visit::slots(dump.memory, &objects, &graph, &reads, &self.info));
        // (Only the visitors give `reads`.)
        #[cfg(not(feature = "heap-runtime"))]
        let slots: Option<Vec<graph::Slot>> = reads.and(None);
        let shallow: Vec<u64> = objects.iter().map(|o| o.shallow_size()).collect();
        let retained = dominators::retained_sizes(&tree, &shallow);
        drop(tree);
        f(&retainers::Heap {
            memory: dump.memory,
            objects: &objects,
            index: &index,
            graph: &graph,
            globals: &globals,
            roots: &roots,
            live: &live,
            shallow: &shallow,
            retained: &retained,
            info: &self.info,
            slots: slots.as_deref(),
        })
    }
}

/// What [`Analyzer::references`] finds in one dump.
struct References {
    graph: graph::Graph,
    /// Without DWARF: where each edge's reference was read (`visit::Visited::reads`).
    reads: Option<Vec<u64>>,
    globals: Vec<roots::GlobalRoot>,
}

/// What [`Analyzer::graph`] finds in one dump.
struct HeapGraph {
    objects: Vec<tlsf::Object>,
    index: PtrIndex,
    graph: graph::Graph,
    reads: Option<Vec<u64>>,
    globals: Vec<roots::GlobalRoot>,
    roots: Vec<roots::Root>,
    live: Vec<bool>,
    tree: dominators::DominatorTree,
}

/// What [`Analyzer::sizes`] finds in one dump.
struct Sizes {
    objects: Vec<tlsf::Object>,
    live: Vec<bool>,
    tree: dominators::DominatorTree,
    shallow: Vec<u64>,
    retained: Vec<u64>,
}

/// `analyze DUMP --wasm WASM` in WARPO's order (G): dump header, then wasm and DWARF, then the
/// analysis. The result is in the default order; apply `--sort`/`--top` with
/// [`Snapshot::sort_and_truncate`].
///
/// # Errors
/// The first [`HeapError`] in that order.
pub fn analyze(dump_file: &[u8], wasm: &[u8]) -> Result<Snapshot, HeapError> {
    let dump = Dump::parse(dump_file)?;
    Analyzer::new(wasm)?.analyze(&dump)
}

/// `diff BEFORE AFTER --wasm WASM` in WARPO's order (G): the before dump is analysed
/// completely (header, wasm, analysis) before the after dump is read.
///
/// # Errors
/// The first [`HeapError`] in that order.
pub fn diff(before_file: &[u8], after_file: &[u8], wasm: &[u8]) -> Result<Comparison, HeapError> {
    let before_dump = Dump::parse(before_file)?;
    let analyzer = Analyzer::new(wasm)?;
    let before = analyzer.analyze(&before_dump)?;
    let after = analyzer.analyze(&Dump::parse(after_file)?)?;
    Ok(views::compare(&before, &after))
}

/// `--top` as WARPO parses it (G): JavaScript `parseInt(value, 10)` (leading white space, an
/// optional sign, the longest run of decimal digits), which must be at least 1. Values beyond
/// `usize` saturate (they keep every row anyway).
///
/// # Errors
/// [`HeapError::InvalidTop`] (`--top must be a positive integer`).
pub fn parse_top(value: &str) -> Result<usize, HeapError> {
    let s = value.trim_start_matches(|c: char| c.is_whitespace() || c == '\u{feff}');
    let (negative, s) = match s.as_bytes().first() {
        Some(b'-') => (true, &s[1..]),
        Some(b'+') => (false, &s[1..]),
        _ => (false, s),
    };
    let digits = s.bytes().take_while(u8::is_ascii_digit);
    let mut n: usize = 0;
    let mut any = false;
    for d in digits {
        any = true;
        n = n.saturating_mul(10).saturating_add(usize::from(d - b'0'));
    }
    if !any || negative || n < 1 {
        return Err(HeapError::InvalidTop);
    }
    Ok(n)
}
