//! Source lines (docs/report.md, "Source lines"): the DWARF line table of a module built with
//! line tables (Cargo's `debug = "line-tables-only"`, clang's `-g`), and the costs of a run per
//! source line.
//!
//! * [`LineTable::read`] reads `.debug_line` with `gimli` (DWARF 2 to 5, every unit's line
//!   program). In WebAssembly DWARF an address is an offset into the code section's contents,
//!   counted from its first byte (the function count); the table turns them into module
//!   offsets, the unit of the rest of this crate (WebAssembly tool conventions, "DWARF for
//!   WebAssembly"). A row covers the addresses up to the next row of its sequence; line 0
//!   (code without a source line) and the gaps between sequences have no line.
//! * [`LineRecorder`] follows the run's fuel blocks ([`Observer::block`]): a block runs a
//!   prefix of its instructions, and the exact count at the next block (or at an event inside
//!   it) says how long a prefix; each of those instructions, and each memory access by the
//!   exact count of its own instruction, goes to that instruction's line. So the lines'
//!   instructions add up to the run's count, and the fast loop runs unchanged.

use alloc::boxed::Box;
use alloc::collections::BTreeMap;
use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;

use gimli::{EndianSlice, LittleEndian, SectionId};

use crate::wasm::binary::sections::{Sections, custom_section, id};
use crate::wasm::{Module, Observer};

/// A source line: an index into [`LineTable::files`] and the line number (from 1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SourceLine {
    /// Index into [`LineTable::files`].
    pub file: u32,
    /// Line number, from 1.
    pub line: u32,
}

/// One row: from `start` (a module offset) to the next row, the line `line`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Row {
    start: u64,
    /// `None` at the end of a sequence and for line 0.
    line: Option<SourceLine>,
}

/// The line table of a module.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LineTable {
    /// File paths as the DWARF names them (directory and name joined), deduplicated.
    pub files: Vec<String>,
    rows: Vec<Row>,
    /// The code section's contents: `[start, end)` in module offsets.
    code: (u64, u64),
    /// Each defined function's body, `[start, end)` in module offsets.
    bodies: Vec<(u64, u64)>,
}

/// A range `[start, end)` of module offsets.
type Span = (u64, u64);

/// The code section's contents in module offsets, `[start, end)`, and each function body's
/// `[start, end)` (its size field excluded), in order of the defined functions.
fn code_section(bytes: &[u8]) -> Option<(Span, Vec<Span>)> {
    let mut sections = Sections::new(bytes).ok()?;
    while let Ok(Some(s)) = sections.next_section() {
        if s.id == id::CODE {
            let start = s.contents.offset() as u64;
            let mut r = s.contents.clone();
            let mut bodies = Vec::new();
            let count = r.u32().ok()?;
            for _ in 0..count {
                let size = r.u32().ok()? as usize;
                let at = r.offset() as u64;
                r.sub(size).ok()?;
                bodies.push((at, at + size as u64));
            }
            return Some(((start, start + s.data().len() as u64), bodies));
        }
    }
    None
}

impl LineTable {
    /// The line table of the module `bytes`; `None` when it has no `.debug_line` rows (no line
    /// tables, or DWARF that does not read: a custom section never makes a module invalid, so
    /// a broken one only loses the lines).
    pub fn read(bytes: &[u8]) -> Option<LineTable> {
        let (code, bodies) = code_section(bytes)?;
        custom_section(bytes, ".debug_line")?;
        let load = |section: SectionId| -> Result<EndianSlice<'_, LittleEndian>, gimli::Error> {
            Ok(EndianSlice::new(custom_section(bytes, section.name()).unwrap_or(&[]), LittleEndian))
        };
        let dwarf = gimli::Dwarf::load(load).ok()?;
        let mut table = LineTable { files: Vec::new(), rows: Vec::new(), code, bodies };
        let mut file_ids: BTreeMap<String, u32> = BTreeMap::new();
        let mut units = dwarf.units();
        while let Ok(Some(header)) = units.next() {
            let Ok(unit) = dwarf.unit(header) else { continue };
            let Some(program) = unit.line_program.clone() else { continue };
            // Per unit: its file entries' paths, interned on first use.
            let mut names: BTreeMap<u64, u32> = BTreeMap::new();
            let mut rows = program.rows();
            while let Ok(Some((header, row))) = rows.next_row() {
                let start = code.0 + row.address();
                if row.end_sequence() {
                    table.rows.push(Row { start, line: None });
                    continue;
                }
                let line = match row.line() {
                    Some(l) => u32::try_from(l.get()).unwrap_or(u32::MAX),
                    None => {
                        table.rows.push(Row { start, line: None });
                        continue;
                    }
                };
                let file = match names.get(&row.file_index()) {
                    Some(&f) => f,
                    None => {
                        let path = row.file(header).map(|entry| {
                            let text = |v| {
                                dwarf
                                    .attr_string(&unit, v)
                                    .map(|s| String::from_utf8_lossy(s.slice()).into_owned())
                                    .unwrap_or_default()
                            };
                            let name = text(entry.path_name());
                            let dir = entry.directory(header).map(text).unwrap_or_default();
                            if name.starts_with('/') || dir.is_empty() {
                                name
                            } else {
                                alloc::format!("{}/{name}", dir.trim_end_matches('/'))
                            }
                        });
                        let path = path.unwrap_or_else(|| String::from("?"));
                        let next = file_ids.len() as u32;
                        let f = *file_ids.entry(path.clone()).or_insert_with(|| {
                            table.files.push(path);
                            next
                        });
                        names.insert(row.file_index(), f);
                        f
                    }
                };
                table.rows.push(Row { start, line: Some(SourceLine { file, line }) });
            }
        }
        // Sequences in address order; within one address the last row wins (the one a
        // debugger would stop at), an end of sequence first.
        crate::order::sort_by_key(&mut table.rows, |r| (r.start, r.line.is_some()));
        table.rows.dedup_by(|later, earlier| {
            if later.start == earlier.start {
                *earlier = *later;
                true
            } else {
                false
            }
        });
        table.rows.iter().any(|r| r.line.is_some()).then_some(table)
    }

    /// The source line of the instruction at module offset `offset`, if the table has one.
    pub fn lookup(&self, offset: u32) -> Option<SourceLine> {
        let at = u64::from(offset);
        let i = self.rows.partition_point(|r| r.start <= at);
        self.rows.get(i.checked_sub(1)?)?.line
    }

    /// `file:line` of `line`, for people.
    pub fn describe(&self, line: SourceLine) -> String {
        let file = self.files.get(line.file as usize).map_or("?", String::as_str);
        alloc::format!("{file}:{}", line.line)
    }

    /// The site of every byte of the code section, as an index into the returned sites (the
    /// distinct (defined function, line) pairs, in first-seen order) or `u32::MAX` for none:
    /// what [`LineRecorder`] looks up for each instruction of a fuel block.
    fn dense(&self) -> (Vec<u32>, Vec<Site>) {
        let (start, end) = self.code;
        let mut of = vec![u32::MAX; (end - start) as usize];
        let mut sites: Vec<Site> = Vec::new();
        let mut ids: BTreeMap<Site, u32> = BTreeMap::new();
        for (body, &(b_lo, b_hi)) in self.bodies.iter().enumerate() {
            // The rows that overlap this body, each clipped to it.
            let first = self.rows.partition_point(|r| r.start <= b_lo).saturating_sub(1);
            for k in first..self.rows.len() {
                let row = self.rows[k];
                if row.start >= b_hi {
                    break;
                }
                let Some(line) = row.line else { continue };
                let next = self.rows.get(k + 1).map_or(end, |r| r.start);
                let (lo, hi) = (row.start.max(b_lo), next.min(b_hi));
                if lo >= hi {
                    continue;
                }
                let site = Site { body: body as u32, line };
                let id = *ids.entry(site).or_insert_with(|| {
                    sites.push(site);
                    sites.len() as u32 - 1
                });
                of[(lo - start) as usize..(hi - start) as usize].fill(id);
            }
        }
        (of, sites)
    }
}

/// A source line within one defined function (the same line inlined into two functions is
/// two sites).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Site {
    /// The defined function's index among the module's defined functions
    /// ([`Site::function`] gives its function index).
    pub body: u32,
    /// The line.
    pub line: SourceLine,
}

impl Site {
    /// The site's function index in `module`'s function index space (imports first).
    pub fn function(&self, module: &Module) -> u32 {
        self.body + module.imported_function_count()
    }
}

/// What the code of one source line did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct LineCosts {
    /// Instructions (docs/counting.md) on the line.
    pub instructions: u64,
    /// Loads and `memory.copy` reads.
    pub loads: u64,
    /// Stores, `memory.copy` writes, `memory.fill`s and `memory.init`s.
    pub stores: u64,
    /// Bytes read, host functions' included (attributed to the line of their call).
    pub bytes_read: u64,
    /// Bytes written, host functions' included.
    pub bytes_written: u64,
    /// Of `bytes_read`, the bytes host functions read (WASI buffers) during calls on the line;
    /// the call tree gives these to the host function's own node instead.
    pub host_bytes_read: u64,
    /// Of `bytes_written`, the bytes host functions wrote during calls on the line.
    pub host_bytes_written: u64,
}

/// No site (code without a line), and no block.
const NONE: u32 = u32::MAX;

/// One fuel block as the recorder keeps it: its instructions' module offsets, their sites as
/// runs `(instructions, site)`, and how often it ran to its end (those executions are added to
/// the sites once, at the end: a block run partly is added at once).
#[derive(Debug, Clone)]
struct Block {
    offsets: Box<[u32]>,
    /// The site of each of `offsets`, looked up once here rather than at every memory access
    /// (the per-byte table of the code section is large and its reads miss the cache).
    sites: Box<[u32]>,
    runs: Box<[(u32, u32)]>,
    full: u64,
}

/// The site of the instruction at module offset `offset`, in `of` (per byte of the code
/// section from `code_start`), or [`NONE`].
#[inline]
fn site_of(of: &[u32], code_start: u64, offset: u32) -> u32 {
    let at = u64::from(offset).wrapping_sub(code_start) as usize;
    of.get(at).copied().unwrap_or(NONE)
}

/// Records [`LineCosts`] per site (a line of one function) of a run: an [`Observer`] that
/// follows the fuel blocks; without a line table it records nothing. Also answers, at any
/// event, the module offset of the instruction executing ([`LineRecorder::offset_at`]).
#[derive(Debug, Clone, Default)]
pub struct LineRecorder {
    /// Per byte of the code section: the site's index in `sites`, or [`NONE`].
    of: Vec<u32>,
    code_start: u64,
    sites: Vec<Site>,
    costs: Vec<LineCosts>,
    /// Costs of instructions without a line.
    unlined: LineCosts,
    /// Per function index: per op index, the block's id + 1 (0: not seen yet).
    index: Vec<Option<Box<[u32]>>>,
    blocks: Vec<Block>,
    /// The block running now ([`NONE`] before the first), and the exact count when it started.
    current: u32,
    before: u64,
}

impl LineRecorder {
    /// A recorder for a module with the line table `table` (`None`: records nothing).
    pub fn new(table: Option<&LineTable>) -> LineRecorder {
        match table {
            Some(t) => {
                let (of, sites) = t.dense();
                let costs = vec![LineCosts::default(); sites.len()];
                LineRecorder {
                    of,
                    code_start: t.code.0,
                    sites,
                    costs,
                    current: NONE,
                    ..LineRecorder::default()
                }
            }
            None => LineRecorder { current: NONE, ..LineRecorder::default() },
        }
    }

    /// Whether the recorder has a line table (else it records nothing). Always false without
    /// the `std` feature: the Content components read no DWARF, so their builds leave the
    /// recorder's work out (docs/components.md, the report's code section bound).
    #[inline]
    pub fn is_enabled(&self) -> bool {
        cfg!(feature = "std") && !self.of.is_empty()
    }

    #[inline]
    fn costs(&mut self, site: u32) -> &mut LineCosts {
        match self.costs.get_mut(site as usize) {
            Some(c) => c,
            None => &mut self.unlined,
        }
    }

    /// The block of op `pc` of function `func`, made when first seen.
    #[inline]
    fn block_id(&mut self, module: &Module, func: u32, pc: u32) -> u32 {
        if let Some(Some(ids)) = self.index.get(func as usize)
            && let Some(&id) = ids.get(pc as usize)
            && id != 0
        {
            return id - 1;
        }
        self.new_block(module, func, pc)
    }

    #[cold]
    fn new_block(&mut self, module: &Module, func: u32, pc: u32) -> u32 {
        let f = func as usize;
        let Some(body) = module.body(func) else { return NONE };
        if f >= self.index.len() {
            self.index.resize_with(f + 1, || None);
        }
        let ids = self.index[f].get_or_insert_with(|| vec![0; body.code.len()].into_boxed_slice());
        let n = match body.code.get(pc as usize) {
            Some(crate::wasm::ir::Op::Fuel { n, .. }) => *n as usize,
            _ => return NONE,
        };
        // The block's k-th counted instruction (1-based) is completed by the op whose `cum`
        // (its position in the block) is the first at or past k: an op stands for its own
        // instruction and for those it absorbed (the `local.get`s an add reads directly), so
        // those count on its line, as in docs/counting.md. The counted instructions are not
        // always consecutive in the function (a `block` or `nop` counts nothing), so they are
        // found through the ops, not from the block's first instruction.
        let mut offsets = vec![0u32; n];
        let mut done = 0usize;
        let mut last = None;
        for p in pc as usize + 1..body.code.len() {
            if matches!(body.code[p], crate::wasm::ir::Op::Fuel { .. }) || done >= n {
                break;
            }
            let cum = (body.cum.get(p).copied().unwrap_or(0) as usize).min(n);
            let Some(&offset) = body.idx.get(p).and_then(|&i| body.instr_offsets.get(i as usize)) else {
                continue;
            };
            if cum > done {
                offsets[done..cum].fill(offset);
                done = cum;
            }
            last = Some(offset);
        }
        // A block's final `end`s complete after its last op: on that op's line.
        if let Some(offset) = last {
            offsets[done..].fill(offset);
        }
        let offsets: Box<[u32]> = offsets.into_boxed_slice();
        let sites: Box<[u32]> = offsets.iter().map(|&o| site_of(&self.of, self.code_start, o)).collect();
        let mut runs: Vec<(u32, u32)> = Vec::new();
        for &site in sites.iter() {
            match runs.last_mut() {
                Some((k, s)) if *s == site => *k += 1,
                _ => runs.push((1, site)),
            }
        }
        let id = self.blocks.len() as u32;
        self.blocks.push(Block { offsets, sites, runs: runs.into_boxed_slice(), full: 0 });
        if let Some(slot) = ids.get_mut(pc as usize) {
            *slot = id + 1;
        }
        id
    }

    /// Gives the running block's instructions up to the exact count `now` to their sites: a
    /// block that ran to its end is counted, one that ran a prefix is added to its sites.
    #[inline]
    fn flush(&mut self, now: u64) {
        let Some(block) = self.blocks.get_mut(self.current as usize) else { return };
        let mut left = now.saturating_sub(self.before);
        if left == block.offsets.len() as u64 {
            block.full += 1;
            self.before = now;
            self.current = NONE;
            return;
        }
        let block = &self.blocks[self.current as usize];
        let mut i = 0;
        while left > 0 {
            let Some(&(n, site)) = block.runs.get(i) else { break };
            let take = left.min(u64::from(n));
            match self.costs.get_mut(site as usize) {
                Some(c) => c.instructions += take,
                None => self.unlined.instructions += take,
            }
            left -= take;
            i += 1;
        }
        // Past the block's end (it cannot be): without a line.
        self.unlined.instructions += left;
        self.before = now;
        self.current = NONE;
    }

    /// The module offset of the instruction that ran as the `instructions`-th of the run (the
    /// exact count of an event, its own instruction included), when it lies in the running
    /// block; [`NO_OFFSET`](crate::profile::calltree::NO_OFFSET) otherwise or without a table.
    #[inline]
    pub fn offset_at(&self, instructions: u64) -> u32 {
        match self.running(instructions) {
            Some((block, k)) => block.offsets[k],
            None => crate::profile::calltree::NO_OFFSET,
        }
    }

    /// The site of the instruction counted `instructions`-th (see [`LineRecorder::offset_at`]).
    #[inline]
    fn site_at(&self, instructions: u64) -> u32 {
        self.running(instructions).map_or(NONE, |(block, k)| block.sites[k])
    }

    /// The running block and the position in it of the instruction counted
    /// `instructions`-th, when the recorder is enabled and the instruction lies in the block.
    #[inline]
    fn running(&self, instructions: u64) -> Option<(&Block, usize)> {
        if !self.is_enabled() {
            return None;
        }
        let block = self.blocks.get(self.current as usize)?;
        let k = instructions.wrapping_sub(self.before).wrapping_sub(1) as usize;
        (k < block.offsets.len()).then_some((block, k))
    }

    /// Ends the recording: the running block's instructions up to the run's final count
    /// `instructions` go to their sites. The sites that ran, in order of function, then file
    /// and line, and the costs of the code that has no line.
    pub fn finish(mut self, instructions: u64) -> (Vec<(Site, LineCosts)>, LineCosts) {
        self.flush(instructions);
        for block in &self.blocks {
            for &(n, site) in block.runs.iter() {
                let add = u64::from(n) * block.full;
                match self.costs.get_mut(site as usize) {
                    Some(c) => c.instructions += add,
                    None => self.unlined.instructions += add,
                }
            }
        }
        let mut rows: Vec<(Site, LineCosts)> =
            self.sites.into_iter().zip(self.costs).filter(|(_, c)| *c != LineCosts::default()).collect();
        crate::order::sort_by_key(&mut rows, |r| r.0);
        (rows, self.unlined)
    }

    /// Adds one event's costs to the line of the instruction counted `instructions`-th;
    /// `host` when a host function moved the bytes (kept apart too, [`LineCosts`]).
    fn access(&mut self, instructions: u64, read: u64, written: u64, loads: u64, stores: u64, host: bool) {
        if !self.is_enabled() {
            return;
        }
        let site = self.site_at(instructions);
        let c = self.costs(site);
        c.loads += loads;
        c.stores += stores;
        c.bytes_read += read;
        c.bytes_written += written;
        if host {
            c.host_bytes_read += read;
            c.host_bytes_written += written;
        }
    }
}

impl Observer for LineRecorder {
    const BLOCKS: bool = cfg!(feature = "std");

    #[inline]
    fn block(&mut self, module: &Module, func: u32, pc: u32, before: u64) {
        if !self.is_enabled() {
            return;
        }
        self.flush(before);
        self.current = self.block_id(module, func, pc);
        self.before = before;
    }
    #[inline]
    fn load(&mut self, _: u64, len: u32, n: u64) {
        self.access(n, u64::from(len), 0, 1, 0, false);
    }
    #[inline]
    fn store(&mut self, _: u64, len: u32, n: u64) {
        self.access(n, 0, u64::from(len), 0, 1, false);
    }
    fn copy(&mut self, _: u64, _: u64, len: u64, n: u64) {
        self.access(n, len, len, 1, 1, false);
    }
    fn fill(&mut self, _: u64, len: u64, n: u64) {
        self.access(n, 0, len, 0, 1, false);
    }
    fn host_read(&mut self, _: u64, len: u64, n: u64) {
        self.access(n, len, 0, 0, 0, true);
    }
    fn host_write(&mut self, _: u64, len: u64, n: u64) {
        self.access(n, 0, len, 0, 0, true);
    }
}
