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
//! * [`LineRecorder`] follows every op of a run ([`Observer::step`], the interpreter's precise
//!   loop) and adds each op's instructions and memory accesses to its instruction's line.
//!   The instructions between two steps go to the later op (docs/counting.md: an op stands
//!   for the instructions it completes), so the lines' instructions add up to the run's count;
//!   at a call's enter and a function's leave the ones since the last step go to the op
//!   executing then (the call, the returning function's last op: its final `end` may complete
//!   after its last step), so that a function's lines add up to its self instructions in the
//!   call tree ([`crate::profile::calltree`]), which switches functions at the same events.

use alloc::collections::BTreeMap;
use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;

use gimli::{EndianSlice, LittleEndian, SectionId};

use crate::wasm::Observer;
use crate::wasm::binary::sections::{Sections, custom_section, id};

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
    /// what [`LineRecorder`] looks up at every op.
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
    /// The defined function's index among the module's defined functions (add the module's
    /// imported function count for its function index).
    pub body: u32,
    /// The line.
    pub line: SourceLine,
}

/// What the code of one source line did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct LineCosts {
    /// Instructions (docs/counting.md) of the ops on the line.
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

/// Records [`LineCosts`] per source line of a run: an [`Observer`] that asks the interpreter
/// for every op (so the run takes the precise loop); without a line table it asks for nothing
/// and records nothing.
#[derive(Debug, Clone, Default)]
pub struct LineRecorder {
    /// Per byte of the code section: the site's index in `sites`, or `u32::MAX`.
    of: Vec<u32>,
    code_start: u64,
    sites: Vec<Site>,
    costs: Vec<LineCosts>,
    /// Costs of ops without a line.
    unlined: LineCosts,
    /// The line of the op executing now, or `u32::MAX`.
    current: u32,
    last: u64,
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
                    current: u32::MAX,
                    ..LineRecorder::default()
                }
            }
            None => LineRecorder { current: u32::MAX, ..LineRecorder::default() },
        }
    }

    /// Gives the instructions since the last step, enter or leave to the line of the op
    /// executing now (at a step: the op about to execute; at an enter or leave: the call, or
    /// the returning function's last op).
    #[inline]
    fn settle(&mut self, instructions: u64) {
        let n = instructions.saturating_sub(self.last);
        self.last = instructions;
        self.costs().instructions += n;
    }

    #[inline]
    fn costs(&mut self) -> &mut LineCosts {
        match self.costs.get_mut(self.current as usize) {
            Some(c) => c,
            None => &mut self.unlined,
        }
    }

    /// Ends the recording: the instructions since the last step go to its site.
    /// `instructions` is the run's final count. The sites that ran, in order of function, then
    /// file and line, and the costs of the code that has no line.
    pub fn finish(mut self, instructions: u64) -> (Vec<(Site, LineCosts)>, LineCosts) {
        let rest = instructions.saturating_sub(self.last);
        self.costs().instructions += rest;
        let mut rows: Vec<(Site, LineCosts)> =
            self.sites.into_iter().zip(self.costs).filter(|(_, c)| *c != LineCosts::default()).collect();
        crate::order::sort_by_key(&mut rows, |r| r.0);
        (rows, self.unlined)
    }
}

impl Observer for LineRecorder {
    const STEPS: bool = true;

    fn wants_steps(&self) -> bool {
        !self.of.is_empty()
    }
    #[inline]
    fn step(&mut self, offset: u32, instructions: u64) {
        if self.of.is_empty() {
            return;
        }
        let at = u64::from(offset).wrapping_sub(self.code_start) as usize;
        self.current = self.of.get(at).copied().unwrap_or(u32::MAX);
        self.settle(instructions);
    }
    fn enter(&mut self, _: u32, instructions: u64) {
        if !self.of.is_empty() {
            self.settle(instructions);
        }
    }
    fn leave(&mut self, instructions: u64) {
        if !self.of.is_empty() {
            self.settle(instructions);
        }
    }
    #[inline]
    fn load(&mut self, _: u64, len: u32, _: u64) {
        let c = self.costs();
        c.loads += 1;
        c.bytes_read += u64::from(len);
    }
    #[inline]
    fn store(&mut self, _: u64, len: u32, _: u64) {
        let c = self.costs();
        c.stores += 1;
        c.bytes_written += u64::from(len);
    }
    fn copy(&mut self, _: u64, _: u64, len: u64, _: u64) {
        let c = self.costs();
        c.loads += 1;
        c.stores += 1;
        c.bytes_read += len;
        c.bytes_written += len;
    }
    fn fill(&mut self, _: u64, len: u64, _: u64) {
        let c = self.costs();
        c.stores += 1;
        c.bytes_written += len;
    }
    fn host_read(&mut self, _: u64, len: u64, _: u64) {
        let c = self.costs();
        c.bytes_read += len;
        c.host_bytes_read += len;
    }
    fn host_write(&mut self, _: u64, len: u64, _: u64) {
        let c = self.costs();
        c.bytes_written += len;
        c.host_bytes_written += len;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two functions' bodies at module offsets 10..20 and 20..30, each with two lines
    /// (file 0): lines 1 and 2 from 10 and 15, lines 7 and 8 from 20 and 25.
    fn table() -> LineTable {
        let row = |start, line| Row { start, line: Some(SourceLine { file: 0, line }) };
        LineTable {
            files: vec![String::from("a.c")],
            rows: vec![row(10, 1), row(15, 2), row(20, 7), row(25, 8), Row { start: 30, line: None }],
            code: (9, 30),
            bodies: vec![(10, 20), (20, 30)],
        }
    }

    #[test]
    fn instructions_go_to_the_op_running_at_each_step_enter_and_leave() {
        let t = table();
        let mut r = LineRecorder::new(Some(&t));
        let line = |body, line| Site { body, line: SourceLine { file: 0, line } };
        r.step(11, 1); // body 0, line 1: 1
        r.step(16, 3); // body 0, line 2: 2 (a call)
        r.enter(1, 3); // nothing since the call's step
        r.step(21, 4); // body 1, line 7: 1
        r.store(0, 4, 4);
        r.step(26, 6); // body 1, line 8: 2
        r.leave(7); // its final `end`, completed after its last step: line 8
        r.step(12, 9); // body 0, line 1 again: 2
        let (rows, unlined) = r.finish(10); // 1 more for line 1
        let got: Vec<(Site, u64, u64)> = rows.iter().map(|(s, c)| (*s, c.instructions, c.stores)).collect();
        assert_eq!(got, [(line(0, 1), 4, 0), (line(0, 2), 2, 0), (line(1, 7), 1, 1), (line(1, 8), 3, 0)]);
        assert_eq!(unlined, LineCosts::default());
    }

    #[test]
    fn host_bytes_are_kept_apart() {
        let t = table();
        let mut r = LineRecorder::new(Some(&t));
        r.step(16, 1);
        r.load(0, 8, 1);
        r.enter(0, 1);
        r.host_read(0, 100, 1);
        r.host_write(0, 30, 1);
        r.leave(1);
        let (rows, _) = r.finish(1);
        let c = rows[0].1;
        assert_eq!(
            (c.bytes_read, c.host_bytes_read, c.bytes_written, c.host_bytes_written),
            (108, 100, 30, 30)
        );
    }
}
